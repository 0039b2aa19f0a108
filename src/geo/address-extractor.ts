/**
 * Finds US street addresses, the *geographic entities* of SPEC §4.3 and §5 (seed 003 §4: the pages
 * that hold one measure geo coverage, geo focus, the unique-entity ratio and geo centrality), in a
 * page's visible text.
 *
 * The grammar, one address per match (Publication 28's order of parts; the words are in
 * data/street-types.ts):
 *
 *   number  [predirectional]  name words (1–4)  suffix  [postdirectional]  [unit]{0,2}
 *     ,|line break|"."  city (1–4 capitalised words)  ,|space  state  [ ,|space ZIP[-4] ]
 *
 * e.g. `51 Franklin Street, Fifth Floor, Boston, MA 02110-1301`, `5000 Forbes Avenue⏎Pittsburgh, PA
 * 15213-3890`, `171 Second Street, Suite 300, San Francisco, California 94105`. Precision matters more
 * than recall (a false address puts a page in the wrong city's share), so the grammar asks for every
 * part but the ZIP, and never guesses:
 * - The state is written (USPS code, or the state's name after a comma); a city alone is not enough,
 *   and a same-name city elsewhere is never taken for a target: `Portland, ME` has target −1.
 * - The street ends at a comma, a line break or a full stop; `123 Main St Springfield IL` is not
 *   split into street and city (which words are the city is a guess), so it is not an address.
 * - The number starts a token and is a plain house number: not part of `1,000`, `3.5`, `#12`, `555-1234`
 *   glued to what precedes, and not a year after `in`, `since`, `©` ...
 * - The suffix comes after the name, so `Route 66` or `Highway 101` are never streets.
 * Wrapped text is read across line breaks, with a comment marker at the start of the next line skipped
 * (`*`, `#`, `//`, `;`), so licence headers in source files are read too.
 *
 * One precompiled global regular expression scans the text once; each match is checked (number
 * boundary, year guard, a ZIP that is the next address's number) and resolved to a target by
 * `Gazetteer.targetIn`. Pure: no I/O, no clock, no state kept between calls.
 *
 * Departures: streets whose name has no suffix (`Broadway`, `Avenue of the Americas`) and PO boxes are
 * not addresses here, as SPEC §4.3 asks for a street-type word.
 */
import { type Gazetteer, normalName } from './gazetteer.js';
import { BARE_UNIT_DESIGNATORS, DIRECTIONALS, ORDINAL_WORDS, STREET_TYPES, UNIT_DESIGNATORS } from './data/street-types.js';
import { US_STATES } from './data/us-cities.js';

/** A US street address found in a text. */
export interface GeoAddress {
  /** House number as written (`51`, `100-102`, `123A`). */
  readonly number: string;
  /**
   * Street name with its suffix and any directionals, as written, wrapped lines joined by one space and
   * without a closing full stop (`Oak Street`, `W 72nd St`, `Franklin St`).
   */
  readonly street: string;
  readonly city: string;
  /** 2-letter USPS code. */
  readonly state: string;
  /** Five-digit ZIP, or '' when none is written. */
  readonly zip: string;
  /** Index of the gazetteer target (city, state), or −1 when the city is not a target. */
  readonly target: number;
  /** Offset of the number in the text. */
  readonly start: number;
  /** Offset just past the state or ZIP (and ZIP+4). */
  readonly end: number;
}

