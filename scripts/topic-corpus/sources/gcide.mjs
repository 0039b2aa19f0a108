/**
 * GCIDE (GNU Collaborative International Dictionary of English, Webster 1913 plus additions), from
 * Debian's dict-gcide. Many senses carry a subject label such as (Med.), (Law), (Mus.) or (Cookery);
 * the label names the field the sense belongs to, so labelled senses are topical text. Senses of one
 * label are grouped, in dictionary order, into documents of about 150 words; the label itself is
 * removed from the text so a classifier cannot learn the abbreviation instead of the vocabulary.
 */
import { groupEntries, readDictd, squash, allExist } from '../lib.mjs';

const DIR = '/usr/share/dictd';

/** Subject label (lower case, without the final full stop) -> category. */
const LABELS = {
  // SCIENCE: natural and formal sciences.
  zool: 'SCIENCE',
  bot: 'SCIENCE',
  botany: 'SCIENCE',
  chem: 'SCIENCE',
  chemistry: 'SCIENCE',
  biol: 'SCIENCE',
  biology: 'SCIENCE',
  min: 'SCIENCE',
  physics: 'SCIENCE',
  phys: 'SCIENCE',
  astron: 'SCIENCE',
  astronomy: 'SCIENCE',
  geol: 'SCIENCE',
  math: 'SCIENCE',
  geom: 'SCIENCE',
  paleon: 'SCIENCE',
  crystallog: 'SCIENCE',
  opt: 'SCIENCE',
  optics: 'SCIENCE',
  alg: 'SCIENCE',
  arith: 'SCIENCE',
  trig: 'SCIENCE',
  'nat. hist': 'SCIENCE',
  meteor: 'SCIENCE',
  meteorol: 'SCIENCE',
  meteorology: 'SCIENCE',
  'phys. geog': 'SCIENCE',
  biochem: 'SCIENCE',
  biochemistry: 'SCIENCE',
  genetics: 'SCIENCE',
  magnetism: 'SCIENCE',
  electricity: 'SCIENCE',
  elec: 'SCIENCE',
  thermodynamics: 'SCIENCE',
  kinematics: 'SCIENCE',
  acoustics: 'SCIENCE',
  microbiology: 'SCIENCE',
  microbiol: 'SCIENCE',
  statistics: 'SCIENCE',
  ethnol: 'SCIENCE',
  anthropol: 'SCIENCE',
  archaeol: 'SCIENCE',
  'cell biology': 'SCIENCE',
  biogeography: 'SCIENCE',
  'conic sections': 'SCIENCE',
  'plant physiol': 'SCIENCE',
  bacteriol: 'SCIENCE',
  science: 'SCIENCE',
  mech: 'SCIENCE',
  // HEALTH: medicine and the body.
  med: 'HEALTH',
  anat: 'HEALTH',
  anatomy: 'HEALTH',
  physiol: 'HEALTH',
  surg: 'HEALTH',
  pharm: 'HEALTH',
  pharmacy: 'HEALTH',
  pathol: 'HEALTH',
  dentistry: 'HEALTH',
  psychiatry: 'HEALTH',
  immunology: 'HEALTH',
  'old med': 'HEALTH',
  'med. chem': 'HEALTH',
  'physiol. chem': 'HEALTH',
  veter: 'HEALTH',
  // SOCIETY: law, religion, politics, history, philosophy, the military, heraldry.
  law: 'SOCIETY',
  eccl: 'SOCIETY',
  eccles: 'SOCIETY',
  'eccl. hist': 'SOCIETY',
  theol: 'SOCIETY',
  script: 'SOCIETY',
  politics: 'SOCIETY',
  'political science': 'SOCIETY',
  legislation: 'SOCIETY',
  'parliamentary practice': 'SOCIETY',
  diplomacy: 'SOCIETY',
  equity: 'SOCIETY',
  hist: 'SOCIETY',
  antiq: 'SOCIETY',
  myth: 'SOCIETY',
  mythol: 'SOCIETY',
  metaph: 'SOCIETY',
  philos: 'SOCIETY',
  philosophy: 'SOCIETY',
  ethics: 'SOCIETY',
  logic: 'SOCIETY',
  her: 'SOCIETY',
  mil: 'SOCIETY',
  military: 'SOCIETY',
  fort: 'SOCIETY',
  gun: 'SOCIETY',
  gunnery: 'SOCIETY',
  ordnance: 'SOCIETY',
  'anc. armor': 'SOCIETY',
  armor: 'SOCIETY',
  hinduism: 'SOCIETY',
  'methodist church': 'SOCIETY',
  spiritualism: 'SOCIETY',
  psychol: 'SOCIETY',
  psychology: 'SOCIETY',
  // ARTS: music, fine arts, architecture, literature, theatre, dance, photography.
  mus: 'ARTS',
  music: 'ARTS',
  'anc. mus': 'ARTS',
  'fine arts': 'ARTS',
  paint: 'ARTS',
  painting: 'ARTS',
  art: 'ARTS',
  arch: 'ARTS',
  architecture: 'ARTS',
  'anc. arch': 'ARTS',
  pros: 'ARTS',
  'anc. pros': 'ARTS',
  poetry: 'ARTS',
  rhet: 'ARTS',
  photog: 'ARTS',
  sculp: 'ARTS',
  theater: 'ARTS',
  theat: 'ARTS',
  drama: 'ARTS',
  dancing: 'ARTS',
  engraving: 'ARTS',
  persp: 'ARTS',
  // BUSINESS: commerce, finance and the trades and industries.
  com: 'BUSINESS',
  commerce: 'BUSINESS',
  finance: 'BUSINESS',
  banking: 'BUSINESS',
  bookkeeping: 'BUSINESS',
  'stock exchange': 'BUSINESS',
  'stock market': 'BUSINESS',
  'polit. econ': 'BUSINESS',
  economics: 'BUSINESS',
  'life insurance': 'BUSINESS',
  mach: 'BUSINESS',
  mining: 'BUSINESS',
  'coal mining': 'BUSINESS',
  metal: 'BUSINESS',
  metallurgy: 'BUSINESS',
  founding: 'BUSINESS',
  carp: 'BUSINESS',
  masonry: 'BUSINESS',
  weaving: 'BUSINESS',
  spinning: 'BUSINESS',
  shipbuilding: 'BUSINESS',
  'steam engine': 'BUSINESS',
  'steam boilers': 'BUSINESS',
  engin: 'BUSINESS',
  engineering: 'BUSINESS',
  railroad: 'BUSINESS',
  railroads: 'BUSINESS',
  railways: 'BUSINESS',
  print: 'BUSINESS',
  printing: 'BUSINESS',
  typog: 'BUSINESS',
  bookbinding: 'BUSINESS',
  agric: 'BUSINESS',
  dyeing: 'BUSINESS',
  brewing: 'BUSINESS',
  pottery: 'BUSINESS',
  ceramics: 'BUSINESS',
  joinery: 'BUSINESS',
  manuf: 'BUSINESS',
  forestry: 'BUSINESS',
  'stock breeding': 'BUSINESS',
  milling: 'BUSINESS',
  plumbing: 'BUSINESS',
  plastering: 'BUSINESS',
  building: 'BUSINESS',
  logging: 'BUSINESS',
  journalism: 'NEWS',
  // COMPUTERS.
  computers: 'COMPUTERS',
  computer: 'COMPUTERS',
  electronics: 'COMPUTERS',
  computing: 'COMPUTERS',
  // SPORTS.
  baseball: 'SPORTS',
  golf: 'SPORTS',
  football: 'SPORTS',
  cricket: 'SPORTS',
  sports: 'SPORTS',
  sport: 'SPORTS',
  sporting: 'SPORTS',
  billiards: 'SPORTS',
  fencing: 'SPORTS',
  tennis: 'SPORTS',
  'lawn tennis': 'SPORTS',
  wrestling: 'SPORTS',
  boxing: 'SPORTS',
  racing: 'SPORTS',
  'horse racing': 'SPORTS',
  basketball: 'SPORTS',
  bowling: 'SPORTS',
  tenpins: 'SPORTS',
  curling: 'SPORTS',
  croquet: 'SPORTS',
  archery: 'SPORTS',
  'ball playing': 'SPORTS',
  // GAMES.
  'card playing': 'GAMES',
  chess: 'GAMES',
  whist: 'GAMES',
  poker: 'GAMES',
  games: 'GAMES',
  backgammon: 'GAMES',
  cards: 'GAMES',
  gaming: 'GAMES',
  draughts: 'GAMES',
  bridge: 'GAMES',
  // RECREATION: outdoor pursuits, boating, horses, hunting, fishing, flying.
  naut: 'RECREATION',
  nav: 'RECREATION',
  navigation: 'RECREATION',
  falconry: 'RECREATION',
  hunting: 'RECREATION',
  fishing: 'RECREATION',
  angling: 'RECREATION',
  man: 'RECREATION',
  far: 'RECREATION',
  saddlery: 'RECREATION',
  aeronautics: 'RECREATION',
  aviation: 'RECREATION',
  firearms: 'RECREATION',
  automobiles: 'RECREATION',
  pyrotechny: 'RECREATION',
  numis: 'RECREATION',
  numismatics: 'RECREATION',
  // HOME: cooking, gardening, sewing.
  cookery: 'HOME',
  cooking: 'HOME',
  hort: 'HOME',
  gardening: 'HOME',
  sewing: 'HOME',
  needlework: 'HOME',
  dressmaking: 'HOME',
  // SHOPPING: goods people buy to wear.
  jewelry: 'SHOPPING',
  costume: 'SHOPPING',
  'hat making': 'SHOPPING',
  shoemaking: 'SHOPPING',
  // REFERENCE: language, geography, education.
  gram: 'REFERENCE',
  grammar: 'REFERENCE',
  phon: 'REFERENCE',
  phonetics: 'REFERENCE',
  linguistics: 'REFERENCE',
  philol: 'REFERENCE',
  geography: 'REFERENCE',
  geog: 'REFERENCE',
  education: 'REFERENCE',
  bibliog: 'REFERENCE',
  'eng. universities': 'REFERENCE',
  'eng. univ': 'REFERENCE',
  'metric system': 'REFERENCE',
  chron: 'REFERENCE',
  horology: 'REFERENCE',
  horol: 'REFERENCE',
};

