/**
 * English function words: articles, pronouns, auxiliaries, prepositions, conjunctions and the
 * commonest adverbs. They occur in every topic, so they teach a topic model nothing about topics; but
 * their share differs between genres (running prose uses more of them than definitions and lists),
 * so a model that kept them would learn the genre of its training text instead. Training leaves them
 * out of the model, and classification then skips them like any term the model does not know.
 * Written for shoal from general knowledge of English grammar.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = Object.freeze([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'almost', 'along', 'already', 'also', 'although', 'always',
  'am', 'among', 'an', 'and', 'another', 'any', 'anyone', 'anything', 'are', 'around', 'as', 'at', 'away', 'back', 'be',
  'became', 'because', 'become', 'becomes', 'been', 'before', 'behind', 'being', 'below', 'beside', 'besides',
  'between', 'beyond', 'both', 'but', 'by', 'can', 'cannot', 'could', 'did', 'do', 'does', 'doing', 'done', 'down',
  'during', 'each', 'either', 'else', 'enough', 'even', 'ever', 'every', 'everyone', 'everything', 'few', 'for', 'from',
  'further', 'get', 'gets', 'got', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself', 'him',
  'himself', 'his', 'how', 'however', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'least', 'less',
  'like', 'made', 'make', 'makes', 'many', 'may', 'me', 'might', 'mine', 'more', 'most', 'much', 'must', 'my', 'myself',
  'neither', 'never', 'no', 'nobody', 'none', 'nor', 'not', 'nothing', 'now', 'of', 'off', 'often', 'on', 'once', 'one',
  'only', 'onto', 'or', 'other', 'others', 'otherwise', 'our', 'ours', 'ourselves', 'out', 'over', 'own', 'per',
  'perhaps', 'quite', 'rather', 'really', 'same', 'several', 'shall', 'she', 'should', 'since', 'so', 'some', 'someone',
  'something', 'sometimes', 'still', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then',
  'there', 'therefore', 'these', 'they', 'this', 'those', 'though', 'through', 'thus', 'to', 'together', 'too', 'toward',
  'towards', 'under', 'unless', 'until', 'up', 'upon', 'us', 'used', 'very', 'via', 'was', 'we', 'well', 'were', 'what',
  'whatever', 'when', 'whenever', 'where', 'whereas', 'wherever', 'whether', 'which', 'while', 'who', 'whoever', 'whom',
  'whose', 'why', 'will', 'with', 'within', 'without', 'would', 'yet', 'you', 'your', 'yours', 'yourself', 'yourselves',
]);
