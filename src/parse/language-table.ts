/**
 * eld's `medium` language data (60 languages, 105,548 byte n-grams) read from eld's own source
 * files into typed arrays, for `detect` in `language-detector.ts`.
 *
 * eld ships the table as a 2 MB object literal (`src/ngrams/medium.js`: `{type, languages: {0:
 * 'am', ...}, isSubset, ngrams: {' Lé4L': {0: 176}, ...}}`); importing it makes V8 compile it into
 * ~105,000 small objects and as many key strings: ~195 MB of peak RSS, ~60 MB of heap, 0.5–0.7 s.
 * Here the file is read as bytes and scanned by a small hand-written scanner of the literal syntax
 * it uses (quoted keys with JS escapes, bare keys, `{lang: score}` objects, comments) straight into
 * an open-addressing hash of packed keys over flat (language, score) arrays: ~4.6 MB of typed
 * arrays, ~50–70 ms. eld's other data is read the same way: `avgScore.js` (the score a reliable
 * detection reaches, per language), `dictionary.js` (the character standing for each byte in
 * n-gram keys), `regexPatterns.js` (the BMP letter class its word separators are built from).
 * eld's `exports` hide these files from `import`: they are found from the resolved `eld/medium`
 * entry and read by path.
 *
 * N-gram keys are 1 to 6 characters below U+0100 (ASCII letters and apostrophes as themselves,
 * every other byte as its dictionary character), packed into two 32-bit words: the first four
 * character codes, then the next two and the length.
 */
import { readFileSync } from 'node:fs';
import { ShoalError } from '../core/errors.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { BACKSLASH, DOUBLE_QUOTE, LiteralScanner, QUOTE, isDigit, isIdentifierByte } from './js-literal-scanner.js';

/** Longest n-gram key the packing holds (eld's keys are 3 to 6 characters). */
export const MAX_NGRAM_CHARS = 6;

/** The two 32-bit words of a packed n-gram key of up to six characters below U+0100. */
export function packLow(c0: number, c1: number, c2: number, c3: number): number {
  return (c0 | (c1 << 8) | (c2 << 16) | (c3 << 24)) >>> 0;
}

/** The high word: characters 5 and 6 and the length (never 0, so 0 can mark an empty slot). */
export function packHigh(c4: number, c5: number, length: number): number {
  return c4 | (c5 << 8) | (length << 16);
}

/** The two words of a key given as character codes, or undefined when it is not 1 to 6 of them below U+0100. */
function packKey(codes: readonly number[]): [number, number] | undefined {
  const n = codes.length;
  if (n === 0 || n > MAX_NGRAM_CHARS || codes.some((c) => c > 0xff)) return undefined;
  const c = (i: number): number => codes[i] ?? 0;
  return [packLow(c(0), c(1), c(2), c(3)), packHigh(c(4), c(5), n)];
}

/** The slot a packed key hashes to (a 32-bit mix of both words, masked). */
function slotOf(low: number, high: number, mask: number): number {
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) & mask;
}

/** Uint32 words per hash slot: packed key (low, high), first pair, pair count. */
const SLOT_WORDS = 4;

/**
 * eld's n-gram table: for each n-gram, its languages with a score each (as eld's file has them;
 * eld adds 53 when it sums them). An open-addressing hash, linear probing, load at most one half;
 * a slot holds the packed key and where its pairs are, so a lookup reads one 16-byte slot, then
 * the pairs (a key index per slot, keys elsewhere, measured twice as slow: cache misses).
 */
export class NgramTable {
  /** Number of distinct n-grams. */
  readonly size: number;
  /** SLOT_WORDS words per slot; a high word of 0 marks an empty slot. */
  private readonly slots: Uint32Array;
  private readonly mask: number;
  /** Language index and score of each pair. */
  private readonly pairLanguage: Uint8Array;
  private readonly pairScore: Uint16Array;

  /** @internal Made by {@link NgramTableBuilder}. */
  constructor(slots: Uint32Array, size: number, pairLanguage: Uint8Array, pairScore: Uint16Array) {
    this.slots = slots;
    this.mask = slots.length / SLOT_WORDS - 1;
    this.size = size;
    this.pairLanguage = pairLanguage;
    this.pairScore = pairScore;
  }