/** Labels that are families of the ones above: "(Eng. Law)", "(Gr. Myth.)", "(Org. Chem.)". */
function labelCategory(raw) {
  const key = raw.toLowerCase().replace(/\.$/, '').trim();
  if (LABELS[key]) return LABELS[key];
  if (/\blaw\b/.test(key)) return 'SOCIETY';
  if (/\bmyth/.test(key) || /\bhist\b/.test(key) || /\bantiq\b/.test(key)) return 'SOCIETY';
  if (/\bchem\b/.test(key)) return 'SCIENCE';
  if (/manuf|making|engin\b|works?\b|working/.test(key)) return 'BUSINESS';
  return undefined;
}

/** The bracketed source note that closes each GCIDE paragraph: [1913 Webster], [PJC], [WordNet 1.5]. */
const SOURCE_NOTE = /^\s*\[[^\]]{2,40}\]\s*$/;
const LABEL = /\(([A-Z][A-Za-z]+\.?(?: [A-Za-z][a-z]+\.?)?)\)/;

function cleanSense(text) {
  return squash(
    text
      .replace(/\\[^\\\n]*\\/g, ' ') // pronunciation \Bal"ance\
      .replace(/\[[^\]]*\]/g, ' ') // etymology and source notes
      .replace(LABEL, ' ')
      .replace(/--[A-Z][\w.]*(?: [A-Z][\w.]*)*/g, ' ') // citations: --Shak., --Sir W. Scott
      .replace(/^\s*\d+\.\s/, ' ')
      .replace(/\b(n|v\. t|v\. i|a|adv|pl|Syn)\.,?\s/g, ' ')
      .replace(/[{}]/g, ''),
  ).replace(/^[\s,;:.]+/, '');
}

