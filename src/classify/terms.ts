/**
 * Terms of a text as hashed feature ids (SPEC §4.2 preprocessing): the text is split on white space
 * and punctuation, lowercased, and every term holding a digit is dropped (numbers say nothing of a
 * topic). Markup and scripts are already gone: the input is a page's visible text.
 *
 * A term never becomes a string: its lowercase UTF-16 code units are hashed as they are scanned
 * (FNV-1a, 32 bits) and the hash is folded to `hashBits` bits, the feature id. Two terms may share an
 * id; with 2^18 ids and the tens of thousands of terms a topic model keeps, collisions are rare and
 * cost a classifier little (the "hashing trick").
 *
 * A letter is any code unit of Unicode category L or M (marks, so that "naïve" in decomposed form
 * stays one term); a digit is category Nd; everything else, surrogate halves included, separates.
 * The class and lowercase form of each of the 65,536 code units are computed on first sight and kept
 * in one table (256 KB), so the scan is a table lookup per character.
 */

/** How text becomes terms; stored in a model file, so that training and classification agree. */
export interface TermOptions {
  /** Feature ids are `hashBits`-bit integers, in [0, 2^hashBits). */
  readonly hashBits: number;
  /** Shorter terms are dropped (one-letter terms are initials and list markers). */
  readonly minTermChars: number;
  /** Longer terms are dropped (glued words, identifiers, base64). */
  readonly maxTermChars: number;
}

export const DEFAULT_TERM_OPTIONS: TermOptions = Object.freeze({ hashBits: 18, minTermChars: 2, maxTermChars: 32 });

/** Bounds a model file's term options are checked against. */
export const TERM_OPTION_BOUNDS = Object.freeze({ hashBits: [8, 24], minTermChars: [1, 8], maxTermChars: [4, 256] } as const);

/**
 * What each code unit is, 0 until first seen: SEPARATOR, or for a letter its lowercase code unit
 * shifted left by two with the LETTER bit, for a digit the code unit itself with both bits. One
 * lookup per character gives both the class and the unit to hash.
 */
const UNIT = new Uint32Array(65_536);
const UNKNOWN = 0;
const SEPARATOR = 1;
const LETTER = 2;
const DIGIT = 3;

function classify(c: number): number {
  const ch = String.fromCharCode(c);
  let unit = SEPARATOR;
  if (c >= 0xd800 && c <= 0xdfff) unit = SEPARATOR;
  else if (/[\p{L}\p{M}]/u.test(ch)) {
    const lower = ch.toLowerCase();
    unit = ((lower.length === 1 ? lower.charCodeAt(0) : c) << 2) | LETTER;
  } else if (/\p{Nd}/u.test(ch)) unit = (c << 2) | DIGIT;
  UNIT[c] = unit;
  return unit;
}

for (let c = 0; c < 128; c++) classify(c);

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A growable list of feature ids with a weight each, reused across documents to spare allocation. */
export class TermList {
  ids = new Uint32Array(1024);
  weights = new Float32Array(1024);
  length = 0;

  clear(): void {
    this.length = 0;
  }

  push(id: number, weight: number): void {
    if (this.length === this.ids.length) {
      const ids = new Uint32Array(this.ids.length * 2);
      ids.set(this.ids);
      const weights = new Float32Array(this.weights.length * 2);
      weights.set(this.weights);
      this.ids = ids;
      this.weights = weights;
    }
    this.ids[this.length] = id;
    this.weights[this.length] = weight;
    this.length++;
  }
}

/** A growable list of feature ids, reused across documents to spare allocation. */
export class TermIds {
  ids = new Uint32Array(1024);
  length = 0;

  clear(): void {
    this.length = 0;
  }

  push(id: number): void {
    if (this.length === this.ids.length) {
      const ids = new Uint32Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids[this.length++] = id;
  }
}

/**
 * The scan: appends the id of each term kept to `out` (null: counts only); returns how many were
 * kept. A loop with no call per term, for the classifier's sake: it runs over every page's text.
 */
function scan(text: string, options: TermOptions, out: TermIds | null): number {
  const shift = 32 - options.hashBits;
  const minTermChars = options.minTermChars;
  const maxTermChars = options.maxTermChars;
  let kept = 0;
  let hash = FNV_OFFSET;
  let chars = 0;
  let digits = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    let unit = UNIT[c] as number;
    if (unit === UNKNOWN) unit = classify(c);
    if (unit !== SEPARATOR) {
      digits |= unit & 1;
      hash = Math.imul(hash ^ (unit >>> 2), FNV_PRIME);
      chars++;
      continue;
    }
    if (chars > 0) {
      if (digits === 0 && chars >= minTermChars && chars <= maxTermChars) {
        // Fold the high bits in before keeping the top ones: FNV's low bits mix poorly.
        if (out !== null) out.push((hash ^ (hash >>> 15)) >>> shift);
        kept++;
      }
      hash = FNV_OFFSET;
      chars = 0;
      digits = 0;
    }
  }
  return kept;
}

/** Appends the ids of the terms of `text` to `out`, in order; returns how many were appended. Never throws on any string. */
export function scanTermIds(text: string, options: TermOptions, out: TermIds): number {
  return scan(text, options, out);
}

/**
 * Scans `text` and calls `onTerm(id)` for each term kept, in order; returns how many were kept.
 * Never throws on any string.
 */
export function scanTerms(text: string, options: TermOptions, onTerm: (id: number) => void): number {
  const out = new TermIds();
  const kept = scan(text, options, out);
  const ids = out.ids;
  for (let i = 0; i < kept; i++) onTerm(ids[i] as number);
  return kept;
}

/** Appends the terms of `text` to `out` with `weight` each; returns how many were appended. */
export function appendTerms(text: string, options: TermOptions, weight: number, out: TermList): number {
  return scanTerms(text, options, (id) => out.push(id, weight));
}

/** How many terms `text` holds (the X4 rule: a page of fewer than 50 is unclassifiable). */
export function countTerms(text: string, options: TermOptions): number {
  return scan(text, options, null);
}

/** The feature id of one word, as a scan would give it (for tests and model inspection). */
export function termId(word: string, options: TermOptions): number | null {
  let id: number | null = null;
  const count = scanTerms(word, options, (t) => {
    id = t;
  });
  return count === 1 ? id : null;
}
