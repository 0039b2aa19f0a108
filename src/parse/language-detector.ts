/**
 * eld's language detection (Nito-ELD, `eld` 2.x, with text cleanup on), re-implemented over the
 * compact copy of its `medium` table in `language-table.ts`, giving exactly eld's answers.
 *
 * eld's steps, for a text t (https://github.com/nitotm/efficient-language-detector-js,
 * `src/languageDetector.js` and `src/LanguageResult.js`):
 * 1. t is cut to its first 1,000 UTF-16 code units;
 * 2. cleanup: URLs, e-mail addresses, `*.com` domains and alphanumeric codes (ASCII letter and
 *    digit runs holding a digit) become a space;
 * 3. every run of non-letters (outside eld's BMP letter class) becomes a space, except the
 *    apostrophes (`'`, `` ` ``, `’`) that end it; then trim and lowercase;
 * 4. the text is encoded as UTF-8, each byte >= 0x80 written as the dictionary character standing
 *    for it, and split into words at spaces; encoding stops at the first space after 350 bytes, or
 *    after the character that passes 380;
 * 5. each word gives n-grams of four bytes with a stride of three (the first with a leading space),
 *    read from at most its first 70 bytes, and a last n-gram (its last four bytes up to its end,
 *    with a trailing space);
 * 6. each distinct n-gram adds score + 53 to each language the table lists for it; the language
 *    with the highest sum wins (the first on a tie), and '' when no n-gram is in the table;
 * 7. with N distinct n-grams and x = sum / N, a language's score is x / (x + 25); the detection is
 *    reliable when N >= 3, the winner's score is at least 0.75 times its `avgScore`, and (as eld
 *    writes it) the winner's score is not within 0.01 of the runner-up's language *index*, a slip
 *    for its score that can only fire when the first condition already fails.
 *
 * Where this code departs from eld's, in how, never in what: step 2 runs the e-mail and domain
 * regexes only when the text holds an `@` or `.com` (neither can match otherwise) and does the
 * alphanumeric codes in the same hand-written pass as step 3 (no regexes there); steps 3 to 6 run
 * as one stream that stops reading the text where encoding stops (~380 bytes, not 1,000
 * characters); step 3 lowercases character by character through a cached map, falling back to
 * eld's whole-string `toLowerCase()` when it meets one of the letters whose lowercase is not one
 * code unit of its own (`Σ`: `ς` at the end of a word; `İ`: two units); steps 4–6 build no
 * string: n-grams of up to six bytes are packed into two 32-bit words, collected in a reused hash
 * set and looked up in the table's hash. Scores are built only when read.
 */
import { MAX_NGRAM_CHARS, languageTable, packHigh, packLow, type LanguageTable } from './language-table.js';

/** A text's language, as eld's `detect()` would give it. */
export interface LanguageDetection {
  /** ISO 639-1 code of the best-scoring language; '' when no n-gram of the text is in the table. */
  readonly language: string;
  /** eld's `isReliable()` with its default threshold ratio (0.75). */
  readonly isReliable: boolean;
  /** eld's `getScores()`: score in (0, 1) by language code, best first; built on first read. */
  readonly scores: Readonly<Record<string, number>>;
}

/** Code units eld reads of a text. */
const MAX_TEXT_CHARS = 1000;
/** Encoding stops at the first space after this many bytes... */
const CUT_AFTER_BYTES = 350;
/** ... or right after the character that passes this many. */
const FORCE_CUT_AFTER_BYTES = 380;
/** N-grams are read from at most this many bytes of a word (its last n-gram runs to its end). */
const MAX_WORD_BYTES = 70;
/** eld subtracted this from every score of its table; it adds it back when summing. */
const BASE_SCORE = 53;
/** Scale of eld's 0–1 score x / (x + SCALE). */
const SCORE_SCALE = 25;
/** eld's default `isReliable()` threshold: this fraction of the language's average score. */
const RELIABLE_RATIO = 0.75;
/** Slots of the per-call n-gram set (at most ~320 n-grams fit in 384 bytes). */
const GRAM_SLOTS = 1024;
/** The lowercase-map value of a letter that must be lowercased in context. */
const IN_CONTEXT = 0xffff;
const SPACE = 0x20;