export const gcide = {
  id: 'dict-gcide',
  install: { apt: ['dict-gcide'] },
  isAvailable: () => allExist([`${DIR}/gcide.index`, `${DIR}/gcide.dict.dz`]),
  /** @returns {{ label: string, text: string, sub: string }[]} */
  documents() {
    /** @type {Map<string, string[]>} "CATEGORY|label" -> senses */
    const bySubject = new Map();
    for (const { body } of readDictd(DIR, 'gcide')) {
      const lines = body.split('\n');
      const headword = (lines[0] ?? '').split('\\')[0].trim();
      let para = [];
      const flush = () => {
        const text = para.join('\n');
        para = [];
        const m = LABEL.exec(text);
        if (!m || m.index > 160) return;
        const category = labelCategory(m[1]);
        if (!category) return;
        const sense = cleanSense(text.replace(headword, ' '));
        if (sense.split(' ').length < 4) return;
        const key = `${category}|${m[1].replace(/\.$/, '')}`;
        if (!bySubject.has(key)) bySubject.set(key, []);
        bySubject.get(key).push(`${headword}: ${sense}`);
      };
      for (const line of lines) {
        if (SOURCE_NOTE.test(line)) flush();
        else para.push(line);
      }
      flush();
    }
    const docs = [];
    for (const [key, senses] of [...bySubject].sort((a, b) => a[0].localeCompare(b[0]))) {
      const [label, sub] = key.split('|');
      for (const text of groupEntries(senses)) docs.push({ label, text, sub });
    }
    return docs;
  },
};