/** The parts of an address that make it one entity, whatever wrote it (a {@link GeoAddress} or a truth row). */
export interface AddressParts {
  readonly number: string | number;
  readonly street: string;
  readonly city: string;
  readonly state: string;
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Title and upper case of each word, longest first so that no spelling hides a longer one. */
const spellings = (words: Iterable<string>): string =>
  [...new Set([...words].flatMap((w) => [w, w.toUpperCase()]))]
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map(esc)
    .join('|');

/** A line break, with the next line's indent and comment marker: wrapped text reads on. */
const NL = String.raw`[ \t]*\r?\n[ \t]*(?:(?:\*|#+|\/\/|;+)[ \t]+)?`;
/** Space between the words of one part. */
const S = `(?:${NL}|[ \\t]+)`;
/** Between parts: a comma (then maybe a line break), or a line break. */
const COMMA_OR_NL = `(?:[ \\t]*,[ \\t]*(?:${NL})?|${NL})`;
const NOT_WORD = String.raw`(?![\p{L}\p{N}'’])`;

const SUFFIXES = spellings(STREET_TYPES.flatMap((t) => [t.name, t.abbrev, ...t.variants]));
const DIRS = spellings(Object.keys(DIRECTIONALS));
const ORDINAL = String.raw`(?:[1-9]\d{0,2}(?:st|nd|rd|th|ST|ND|RD|TH))`;
const NAME_WORD = String.raw`(?:[A-Z][\p{L}'’.\-]*|${ORDINAL})`;
const UNIT = [
  String.raw`(?:${spellings(UNIT_DESIGNATORS)})\.?[ \t]*#?[ \t]*[A-Z0-9][A-Za-z0-9\-]{0,5}`,
  String.raw`#[ \t]*[A-Za-z0-9][A-Za-z0-9\-]{0,5}`,
  String.raw`(?:${spellings(Object.keys(ORDINAL_WORDS))}|${ORDINAL})[ \t]+(?:Floor|FLOOR|Fl\.?|FL)`,
  `(?:${spellings(BARE_UNIT_DESIGNATORS)})`,
]
  .map((u) => `(?:${u})${NOT_WORD}`)
  .join('|');
const UNIT_SEP = `(?:[ \\t]*,[ \\t]*(?:${NL})?|[ \\t]+[-–][ \\t]+|${NL}|[ \\t]+)`;
const CITY_WORD = String.raw`[A-Z][\p{L}'’]*\.?`;
const STATE_CODES = spellings(Object.keys(US_STATES));
const STATE_NAMES = spellings(Object.values(US_STATES));

/**
 * Groups: 1 number, 2 street, 3 city, 4 state code, 5 state name, 6 ZIP, 7 ZIP+4. The number's
 * boundary is checked in code (a lookbehind first would slow the scan for digits).
 */
const ADDRESS = new RegExp(
  String.raw`([1-9]\d{0,5}(?:-\d{1,3})?[A-Z]?)${S}` +
    String.raw`((?:(?:${DIRS})\.?${S})?(?:${NAME_WORD}${S}){1,4}(?:${SUFFIXES})\.?${NOT_WORD}(?:[ \t]+(?:${DIRS})\.?${NOT_WORD})?)` +
    // A unit ends the street line for sure, so a space may follow it; otherwise a comma, line break or full stop.
    `(?:(?:${UNIT_SEP}(?:${UNIT})){1,2}(?:${COMMA_OR_NL}|[ \\t]+)|${COMMA_OR_NL}|(?<=\\.)[ \\t]+)` +
    `(${CITY_WORD}(?:(?:[ \\t]+|-)${CITY_WORD}){0,3})` +
    String.raw`(?:(?:[ \t]*,[ \t]*(?:${NL})?|${NL}|[ \t]+)(${STATE_CODES}|D\.C\.)|[ \t]*,[ \t]*(${STATE_NAMES}))${NOT_WORD}` +
    String.raw`(?:(?:[ \t]*,[ \t]*(?:${NL})?|${NL}|[ \t]+)(\d{5})(?:-(\d{4}))?(?!\d))?`,
  'gu',
);
/** The same, anchored: does an address start right here? */
const ADDRESS_HERE = new RegExp(ADDRESS.source, 'uy');

/** Characters that, right before a number, make it part of something else (`1,000`, `3.5`, `#12`, `x12`). */
const GLUED_BEFORE = /[\p{L}\p{N}_,.$#/\\\-–@+]/u;
/** Words after which a four-digit number is a year (`in 2019 ...`). */
const YEAR_WORDS = new Set(['in', 'since', 'during', 'until', 'till', 'circa', 'ca', 'year', 'copyright', '©', '(c)', 'c']);
const WRAP = new RegExp(`${NL}|[ \\t]{2,}`, 'g');

/** The street as written, wrapped lines joined and a closing full stop dropped. */
function cleanStreet(raw: string): string {
  const s = raw.includes('\n') || raw.includes('\t') || raw.includes('  ') ? raw.replace(WRAP, ' ') : raw;
  return s.endsWith('.') ? s.slice(0, -1) : s;
}

/** Whether the number at `start` is a year by the word before it (`in 2019`, `© 2024`). */
function isYear(text: string, start: number, number: string): boolean {
  if (number.length !== 4 || number < '1600' || number > '2099') return false;
  let i = start - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  const end = i + 1;
  while (i >= 0 && !/\s/.test(text[i] as string)) i--;
  return YEAR_WORDS.has(text.slice(i + 1, end).toLowerCase());
}

/**
 * The US street addresses in `text`, in order, not overlapping; see the file comment for what counts.
 * `target` resolves (city, state) in `gazetteer`; every address is returned, targets or not.
 */
export function extractAddresses(text: string, gazetteer: Gazetteer): GeoAddress[] {
  const out: GeoAddress[] = [];
  const re = ADDRESS;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index;
    const number = m[1] as string;
    if (start > 0 && GLUED_BEFORE.test(text[start - 1] as string)) {
      // Part of a longer token: look again from the next character, not past the whole match.
      re.lastIndex = start + 1;
      continue;
    }
    if (isYear(text, start, number)) {
      re.lastIndex = start + number.length;
      continue;
    }
    const code = m[4];
    const state = code !== undefined ? (code === 'D.C.' ? 'DC' : code) : gazetteer.stateCode(m[5] as string);
    if (state === null) continue;
    const city = m[3] as string;
    const raw = m[2] as string;
    let zip = m[6] ?? '';
    let end = start + m[0].length;
    if (zip !== '') {
      // A five-digit house number may start the next address: `..., FL⏎12345 Oak St, ...`.
      const zipAt = m.index + m[0].lastIndexOf(zip);
      ADDRESS_HERE.lastIndex = zipAt;
      if (ADDRESS_HERE.test(text)) {
        zip = '';
        end = zipAt;
        while (end > start && /[\s,]/.test(text[end - 1] as string)) end--;
        re.lastIndex = zipAt;
      }
    }
    out.push({
      number,
      street: cleanStreet(raw),
      city,
      state,
      zip,
      target: gazetteer.targetIn(city, state),
      start,
      end,
    });
  }
  return out;
}

const SUFFIX_ABBREV = new Map<string, string>();
for (const t of STREET_TYPES)
  for (const w of [t.name, t.abbrev, ...t.variants])
    if (!SUFFIX_ABBREV.has(w.toUpperCase())) SUFFIX_ABBREV.set(w.toUpperCase(), t.abbrev.toUpperCase());
const DIRECTIONAL_ABBREV = new Map(Object.entries(DIRECTIONALS).map(([w, a]) => [w.toUpperCase(), a]));
const ORDINAL_ABBREV = new Map(Object.entries(ORDINAL_WORDS).map(([w, a]) => [w.toUpperCase(), a]));

/**
 * The street in USPS standard form: upper case, no dots, the suffix and directionals abbreviated,
 * spelled ordinals as numbers (`Fifth Avenue` and `5th Ave.` are both `5TH AVE`).
 */
export function standardStreet(street: string): string {
  const words = street
    .toUpperCase()
    .replace(/\./g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
  // The suffix is the last word, or the one before a postdirectional.
  let suffixAt = words.length - 1;
  if (suffixAt > 0 && DIRECTIONAL_ABBREV.has(words[suffixAt] as string) && SUFFIX_ABBREV.has(words[suffixAt - 1] as string)) suffixAt--;
  return words
    .map((w, i) => {
      if (i === suffixAt) return SUFFIX_ABBREV.get(w) ?? w;
      // A directional is the first word or after the suffix, unless it is the name itself (`North Street`).
      if ((i === 0 || i > suffixAt) && words.length > 2) return DIRECTIONAL_ABBREV.get(w) ?? ORDINAL_ABBREV.get(w) ?? w;
      return ORDINAL_ABBREV.get(w) ?? w;
    })
    .join(' ');
}

/**
 * A canonical key for counting unique entities: number, street in USPS standard form, city in the
 * gazetteer's normal form and state, so `51 Franklin Street, Boston, MA` and `51 Franklin St., BOSTON,
 * MA 02110` are one entity. The ZIP and unit are left out (often omitted; a unit is within the entity).
 */
export function addressKey(a: AddressParts): string {
  return `${String(a.number).toUpperCase()}|${standardStreet(a.street)}|${normalName(a.city)}|${a.state.toUpperCase()}`;
}
