/**
 * Where a text or a URL names a place of the gazetteer (SPEC §4.3): the mentions the geo
 * strategies count.
 *
 * **Text.** Words are runs of letters and digits; a name (city or alias, up to four words) matches
 * the longest run of words equal to it in normal form (`gazetteer.ts` `normalName`: "St. Louis" =
 * "Saint Louis", "Winston-Salem" = "Winston Salem"), written with capitals as names are ("aurora
 * borealis" and "new york-style" in lower case are not places). A state written right after the
 * name (`Denver, CO`, `Denver, Colorado`, `Denver CO`) makes the mention a (city, state) pair.
 * Other state mentions are counted apart: state names anywhere, two-letter codes only after a comma
 * (an upper-case `OR` or `IN` is a word far more often than a state).
 *
 * **URL.** The host's labels and the path's segments are split into lower-case tokens at every
 * character that is not a letter or digit; a name matches as consecutive tokens (`new-york`) or as
 * one token equal to its words run together (`newyork`, `sanantonio`). Names and aliases shorter
 * than four letters are not looked for in URLs: `la`, `sf` or `dc` in a path are Spanish articles
 * and abbreviations far more often than cities.
 *
 * Pure and allocation-light: it runs on the visible text of every page a geo crawl fetches.
 */
import { normalName, type Gazetteer } from './gazetteer.js';

/** A city name found in text. */
export interface TextCityMention {
  /** The name in normal form (a key of {@link Gazetteer.placesNamed}). */
  readonly name: string;
  /** USPS code of the state written right after it, or null. */
  readonly state: string | null;
  /** Word positions: the mention covers words [start, end). */
  readonly start: number;
  readonly end: number;
}

/** What a text says about places. */
export interface TextMentions {
  readonly cities: readonly TextCityMention[];
  /** State mentions outside city mentions: USPS code → count. */
  readonly states: ReadonlyMap<string, number>;
  /** Words in the text. */
  readonly words: number;
}

/** A city name found in a URL, in the order met (host first, then path). */
export interface UrlCityMention {
  readonly name: string;
}

const MAX_NAME_WORDS = 4;
const MIN_URL_NAME_LETTERS = 4;
/** Words of a name that may stay lower case ("District of Columbia"). */
const SMALL_WORDS = new Set(['of', 'de', 'la', 'del', 'the']);

interface Word {
  readonly lower: string;
  readonly isCapital: boolean;
  readonly isUpper: boolean;
  /** Whether a comma separates it from the previous word. */
  readonly isAfterComma: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a text with what matching needs of each. */
function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    const at = m.index;
    const gap = text.slice(last, at);
    last = at + w.length;
    const first = w[0] as string;
    const lower = w.toLowerCase();
    out.push({
      lower,
      isCapital: first !== first.toLowerCase() || (first >= '0' && first <= '9'),
      isUpper: w === w.toUpperCase() && w !== lower,
      isAfterComma: gap.includes(','),
    });
  }
  return out;
}

/** Finds city and state mentions for a gazetteer; see the file comment. */
export class CityMatcher {
  /** Normal-form names of cities and aliases, as word sequences joined by a space. */
  readonly #names: ReadonlySet<string>;
  /** Run-together names (no spaces) of at least four letters → normal name, for URLs. */
  readonly #slugs: ReadonlyMap<string, string>;
  /** Normal-form state names → USPS code, and lower-case codes → code. */
  readonly #stateNames = new Map<string, string>();
  readonly #codes = new Map<string, string>();
  readonly #maxStateWords: number;

  constructor(readonly gazetteer: Gazetteer) {
    const names = new Set<string>();
    const slugs = new Map<string, string>();
    for (const n of gazetteer.names) {
      names.add(n);
      const slug = n.replace(/ /g, '');
      if (slug.length >= MIN_URL_NAME_LETTERS && !slugs.has(slug)) slugs.set(slug, n);
    }
    this.#names = names;
    this.#slugs = slugs;
    let maxStateWords = 1;
    for (const [code, name] of Object.entries(gazetteer.states)) {
      const n = normalName(name);
      this.#stateNames.set(n, code);
      this.#codes.set(code.toLowerCase(), code);
      maxStateWords = Math.max(maxStateWords, n.split(' ').length);
    }
    this.#maxStateWords = maxStateWords;
  }