const URLS = /[hw](?:(?:ttps?:\/\/(?:www\.)?)|ww\.)[^\s]+/gi;
const ASCII_DIGIT = /[0-9]/;
const EMAILS = /[a-zA-Z0-9.!$%&’+_`-]+@[A-Za-z0-9.-]+\.[A-Za-z0-9-]{2,64}/g;

const isApostrophe = (c: number): boolean => c === 0x27 || c === 0x60 || c === 0x2019;
const isAsciiDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAsciiLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** A finished detection; keeps the sums to build eld's scores when they are read. */
class Detection implements LanguageDetection {
  #scores: Record<string, number> | undefined;

  constructor(
    readonly language: string,
    readonly isReliable: boolean,
    private readonly sums: readonly number[],
    private readonly ngramCount: number,
    private readonly codes: readonly string[],
  ) {}

  get scores(): Readonly<Record<string, number>> {
    if (this.#scores !== undefined) return this.#scores;
    // eld's orderAndScale and getScores: positive sums, scaled, stably sorted best first.
    const ordered: [number, number][] = [];
    const sums = this.sums;
    for (let i = 0; i < sums.length; i++) if ((sums[i] as number) > 0) ordered.push([i, scaledScore(sums[i] as number, this.ngramCount)]);
    ordered.sort((a, b) => b[1] - a[1]);
    const scores: Record<string, number> = {};
    for (const [i, score] of ordered) scores[this.codes[i] as string] = score;
    this.#scores = scores;
    return scores;
  }
}

/** eld's 0–1 score of a language's sum over `ngramCount` n-grams. */
function scaledScore(sum: number, ngramCount: number): number {
  const perNgram = sum / ngramCount;
  return perNgram / (perNgram + SCORE_SCALE);
}

/**
 * The detector's tables and scratch buffers. One per thread, shared by every caller: `detect` is
 * synchronous and keeps nothing from one call to the next but caches that only grow.
 */
class Detector {
  private readonly table: LanguageTable;
  /** 1 for each code unit in eld's letter class, else 0. */
  private readonly isLetter: Uint8Array;
  private readonly domains: RegExp;
  /** Step 3's result, before trimming and lowercasing, when a letter needs its context to lowercase. */
  private readonly units = new Uint16Array(MAX_TEXT_CHARS);
  private unitCount = 0;
  private isBuffering = false;
  /** Whether a unit other than a space was emitted (for the leading trim). */
  private hasStarted = false;
  private needsContext = false;
  /** Lowercase of each code unit once met, 0 before, IN_CONTEXT for the ones lowercased in context. */
  private readonly lower = new Uint16Array(0x10000);
  /** The dictionary character of each byte value. */
  private readonly byteChars: Uint8Array;
  /** The current word, as dictionary characters. */
  private readonly word = new Uint8Array(FORCE_CUT_AFTER_BYTES + 8);
  private wordLength = 0;
  private byteCount = 0;
  /** The per-call n-gram set: packed keys and the call that wrote each slot. */
  private readonly gramLow = new Uint32Array(GRAM_SLOTS);
  private readonly gramHigh = new Uint32Array(GRAM_SLOTS);
  private readonly gramCall = new Uint32Array(GRAM_SLOTS);
  /** N-grams longer than six bytes (from words over 71 bytes; never in the table). */
  private readonly longGrams = new Set<string>();
  private call = 0;
  private ngramCount = 0;
  private readonly gram = new Uint8Array(MAX_NGRAM_CHARS);
  private readonly sums: Int32Array;

  constructor(table: LanguageTable) {
    this.table = table;
    this.byteChars = table.byteChars;
    this.isLetter = codeUnitSet(table.letterClass);
    this.sums = new Int32Array(table.languages.length);
    // eld's matchDomains, built from the same letter class the same way.
    this.domains = new RegExp(`([A-Za-z0-9-]+\\.)+com(\\/\\S*|[^${table.letterClass}])`, 'g');
  }

  detect(input: string): LanguageDetection {
    let text = input.substring(0, MAX_TEXT_CHARS).replace(URLS, ' ');
    if (text.includes('@')) text = text.replace(EMAILS, ' ');
    if (text.includes('.com')) text = text.replace(this.domains, ' ');
    const hasCodes = ASCII_DIGIT.test(text);
    this.reset();
    this.isBuffering = false;
    this.separate(text, hasCodes);
    if (this.needsContext) {
      // A letter lowercased in context: eld's own steps on the whole string.
      this.reset();
      this.isBuffering = true;
      this.unitCount = 0;
      this.separate(text, hasCodes);
      this.encodeString(
        String.fromCharCode(...this.units.subarray(0, this.unitCount))
          .trim()
          .toLowerCase(),
      );
    } else if (this.wordLength > 0) {
      this.addWord();
    }
    return this.result();
  }

  /** Empties the word, the byte count, the n-gram set and the sums. */
  private reset(): void {
    this.call = (this.call + 1) >>> 0;
    if (this.call === 0) {
      this.gramCall.fill(0);
      this.call = 1;
    }
    this.longGrams.clear();
    this.ngramCount = 0;
    this.sums.fill(0);
    this.wordLength = 0;
    this.byteCount = 0;
    this.hasStarted = false;
    this.needsContext = false;
  }

  /**
   * Step 3, with step 2's alphanumeric codes when `hasCodes` (the text holds an ASCII digit): each
   * run of non-letters, codes included, becomes a space followed by the apostrophes that end it.
   * The resulting code units go one by one to {@link emit}, until it says stop.
   */
  private separate(text: string, hasCodes: boolean): void {
    const isLetter = this.isLetter;
    const length = text.length;
    let i = 0;
    while (i < length) {
      let c = text.charCodeAt(i);
      if (hasCodes && c < 0x80 && (isAsciiLetter(c) || isAsciiDigit(c))) {
        const end = asciiWordEnd(text, i);
        if (end > 0) {
          for (; i < end; i++) if (!this.emit(text.charCodeAt(i))) return;
          continue;
        }
      } else if (isLetter[c] === 1) {
        if (!this.emit(c)) return;
        i++;
        continue;
      }
      // A run of non-letters from i: up to its last character that is not an apostrophe, it becomes a space.
      const start = i;
      let spaceEnd = -1;
      while (i < length) {
        c = text.charCodeAt(i);
        if (hasCodes && c < 0x80 && (isAsciiLetter(c) || isAsciiDigit(c))) {
          const end = asciiWordEnd(text, i);
          if (end > 0) break;
          i = -end;
          spaceEnd = i;
        } else if (isLetter[c] === 1) {
          break;
        } else {
          i++;
          if (!isApostrophe(c)) spaceEnd = i;
        }
      }
      if (spaceEnd >= 0 && !this.emit(SPACE)) return;
      for (let k = spaceEnd >= 0 ? spaceEnd : start; k < i; k++) if (!this.emit(text.charCodeAt(k))) return;
    }
  }

  /**
   * One code unit of step 3's result: stored when buffering, else trimmed (leading spaces; the
   * trailing ones change no n-gram), lowercased and encoded. False to stop: encoding is done, or
   * the unit is a letter that needs its context to lowercase (only Σ's lowercase depends on its
   * neighbours, so the letters never reached cannot matter).
   */
  private emit(unit: number): boolean {
    if (this.isBuffering) {
      this.units[this.unitCount++] = unit;
      return true;
    }
    let c = unit;
    if (c === SPACE) {
      if (!this.hasStarted) return true;
    } else {
      this.hasStarted = true;
    }
    if (c < 0x80) {
      if (isAsciiLetter(c)) c |= 0x20;
    } else {
      c = this.lower[c] as number;
      if (c === 0) c = this.lower[unit] = lowercaseAlone(unit);
      if (c === IN_CONTEXT) {
        this.needsContext = true;
        return false;
      }
    }
    return this.encode(c);
  }

  /** Steps 4 to 6 on a trimmed, lowercased string: eld's strToUtf8Bytes loop, surrogates included. */
  private encodeString(s: string): void {
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xe000) {
        i++;
        c = 0x10000 + (((c & 0x3ff) << 10) | (s.charCodeAt(i) & 0x3ff));
        const b = this.byteChars;
        this.push(b[0xf0 | (c >> 18)] as number);
        this.push(b[0x80 | ((c >> 12) & 0x3f)] as number);
        this.push(b[0x80 | ((c >> 6) & 0x3f)] as number);
        this.push(b[0x80 | (c & 0x3f)] as number);
        this.byteCount += 4;
        if (this.byteCount > FORCE_CUT_AFTER_BYTES) break;
      } else if (!this.encode(c)) {
        break;
      }
    }
    if (this.wordLength > 0) this.addWord();
  }

  /** One BMP code unit (not a surrogate) through eld's encoder; false when encoding stops. */
  private encode(c: number): boolean {
    const b = this.byteChars;
    if (c < 0x80) {
      if (c === SPACE) {
        if (this.wordLength > 0) this.addWord();
        if (this.byteCount > CUT_AFTER_BYTES) return false;
      } else {
        this.push(c);
      }
      this.byteCount++;
    } else if (c < 0x800) {
      this.push(b[0xc0 | (c >> 6)] as number);
      this.push(b[0x80 | (c & 0x3f)] as number);
      this.byteCount += 2;
    } else {
      this.push(b[0xe0 | (c >> 12)] as number);
      this.push(b[0x80 | ((c >> 6) & 0x3f)] as number);
      this.push(b[0x80 | (c & 0x3f)] as number);
      this.byteCount += 3;
    }
    return this.byteCount <= FORCE_CUT_AFTER_BYTES;
  }

  private push(byteChar: number): void {
    this.word[this.wordLength++] = byteChar;
  }

  /** Step 5: the n-grams of the current word (eld's getByteNgrams), then an empty word. */
  private addWord(): void {
    const w = this.word;
    const n = this.wordLength;
    this.wordLength = 0;
    const len = Math.min(n, MAX_WORD_BYTES);
    let j = 0;
    for (; j + 4 < len; j += 3) {
      if (j === 0) this.addGram(packLow(SPACE, w[0] as number, w[1] as number, w[2] as number), packHigh(w[3] as number, 0, 5));
      else this.addGram(packLow(w[j] as number, w[j + 1] as number, w[j + 2] as number, w[j + 3] as number), packHigh(0, 0, 4));
    }
    // The last: from 4 bytes before the capped length to the end of the word, then a space.
    const from = Math.max(0, len - 4);
    const gramLength = (j === 0 ? 1 : 0) + (n - from) + 1;
    if (gramLength > MAX_NGRAM_CHARS) {
      const before = this.longGrams.size;
      this.longGrams.add(String.fromCharCode(...w.subarray(from, n)));
      this.ngramCount += this.longGrams.size - before;
      return;
    }
    const g = this.gram;
    g.fill(0);
    let k = 0;
    if (j === 0) g[k++] = SPACE;
    for (let i = from; i < n; i++) g[k++] = w[i] as number;
    g[k] = SPACE;
    this.addGram(
      packLow(g[0] as number, g[1] as number, g[2] as number, g[3] as number),
      packHigh(g[4] as number, g[5] as number, gramLength),
    );
  }

  /** Step 6 for one n-gram, the first time this call meets it. */
  private addGram(low: number, high: number): void {
    let s = (Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> 22) & (GRAM_SLOTS - 1);
    while (this.gramCall[s] === this.call) {
      if (this.gramLow[s] === low && this.gramHigh[s] === high) return;
      s = (s + 1) & (GRAM_SLOTS - 1);
    }
    this.gramCall[s] = this.call;
    this.gramLow[s] = low;
    this.gramHigh[s] = high;
    this.ngramCount++;
    this.table.ngrams.addScores(low, high, this.sums, BASE_SCORE);
  }

  /** Step 7: eld's getMaxLang, then LanguageResult's isReliable. */
  private result(): LanguageDetection {
    const sums = this.sums;
    const count = this.ngramCount;
    let best = -1;
    let bestSum = 0;
    for (let i = 0; i < sums.length; i++) {
      if ((sums[i] as number) > bestSum) {
        best = i;
        bestSum = sums[i] as number;
      }
    }
    const codes = this.table.languages;
    if (best < 0) return new Detection('', false, [], 0, codes);
    // The first two of eld's stable sort by score, best first.
    let first = -1;
    let second = -1;
    let firstScore = 0;
    let secondScore = 0;
    for (let i = 0; i < sums.length; i++) {
      if ((sums[i] as number) <= 0) continue;
      const score = scaledScore(sums[i] as number, count);
      if (first < 0 || score > firstScore) {
        second = first;
        secondScore = firstScore;
        first = i;
        firstScore = score;
      } else if (second < 0 || score > secondScore) {
        second = i;
        secondScore = score;
      }
    }
    // eld compares the best score with the runner-up's language *index*, not its score
    // (`results[1][0]`); kept as written, since the point is eld's answers.
    const next = second < 0 ? 0 : second;
    const isReliable =
      count >= 3 && !((this.table.averageScores[best] as number) * RELIABLE_RATIO > firstScore || 0.01 > Math.abs(firstScore - next));
    // A plain array: a small typed array per call costs more (an ArrayBuffer each).
    const copy: number[] = [];
    for (let i = 0; i < sums.length; i++) copy.push(sums[i] as number);
    return new Detection(codes[best] as string, isReliable, copy, count, codes);
  }
}

/**
 * The end of the ASCII letter-and-digit run at `i` when it holds no digit (its letters are
 * letters), or minus its end when it does (eld's `[a-zA-Z]*[0-9]+[a-zA-Z0-9]*` takes all of it).
 */
function asciiWordEnd(text: string, i: number): number {
  let hasDigit = false;
  let c = text.charCodeAt(i);
  while (isAsciiLetter(c) || isAsciiDigit(c)) {
    if (isAsciiDigit(c)) hasDigit = true;
    c = text.charCodeAt(++i);
  }
  return hasDigit ? -i : i;
}

/** The code units a RegExp class body of single BMP characters and `a-z` ranges names, as 1s. */
function codeUnitSet(classBody: string): Uint8Array {
  const set = new Uint8Array(0x10000);
  for (let i = 0; i < classBody.length; i++) {
    const isRange = classBody[i + 1] === '-' && i + 2 < classBody.length;
    set.fill(1, classBody.charCodeAt(i), classBody.charCodeAt(isRange ? i + 2 : i) + 1);
    if (isRange) i += 2;
  }
  return set;
}

/** A code unit's lowercase when it is one code unit whatever surrounds it, else IN_CONTEXT. */
function lowercaseAlone(c: number): number {
  if (c === 0x3a3) return IN_CONTEXT; // Σ: σ, or ς at the end of a word
  const lowered = String.fromCharCode(c).toLowerCase();
  const l = lowered.charCodeAt(0);
  return lowered.length !== 1 || (l >= 0xd800 && l < 0xe000) || l === IN_CONTEXT ? IN_CONTEXT : l;
}

let shared: Detector | undefined;

/**
 * The language of `text` exactly as eld's `detect()` with text cleanup on gives it over its
 * `medium` table (which is loaded on the first call, once per thread). Reads at most the first
 * 1,000 characters.
 */
export function detect(text: string): LanguageDetection {
  shared ??= new Detector(languageTable());
  return shared.detect(text);
}
