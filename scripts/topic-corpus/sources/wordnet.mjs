/**
 * WordNet 3.0 glosses, from Debian's wordnet-base. A synset is topical in two ways: it may carry a
 * topic-domain pointer (";c": "shortstop" -> baseball, "tort" -> law), or it may sit under a
 * hypernym that names a topic ("lasagna" is a kind of dish, "cardigan" a kind of garment). The domain
 * wins where both apply. Each gloss becomes "lemma, lemma: gloss"; glosses of one domain or subtree
 * are grouped, in file order, into documents of about 150 words.
 */
import { readFileSync } from 'node:fs';
import { groupEntries, allExist } from '../lib.mjs';

const DIR = '/usr/share/wordnet';
const POS = ['noun', 'verb', 'adj', 'adv'];

/** Topic-domain synset (its first lemma) -> category. */
const DOMAINS = {
  SOCIETY: [
    'law',
    'military',
    'Greek_mythology',
    'terrorism',
    'Roman_Catholic',
    'Old_Testament',
    'Judaism',
    'religion',
    'Norse_mythology',
    'psychoanalysis',
    'antiquity',
    'Roman_mythology',
    'crime',
    'Islam',
    'Hinduism',
    'Christianity',
    'heraldry',
    'New_Testament',
    'politics',
    'government',
    'Middle_Ages',
    'theology',
    'church_service',
    'classical_mythology',
    'anthropology',
    'folklore',
    'mythology',
    'philosophy',
    'logic',
    'criminal_law',
    'Buddhism',
    'Arthurian_legend',
    'election',
    'legend',
    'Sikhism',
    'Anglican_Church',
    'Bible',
    'legislation',
    'history',
    'Christian_theology',
    'war',
    'legislature',
    'navy',
    'Roman_law',
    'ethics',
    'civil_law',
    'Orthodox_Church',
    'shariah',
    'psychology',
    'astrology',
  ],
  SCIENCE: [
    'chemistry',
    'biology',
    'physics',
    'botany',
    'mathematics',
    'statistics',
    'genetics',
    'geology',
    'astronomy',
    'zoology',
    'physiology',
    'meteorology',
    'geometry',
    'biochemistry',
    'arithmetic',
    'cosmology',
    'optics',
    'archeology',
    'ecology',
    'physical_chemistry',
    'microbiology',
    'particle_physics',
    'embryology',
    'crystallography',
    'thermodynamics',
    'psychophysics',
    'mineralogy',
    'acoustics',
    'neurophysiology',
    'science',
    'histology',
    'cytology',
    'nuclear_physics',
    'electricity',
    'game_theory',
  ],
  HEALTH: [
    'medicine',
    'anatomy',
    'pathology',
    'psychiatry',
    'surgery',
    'dentistry',
    'obstetrics',
    'immunology',
    'ophthalmology',
    'pregnancy',
    'pharmacology',
    'neurology',
    'otology',
    'radiology',
  ],
  COMPUTERS: ['computer_science', 'computer', 'electronics', 'programming', 'computer_graphics', 'telecommunication', 'simulation'],
  ARTS: [
    'music',
    'art',
    'architecture',
    'photography',
    'performing_arts',
    'poetry',
    'dramaturgy',
    'literature',
    'writing',
    'prosody',
    'dancing',
    'fine_arts',
    'rhetoric',
    'drama',
    'ballet',
    'movie',
    'singing',
    'dance',
    'film',
    'recording',
    'ceramics',
    'handicraft',
    'science_fiction',
  ],
  BUSINESS: [
    'commerce',
    'commercial_enterprise',
    'printing',
    'economics',
    'farming',
    'animal_husbandry',
    'tax',
    'stock_exchange',
    'mining',
    'accounting',
    'contract',
    'corporation',
    'finance',
    'auction',
    'metallurgy',
    'construction',
    'industry',
    'investing',
    'carpentry',
    'cabinetwork',
    'masonry',
    'factory',
    'engineering',
    'business',
  ],
  SPORTS: [
    'baseball',
    'sport',
    'golf',
    'football',
    'American_football',
    'basketball',
    'boxing',
    'tennis',
    'cricket',
    'soccer',
    'ice_hockey',
    'badminton',
    'fencing',
    'rugby',
    'softball',
    'squash',
    'water_sport',
    'auto_racing',
    'field_hockey',
    'gymnastics',
    'horse_racing',
    'court_game',
    'bowling',
    'wrestling',
    'croquet',
    'polo',
    'quoits',
  ],
  GAMES: ['card_game', 'chess', 'game', 'bridge', 'poker', 'checkers', 'billiards'],
  RECREATION: [
    'seafaring',
    'air_travel',
    'ship',
    'riding',
    'navigation',
    'airplane',
    'aircraft',
    'driving',
    'car',
    'boat',
    'aeronautics',
    'hunt',
    'motor_vehicle',
    'falconry',
    'mountain_climbing',
    'sailing_vessel',
    'game_bird',
  ],
  HOME: ['cooking', 'furniture', 'gardening'],
  NEWS: ['television', 'broadcast_medium', 'broadcasting', 'telephone'],
  REFERENCE: ['linguistics', 'grammar', 'language', 'phonetics', 'education'],
  SHOPPING: ['fashion'],
};