  /** City and state mentions in `text`. */
  inText(text: string): TextMentions {
    const words = wordsOf(text);
    const cities: TextCityMention[] = [];
    const states = new Map<string, number>();
    const n = words.length;
    let i = 0;
    while (i < n) {
      const city = this.#nameAt(words, i);
      if (city !== null) {
        const state = this.#stateAt(words, city.end, true);
        cities.push({ name: city.name, state: state?.code ?? null, start: i, end: state?.end ?? city.end });
        i = state?.end ?? city.end;
        continue;
      }
      const state = this.#stateAt(words, i, false);
      if (state !== null) {
        states.set(state.code, (states.get(state.code) ?? 0) + 1);
        i = state.end;
        continue;
      }
      i++;
    }
    return { cities, states, words: n };
  }

  /** City names in a URL's host and path, in order (host first); see the file comment. */
  inUrl(url: string): UrlCityMention[] {
    const schemeEnd = url.indexOf('://');
    const rest = schemeEnd < 0 ? url : url.slice(schemeEnd + 3);
    const slash = rest.indexOf('/');
    const host = (slash < 0 ? rest : rest.slice(0, slash)).replace(/:\d+$/, '');
    const labels = host.split('.');
    // The top-level label names a country or a kind of site, never a city.
    const hostTokens = labels.slice(0, Math.max(1, labels.length - 1)).flatMap((l) => l.split(/[^a-z0-9]+/));
    let path = slash < 0 ? '' : rest.slice(slash);
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape: the path is matched as written.
    }
    const pathTokens = path.toLowerCase().split(/[^\p{L}\p{N}]+/u);
    const out: UrlCityMention[] = [];
    for (const tokens of [hostTokens, pathTokens])
      this.#urlNames(
        tokens.filter((t) => t !== ''),
        out,
      );
    return out;
  }

  #urlNames(tokens: readonly string[], out: UrlCityMention[]): void {
    let i = 0;
    while (i < tokens.length) {
      let matched = 0;
      for (let len = Math.min(MAX_NAME_WORDS, tokens.length - i); len >= 1 && matched === 0; len--) {
        const joined = len === 1 ? (tokens[i] as string) : tokens.slice(i, i + len).join(' ');
        const key = normalName(joined);
        const name = len === 1 ? (this.#slugs.get(key.replace(/ /g, '')) ?? null) : this.#names.has(key) ? key : null;
        if (name !== null && name.replace(/ /g, '').length >= MIN_URL_NAME_LETTERS) {
          out.push({ name });
          matched = len;
        }
      }
      i += matched === 0 ? 1 : matched;
    }
  }

  /** The longest city name starting at word i, written as a name, or null. */
  #nameAt(words: readonly Word[], i: number): { name: string; end: number } | null {
    const first = words[i] as Word;
    if (!first.isCapital) return null;
    let key = '';
    let found: { name: string; end: number } | null = null;
    for (let len = 1; len <= MAX_NAME_WORDS && i + len <= words.length; len++) {
      const w = words[i + len - 1] as Word;
      if (len > 1 && w.isAfterComma) break;
      if (!w.isCapital && !SMALL_WORDS.has(w.lower)) break;
      key = len === 1 ? w.lower : `${key} ${w.lower}`;
      const name = normalName(key);
      // A two-letter alias (LA, DC) counts only in capitals, as such aliases are written.
      if (this.#names.has(name) && (name.length > 2 || w.isUpper)) found = { name, end: i + len };
    }
    return found;
  }

  /**
   * A state mention starting at word i: a state name (capitalised), or a two-letter code in capitals
   * when `isAfterCity` (right after a city name) or after a comma. Null when none.
   */
  #stateAt(words: readonly Word[], i: number, isAfterCity: boolean): { code: string; end: number } | null {
    const first = words[i];
    if (first === undefined || !first.isCapital) return null;
    if (first.lower.length === 2 && first.isUpper && (isAfterCity || first.isAfterComma)) {
      const code = this.#codes.get(first.lower);
      if (code !== undefined) return { code, end: i + 1 };
    }
    let key = '';
    let found: { code: string; end: number } | null = null;
    for (let len = 1; len <= this.#maxStateWords && i + len <= words.length; len++) {
      const w = words[i + len - 1] as Word;
      if (len > 1 && (w.isAfterComma || (!w.isCapital && !SMALL_WORDS.has(w.lower)))) break;
      key = len === 1 ? w.lower : `${key} ${w.lower}`;
      const code = this.#stateNames.get(key);
      if (code !== undefined) found = { code, end: i + len };
    }
    return found;
  }
}