  /**
   * Adds `score + base` to `sums[language]` for each language of the n-gram packed as (`low`,
   * `high`); says whether the table has it.
   */
  addScores(low: number, high: number, sums: Int32Array, base: number): boolean {
    const at = this.find(low, high);
    if (at < 0) return false;
    const end = (this.slots[at + 2] as number) + (this.slots[at + 3] as number);
    for (let p = this.slots[at + 2] as number; p < end; p++) {
      const language = this.pairLanguage[p] as number;
      sums[language] = (sums[language] as number) + (this.pairScore[p] as number) + base;
    }
    return true;
  }

  /** The scores of an n-gram as eld's table writes them (`{languageIndex: score}`), or undefined. */
  scoresOf(ngram: string): Record<number, number> | undefined {
    const key = packKey([...ngram].map((ch) => ch.codePointAt(0) as number));
    const at = key === undefined ? -1 : this.find(key[0], key[1]);
    if (at < 0) return undefined;
    const scores: Record<number, number> = {};
    const start = this.slots[at + 2] as number;
    for (let p = start; p < start + (this.slots[at + 3] as number); p++)
      scores[this.pairLanguage[p] as number] = this.pairScore[p] as number;
    return scores;
  }

  /** The largest language index in the table, -1 when empty. */
  maxLanguage(): number {
    return this.pairLanguage.reduce((max, language) => Math.max(max, language), -1);
  }

  /** The slot of the n-gram packed as (`low`, `high`), or -1. */
  private find(low: number, high: number): number {
    const slots = this.slots;
    const wrap = this.mask * SLOT_WORDS;
    let at = slotOf(low, high, this.mask) * SLOT_WORDS;
    while (slots[at] !== low || slots[at + 1] !== high) {
      if (slots[at + 1] === 0) return -1;
      at = (at + SLOT_WORDS) & wrap;
    }
    return at;
  }
}

/** eld's language data, as the detector needs it. */
export interface LanguageTable {
  /** eld's table type, `M60` for medium. */
  readonly type: string;
  /** Whether the table is a language subset (eld's `isSubset`; medium is the full set). */
  readonly isSubset: boolean;
  /** ISO 639-1 code by language index (eld's `languages`). */
  readonly languages: readonly string[];
  readonly ngrams: NgramTable;
  /** eld's `avgScore` by language index (NaN for a language it has none for). */
  readonly averageScores: Float64Array;
  /** eld's `dictionary`: the character code standing for each byte value in n-gram keys. */
  readonly byteChars: Uint8Array;
  /** eld's BMP letter class (the inside of a RegExp `[...]`: characters and ranges), as in `regexPatterns.js`. */
  readonly letterClass: string;
}

let shared: LanguageTable | undefined;

/**
 * eld's `medium` data, loaded on the first call, then shared by every caller in the thread (it is
 * read-only). Throws `ShoalError('IO')` when eld's files are missing or not as this scanner knows them.
 */
export function languageTable(): LanguageTable {
  shared ??= loadLanguageTable();
  return shared;
}

/** Loads eld's `medium` data afresh from the installed package (`languageTable()` caches it). */
export function loadLanguageTable(): LanguageTable {
  const entry = import.meta.resolve('eld/medium');
  /** A scanner at the literal assigned by `declaration` in the eld source file at `relative`. */
  const literalOf = (relative: string, declaration: string): LiteralScanner => {
    const url = new URL(relative, entry);
    let scanner: LiteralScanner;
    try {
      scanner = new LiteralScanner(readFileSync(url), url.pathname);
    } catch (err) {
      throw new ShoalError('IO', `cannot read eld's language data ${url.pathname}`, { cause: err });
    }
    scanner.seek(declaration);
    scanner.expect(0x3d /* = */);
    return scanner;
  };

  const data = readTableLiteral(literalOf('../ngrams/medium.js', 'export const ngramsData'));

  const avgByCode = literalOf('../avgScore.js', 'export const avgScore').readValue() as Record<string, unknown>;
  const averageScores = new Float64Array(data.languages.map((code) => (typeof avgByCode[code] === 'number' ? avgByCode[code] : NaN)));

  const dictionary = literalOf('../dictionary.js', 'export const dictionary');
  const chars = dictionary.readValue();
  const isByteChar = (ch: unknown): boolean => typeof ch === 'string' && ch.length === 1 && ch.charCodeAt(0) <= 0xff;
  if (!Array.isArray(chars) || chars.length !== 256 || !chars.every(isByteChar))
    throw dictionary.error('expected 256 characters below U+0100');
  const byteChars = new Uint8Array(chars.map((ch: string) => ch.charCodeAt(0)));

  const patterns = literalOf('../regexPatterns.js', 'const unicodeRegex');
  const letterClass = (patterns.readValue() as { L?: { bmp?: unknown } } | null)?.L?.bmp;
  if (typeof letterClass !== 'string') throw patterns.error('no letter class at unicodeRegex.L.bmp');

  return { ...data, averageScores, byteChars, letterClass };
}

