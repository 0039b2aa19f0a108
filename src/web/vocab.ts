/**
 * The words the test web writes with: per-topic English vocabularies, per-language vocabularies,
 * generic link texts, and the US cities of the geographic pages. Resolved once per model.
 */
import { GENERIC_ANCHORS, GENERIC_ENGLISH_WORDS, TOPIC_WORDS } from './data/topic-words.js';
import { LANGUAGE_WORDS } from './data/language-words.js';
import { SAME_NAME_CITIES, US_CITIES, type UsCity } from '../geo/data/us-cities.js';

/** Everything a page in one language draws from. */
export interface LanguageVocab {
  readonly code: string;
  /** Function and everyday words, the bulk of a body. */
  readonly filler: readonly string[];
  /** Topic-neutral content words for titles, slugs and anchors of non-English pages. */
  readonly content: readonly string[];
  readonly anchors: readonly string[];
  readonly charsets: readonly string[];
}

const BUILT_IN_TOPICS = Object.keys(TOPIC_WORDS);

/** The topic vocabulary of a category; categories without their own list borrow one by position. */
export function topicWords(category: string, index: number): readonly string[] {
  const own = TOPIC_WORDS[category.toUpperCase()];
  if (own !== undefined) return own;
  return TOPIC_WORDS[BUILT_IN_TOPICS[index % BUILT_IN_TOPICS.length] as string] as readonly string[];
}

const vocabCache = new Map<string, LanguageVocab>();

/** The vocabulary of a language code (one of the keys of LANGUAGE_WORDS); built once per code. */
export function languageVocab(code: string): LanguageVocab {
  const hit = vocabCache.get(code);
  if (hit !== undefined) return hit;
  const vocab = buildLanguageVocab(code);
  vocabCache.set(code, vocab);
  return vocab;
}

function buildLanguageVocab(code: string): LanguageVocab {
  const lw = LANGUAGE_WORDS[code];
  if (lw === undefined) throw new Error(`no vocabulary for language ${code}`);
  const filler = code === 'en' ? [...new Set([...lw.common, ...GENERIC_ENGLISH_WORDS])] : [...lw.common, ...lw.content];
  return {
    code,
    filler,
    content: lw.content,
    anchors: GENERIC_ANCHORS[code] ?? GENERIC_ANCHORS['en'] ?? ['more'],
    charsets: lw.charsets,
  };
}

/** `word` with its first letter upper-cased. */
export function capitalize(w: string): string {
  return w.length === 0 ? w : (w[0] as string).toUpperCase() + w.slice(1);
}

/** The N most populous US cities: the default geographic targets. */
export function targetCities(n: number): readonly UsCity[] {
  return US_CITIES.slice(0, n);
}

/** Other-state cities sharing a target city's name (ambiguity on purpose). */
export function sameNameCities(name: string): readonly { readonly name: string; readonly state: string }[] {
  return SAME_NAME_CITIES.filter((c) => c.name === name);
}

/** ASCII slug of a city name for host names and paths: "San Antonio" -> "sanantonio". */
export function citySlug(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}