/** Hypernym subtree roots, "lemma#sense" in index.noun order -> category. */
const ROOTS = {
  HOME: [
    'dish#2',
    'food#2',
    'beverage#1',
    'kitchen_utensil#1',
    'furniture#1',
    'home_appliance#1',
    'houseplant#1',
    'pet#1',
    'domestic_animal#1',
    'cooking_utensil#1',
    'tableware#1',
    'bedclothes#1',
    'vegetable#1',
    'herb#2',
    'baked_goods#1',
    'dessert#1',
  ],
  SHOPPING: [
    'buyer#1',
    'seller#1',
    'sale#2',
    'sale#3',
    'purchase#1',
    'price#2',
    'mercantile_establishment#1',
    'shopping#1',
    'textile#1',
    'appliance#2',
    'toiletry#1',
    'handbag#1',
    'garment#1',
    'clothing#1',
    'jewelry#1',
    'cosmetic#1',
    'shop#1',
    'merchandise#1',
    'footwear#2',
    'consumer_goods#1',
    'headdress#1',
    'perfume#1',
    'fabric#1',
    'accessory#1',
    'watch#1',
  ],
  HEALTH: [
    'disease#1',
    'symptom#1',
    'drug#1',
    'medical_procedure#1',
    'illness#1',
    'injury#1',
    'health_professional#1',
    'medicine#2',
    'medical_care#1',
    'disorder#1',
    'body_part#1',
    'nutrient#1',
    'vitamin#1',
    'exercise#1',
  ],
  ADULT: [
    'sexual_activity#1',
    'erotica#1',
    'prostitute#1',
    'sexual_desire#1',
    'sex_object#1',
    'sexual_love#1',
    'pornography#1',
    'sexual_arousal#1',
    'sex#2',
  ],
  KIDS: [
    'child#1',
    'toy#1',
    'nursery_rhyme#1',
    "child's_game#1",
    'schoolchild#1',
    'plaything#1',
    'fairytale#1',
    'school#1',
    'pupil#1',
    'doll#1',
  ],
  NEWS: [
    'news#1',
    'news#2',
    'news#3',
    'journalist#1',
    'newspaper#1',
    'broadcast#1',
    'press#2',
    'periodical#1',
    'reporter#1',
    'journalism#1',
    'editorial#1',
    'magazine#1',
    'announcer#1',
    'broadcaster#1',
  ],
  REFERENCE: [
    'reference_book#1',
    'library#3',
    'educational_institution#1',
    'academic_degree#1',
    'map#1',
    'teacher#1',
    'scholar#1',
    'university#1',
    'course#1',
    'examination#2',
    'museum#1',
    'writing_system#1',
  ],
  GAMES: ['board_game#1', 'card_game#1', 'video_game#1', 'game#1', 'game#3', 'playing_card#1', 'chessman#1', 'gambling#1', 'puzzle#2'],
  SPORTS: [
    'sport#1',
    'athlete#1',
    'sports_equipment#1',
    'athletic_game#1',
    'contact_sport#1',
    'team_sport#1',
    'sports_implement#1',
    'ball#1',
  ],
  RECREATION: [
    'hobby#1',
    'travel#1',
    'camping#1',
    'fishing#1',
    'hunting#1',
    'boat#1',
    'recreation#1',
    'pastime#1',
    'vacation#1',
    'outdoor_sport#1',
    'car#1',
    'aircraft#1',
    'firearm#1',
    'campsite#1',
    'hotel#1',
    'resort#1',
  ],
  COMPUTERS: [
    'computer#1',
    'software#1',
    'programming_language#1',
    'computer_network#1',
    'data_processing#1',
    'computer_science#1',
    'computer_scientist#1',
    'programmer#1',
  ],
  ARTS: [
    'musical_instrument#1',
    'painting#1',
    'art#1',
    'music#1',
    'literary_composition#1',
    'dance#1',
    'film#1',
    'theater#2',
    'musician#1',
    'artist#1',
    'writer#1',
    'musical_composition#1',
    'actor#1',
    'play#1',
    'poem#1',
    'sculpture#2',
    'musical_genre#1',
  ],
  BUSINESS: [
    'business#1',
    'business#2',
    'money#1',
    'occupation#1',
    'corporation#1',
    'businessman#1',
    'commerce#1',
    'finance#1',
    'bank#2',
    'employee#1',
    'industry#1',
    'management#1',
    'tax#1',
    'stock#1',
    'market#1',
  ],
  SOCIETY: [
    'religion#1',
    'government#1',
    'politics#1',
    'crime#1',
    'law#1',
    'religious_person#1',
    'politician#2',
    'social_group#1',
    'military_unit#1',
    'soldier#1',
    'war#1',
    'legal_document#1',
    'ethnic_group#1',
    'social_control#1',
    'criminal#1',
  ],
};