/** The `{type, languages, isSubset, ngrams}` literal of an eld n-gram file. */
function readTableLiteral(s: LiteralScanner): Omit<LanguageTable, 'averageScores' | 'byteChars' | 'letterClass'> {
  let type: unknown;
  let isSubset: unknown;
  let languages: unknown;
  let ngrams: NgramTable | undefined;
  s.readObject((key) => {
    if (key === 'ngrams') ngrams = readNgrams(s);
    else if (key === 'type') type = s.readValue();
    else if (key === 'isSubset') isSubset = s.readValue();
    else if (key === 'languages') languages = s.readValue();
    else s.readValue();
  });
  if (typeof type !== 'string' || typeof isSubset !== 'boolean' || ngrams === undefined) throw s.error('missing type, isSubset or ngrams');
  const codes: string[] = [];
  for (const [index, code] of Object.entries((languages ?? {}) as Record<string, unknown>)) {
    if (String(codes.length) !== index || typeof code !== 'string') throw s.error('languages is not {0: code, 1: code, ...}');
    codes.push(code);
  }
  if (ngrams.maxLanguage() >= codes.length) throw s.error(`language index ${ngrams.maxLanguage()} out of range`);
  return { type, isSubset, languages: codes, ngrams };
}

/** An {@link NgramTable} being read: n-grams and their pairs in growing arrays, hashed at the end. */
class NgramTableBuilder {
  /** Per n-gram, as in a hash slot: packed key (low, high), first pair, pair count. */
  private ngrams = new Uint32Array(SLOT_WORDS << 17);
  private pairLanguage = new Uint8Array(1 << 18);
  private pairScore = new Uint16Array(1 << 18);
  private count = 0;
  private pairs = 0;
  /** First pair of the n-gram being read. */
  private start = 0;

  /** Adds a pair to the n-gram being read; a language given twice keeps its last score, as in JS. */
  addPair(language: number, score: number): void {
    let p = this.start;
    while (p < this.pairs && this.pairLanguage[p] !== language) p++;
    if (p === this.pairs) {
      if (p === this.pairLanguage.length) {
        this.pairLanguage = withRoomFor(this.pairLanguage, this.pairLanguage.length + 1);
        this.pairScore = withRoomFor(this.pairScore, this.pairScore.length + 1);
      }
      this.pairs++;
    }
    this.pairLanguage[p] = language;
    this.pairScore[p] = score;
  }

  /** Drops the pairs of the n-gram being read. */
  discardPairs(): void {
    this.pairs = this.start;
  }

  /** Ends the n-gram being read, packed as (`low`, `high`); false if it has more than 255 pairs. */
  endNgram(low: number, high: number): boolean {
    if (this.pairs - this.start > 0xff) return false;
    if (this.count * SLOT_WORDS === this.ngrams.length) this.ngrams = withRoomFor(this.ngrams, this.ngrams.length + 1);
    const at = this.count++ * SLOT_WORDS;
    this.ngrams[at] = low;
    this.ngrams[at + 1] = high;
    this.ngrams[at + 2] = this.start;
    this.ngrams[at + 3] = this.pairs - this.start;
    this.start = this.pairs;
    return true;
  }

  /**
   * The hash of the n-grams read, at a load of at most one half; a key given twice keeps its last
   * pairs, as in a JS literal. (Hashing as the n-grams are read, between scans, measured slower.)
   */
  build(): NgramTable {
    let capacity = 1024;
    while (capacity < this.count * 2) capacity *= 2;
    const slots = new Uint32Array(capacity * SLOT_WORDS);
    const wrap = (capacity - 1) * SLOT_WORDS;
    let size = 0;
    for (let k = 0; k < this.count * SLOT_WORDS; k += SLOT_WORDS) {
      const low = this.ngrams[k] as number;
      const high = this.ngrams[k + 1] as number;
      let at = slotOf(low, high, capacity - 1) * SLOT_WORDS;
      while (slots[at + 1] !== 0 && (slots[at] !== low || slots[at + 1] !== high)) at = (at + SLOT_WORDS) & wrap;
      if (slots[at + 1] === 0) size++;
      for (let w = 0; w < SLOT_WORDS; w++) slots[at + w] = this.ngrams[k + w] as number;
    }
    return new NgramTable(slots, size, this.pairLanguage.slice(0, this.pairs), this.pairScore.slice(0, this.pairs));
  }
}

/**
 * The `ngrams` object (`{'key': {language: score, ...}, ...}`), scanned straight into typed
 * arrays with no string or object made per n-gram: runs of entries written the way eld writes them
 * by {@link scanPlainEntries} (faster: one loop, no call per token), anything else (white space,
 * comments, escapes, quoted numbers) one entry at a time by the general scanner.
 */
function readNgrams(s: LiteralScanner): NgramTable {
  const out = new NgramTableBuilder();
  s.expect(0x7b /* { */);
  for (;;) {
    s.pos = scanPlainEntries(s.bytes, s.pos, out);
    if (s.peek() === 0x7d /* } */) break;
    s.readKey();
    const key = packKey(s.lastKey.slice(0, s.lastKeyLength));
    if (key === undefined) throw s.error('an n-gram key not of 1 to 6 characters below U+0100');
    s.expect(0x3a /* : */);
    s.readList(0x7b, 0x7d, () => {
      s.readKey();
      const language = s.keyAsIndex();
      s.expect(0x3a);
      const score = s.readNumber();
      if (!Number.isInteger(score) || score < 0 || score > 0xffff) throw s.error(`score ${score} is not an integer in 0..65535`);
      if (language > 0xff) throw s.error(`language index ${language} above 255`);
      out.addPair(language, score);
    });
    if (!out.endNgram(key[0], key[1])) throw s.error('more than 255 languages for one n-gram');
    if (!s.skipComma()) break;
  }
  s.expect(0x7d);
  return out.build();
}

/**
 * Reads entries from `pos` while they are written exactly as eld writes them, `'key':{0:176,12:40},`
 * (a quoted or bare key of 1 to 6 characters below U+0100 without escapes, integer language
 * indexes below 256 and integer scores, no white space); returns where it stopped: at the start of
 * the first entry it does not read, or at the closing `}`.
 */
function scanPlainEntries(bytes: Buffer, pos: number, out: NgramTableBuilder): number {
  const n = bytes.length;
  for (;;) {
    const entry = pos;
    let b = bytes[pos] as number;
    const quote = b === QUOTE || b === DOUBLE_QUOTE ? b : 0;
    if (quote !== 0) b = bytes[++pos] as number;
    let low = 0;
    let high = 0;
    let length = 0;
    // The key: up to six characters, each one byte (ASCII) or two (U+0080..U+00FF).
    for (;;) {
      if (quote !== 0 ? b === quote : b === 0x3a /* : */) break;
      let c = b;
      if (b >= 0x80) {
        if ((b !== 0xc2 && b !== 0xc3) || pos + 1 >= n) return entry;
        c = ((b & 0x1f) << 6) | ((bytes[++pos] as number) & 0x3f);
      } else if (b === BACKSLASH || b === 0x0a || b === 0x0d || (quote === 0 && !isIdentifierByte(b))) {
        return entry;
      }
      pos++;
      if (length === MAX_NGRAM_CHARS) return entry;
      if (length < 4) low |= c << (8 * length);
      else high |= c << (8 * (length - 4));
      length++;
      b = bytes[pos] as number;
    }
    if (length === 0 || (quote === 0 && isDigit(bytes[entry]))) return entry;
    if (quote !== 0) pos++;
    if (bytes[pos] !== 0x3a || bytes[pos + 1] !== 0x7b /* { */) return entry;
    pos += 2;
    for (;;) {
      let language = 0;
      let digits = pos;
      while (isDigit(bytes[pos])) language = language * 10 + (bytes[pos++] as number) - 0x30;
      if (pos === digits || pos - digits > 3 || (bytes[digits] === 0x30 && pos - digits > 1) || language > 0xff || bytes[pos] !== 0x3a)
        break;
      let score = 0;
      digits = ++pos;
      while (isDigit(bytes[pos])) score = score * 10 + (bytes[pos++] as number) - 0x30;
      if (pos === digits || pos - digits > 5 || (bytes[digits] === 0x30 && pos - digits > 1) || score > 0xffff) break;
      out.addPair(language, score);
      if (bytes[pos] !== 0x2c /* , */) break;
      pos++;
    }
    const isClosed = bytes[pos] === 0x7d && (bytes[pos + 1] === 0x2c || bytes[pos + 1] === 0x7d);
    if (!isClosed || !out.endNgram(low >>> 0, high | (length << 16))) {
      out.discardPairs();
      return entry;
    }
    pos++;
    if (bytes[pos] === 0x7d) return pos;
    pos++;
  }
}