function parseData(pos) {
  /** @type {Map<string, { lemmas: string[], gloss: string, domains: string[], hypernyms: string[] }>} */
  const out = new Map();
  for (const line of readFileSync(`${DIR}/data.${pos}`, 'latin1').split('\n')) {
    if (!line || line.startsWith('  ')) continue;
    const bar = line.indexOf(' | ');
    const t = line.slice(0, bar).split(' ');
    const gloss = line.slice(bar + 3).trim();
    const wordCount = parseInt(t[3], 16);
    const lemmas = [];
    let i = 4;
    for (let k = 0; k < wordCount; k++, i += 2) lemmas.push(t[i].replace(/\(.*\)$/, ''));
    const ptrCount = Number(t[i++]);
    const domains = [];
    const hypernyms = [];
    for (let k = 0; k < ptrCount; k++, i += 4) {
      const [sym, off, p] = [t[i], t[i + 1], t[i + 2]];
      const key = `${p === 's' ? 'a' : p}${off}`;
      if (sym === ';c') domains.push(key);
      else if (sym === '@' || sym === '@i') hypernyms.push(key);
    }
    out.set(`${t[2] === 's' ? 'a' : t[2]}${t[0]}`, { lemmas, gloss, domains, hypernyms });
  }
  return out;
}

function nounSenses() {
  /** @type {Map<string, string[]>} */
  const out = new Map();
  for (const line of readFileSync(`${DIR}/index.noun`, 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const t = line.trim().split(' ');
    out.set(
      t[0],
      t.slice(6 + Number(t[3])).map((o) => `n${o}`),
    );
  }
  return out;
}

export const wordnet = {
  id: 'wordnet-base',
  install: { apt: ['wordnet-base'] },
  isAvailable: () => allExist(POS.map((p) => `${DIR}/data.${p}`).concat(`${DIR}/index.noun`)),
  documents() {
    const synsets = new Map();
    for (const pos of POS) for (const [k, v] of parseData(pos)) synsets.set(k, v);
    const domainCategory = new Map();
    for (const [category, lemmas] of Object.entries(DOMAINS)) for (const l of lemmas) domainCategory.set(l, category);
    const senses = nounSenses();
    /** @type {Map<string, { category: string, root: string }>} */
    const rootOf = new Map();
    for (const [category, roots] of Object.entries(ROOTS)) {
      for (const spec of roots) {
        const [lemma, n] = spec.split('#');
        const key = senses.get(lemma)?.[Number(n) - 1];
        if (!key) throw new Error(`wordnet: no noun sense ${spec}`);
        rootOf.set(key, { category, root: spec });
      }
    }
    /** Nearest topic root above a noun synset, breadth first through hypernyms. */
    const nearestRoot = (key) => {
      let frontier = [key];
      const seen = new Set(frontier);
      for (let depth = 0; depth < 20 && frontier.length > 0; depth++) {
        for (const k of frontier) if (rootOf.has(k)) return rootOf.get(k);
        const next = [];
        for (const k of frontier) for (const h of synsets.get(k)?.hypernyms ?? []) if (!seen.has(h)) (seen.add(h), next.push(h));
        frontier = next;
      }
      return undefined;
    };
    /** @type {Map<string, string[]>} "CATEGORY|sub" -> entries */
    const groups = new Map();
    for (const [key, s] of synsets) {
      let category;
      let sub;
      for (const d of s.domains) {
        const lemma = synsets.get(d)?.lemmas[0];
        if (lemma && domainCategory.has(lemma)) {
          category = domainCategory.get(lemma);
          sub = `domain:${lemma}`;
          break;
        }
      }
      if (!category && key.startsWith('n')) {
        const r = nearestRoot(key);
        if (r) ({ category, root: sub } = r);
      }
      if (!category) continue;
      const gk = `${category}|${sub}`;
      if (!groups.has(gk)) groups.set(gk, []);
      const gloss = s.gloss.replace(/^\([^)]*\)\s*/, '');
      groups.get(gk).push(`${s.lemmas.map((l) => l.replace(/_/g, ' ')).join(', ')}: ${gloss}`);
    }
    const docs = [];
    for (const [gk, entries] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
      const [label, sub] = gk.split('|');
      for (const text of groupEntries(entries)) docs.push({ label, text, sub });
    }
    return docs;
  },
};
