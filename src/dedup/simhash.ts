/**
 * SimHash near-duplicate fingerprints (SPEC §2 item 10), after Charikar, "Similarity estimation
 * techniques from rounding algorithms" (STOC 2002), as Manku, Jain & Das Sarma use it to find
 * near-duplicate web pages ("Detecting near-duplicates for web crawling", WWW 2007):
 *
 *     V[j] = Σ_f  w_f · (bit j of h(f) = 1 ? +1 : −1)        j = 0 .. 63
 *     simhash bit j = 1  iff  V[j] > 0
 *
 * over the features f of a document with weights w_f and a 64-bit hash h. Each hash bit acts as a
 * random ±1 hyperplane, so two documents agree on a bit with probability 1 − θ/π, θ being the angle
 * between their weighted feature vectors: the expected Hamming distance is 64·θ/π. Unrelated pages
 * (orthogonal vectors) land near 32; a copy that shares a fraction c of its features (cos θ ≈ c)
 * lands near 64·acos(c)/π.
 *
 * Features here: word 3-shingles (three consecutive tokens, in order), tokens being the runs of
 * `[\p{L}\p{N}]` lowercased with `String.prototype.toLowerCase`; a shingle's weight is its number of
 * occurrences (every occurrence votes once). A text of one or two tokens votes with its tokens (1-shingles);
 * a text without tokens has fingerprint 0. No Unicode normalization is applied: pass NFC text (as
 * `content-digest.ts` normalizes) if decomposed accents may occur.
 *
 * Departures from Manku et al., on purpose: their features are weighted terms, ours are shingles,
 * which makes the fingerprint more sensitive to edits (one changed word changes three shingles, so
 * 3% of words replaced moves about 9% of the weight: cos θ ≈ 0.91, expected distance ≈ 9). Their
 * threshold k = 3 therefore misses such copies; {@link NEAR_DUPLICATE_MAX_DISTANCE} is chosen from
 * measurements instead (see there).
 *
 * Implementation: one pass over the UTF-16 code units, no regex and no per-token string (but for
 * the rare letters whose lowercase needs the string method: İ, Σ, letters beyond the BMP). h is 64
 * bits as two 32-bit lanes of `Math.imul` arithmetic (no BigInt in the loop): each token gets two
 * differently seeded FNV-1a lanes, each finalized by murmur3's fmix32; a shingle's low word is
 * fmix32 of its three tokens' a-lanes weighted by distinct odd constants, its high word the same
 * over the b-lanes. The votes V are counted bit-sliced, in 8-bit counters packed four to a 32-bit
 * word and flushed to an `Int32Array(64)` every 255 shingles, instead of 64 additions per shingle.
 * Measured: bits of h are set with frequency 0.49–0.51 and pairwise uncorrelated to within 0.01,
 * and unrelated texts follow Binomial(64, ½) as the formula expects.
 *
 * The values are recorded in WARC metadata and compared across crawls: any change here must keep
 * every fingerprint bit for bit (test/unit/dedup/simhash-reference.test.ts holds a plain reference).
 * Lane values are kept as signed 32-bit integers (the same bits as unsigned): V8 then keeps them in
 * integer registers, where unsigned values above 2³¹ made it compute in doubles (13% of the time).
 */
import { fmix32 } from '../core/hash.js';

/**
 * Default largest Hamming distance (of 64 bits) at which {@link isNearDuplicate} calls two
 * fingerprints near-duplicates: 16, the value that separates the near-duplicates of the test web
 * from its unrelated pages and keeps almost every 3%-edited copy. Measured on this implementation
 * (throwaway runs; the tests assert looser bounds from the same set-ups):
 *
 * - texts of 300 to 1000 random words with 3% of the words replaced: mean 8.5 (64·acos(0.91)/π ≈ 8.7
 *   predicted), 99.7% within 16, the farthest of 5,000 at 19;
 * - near-duplicate pages of the test web (5 body words changed of 120 to 900, same title and links;
 *   tags stripped): mean 4.9, at most 16 over 2,745 pairs from nine seeds (a near-copy of a 10- to
 *   40-word page, 5 words changed, is not one: those reach 19);
 * - unrelated pages of the test web, also same host and topic: mean 31.8, never below 18 over 5,500
 *   pairs.
 *
 * For unrelated texts the distance is Binomial(64, ½), so one unrelated pair falls within 16 with
 * probability 3.9·10⁻⁵ (within 10: 1.0·10⁻⁸; within 3: 2.4·10⁻¹⁵). That is small for one pair, but a
 * lookup against N stored fingerprints expects N times as many false matches: compare within a
 * small candidate set (same host, same title), or pass a smaller `maxDistance` when searching a
 * whole crawl (Manku et al. use 3 for 8·10⁹ pages, at the cost of missing most 3% edits).
 */
export const NEAR_DUPLICATE_MAX_DISTANCE = 16;

// ---- token classification -------------------------------------------------------------------

/** ASCII code unit → its lowercase form if it is a letter or digit, else 0 (a separator). */
const ASCII_WORD = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_WORD[c] = c;
for (let c = 97; c <= 122; c++) {
  ASCII_WORD[c] = c;
  ASCII_WORD[c - 32] = c;
}

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/**
 * Whether each BMP code point is a letter or digit, and its lowercase form, filled 256 code points
 * at a time on first use: a text in one script touches a handful of blocks, and a regex test per
 * character would cost more than the rest of the fingerprint.
 */
const bmpWord = new Uint8Array(65536);
/**
 * The lowercase of a BMP letter or digit when `toLowerCase` maps it to one code unit whatever
 * surrounds it, else 0: then the token is lowercased by the string method (İ becomes two code
 * units; Σ depends on its neighbours, the final-sigma rule, the only context the locale-free
 * mapping has).
 */
const bmpLower = new Uint16Array(65536);
const bmpBlockReady = new Uint8Array(256);
const CAPITAL_SIGMA = 0x3a3;

function fillBlock(block: number): void {
  const base = block << 8;
  for (let c = base; c < base + 256; c++) {
    const ch = String.fromCharCode(c);
    const isWord = WORD_CHAR.test(ch);
    const lower = ch.toLowerCase();
    bmpWord[c] = isWord ? 1 : 0;
    bmpLower[c] = isWord && lower.length === 1 && c !== CAPITAL_SIGMA ? lower.charCodeAt(0) : 0;
  }
  bmpBlockReady[block] = 1;
}

/**
 * Code units taken by the letter or digit starting at `text[i]` (whose code unit `c` is not ASCII):
 * 1 or 2 (a surrogate pair), or 0 if it is not a letter or digit (lone surrogates are not).
 */
function nonAsciiWordUnits(text: string, i: number, c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1); // NaN past the end
    if (!(d >= 0xdc00 && d <= 0xdfff)) return 0;
    return WORD_CHAR.test(text.slice(i, i + 2)) ? 2 : 0;
  }
  const block = c >>> 8;
  if (bmpBlockReady[block] === 0) fillBlock(block);
  return bmpWord[c] as number;
}

// ---- hashing ----------------------------------------------------------------------------------

/**
 * Token lanes: FNV-1a (offset basis and prime) on lane a, the same loop with another basis and odd
 * multiplier on lane b, so that the two 32-bit lanes are different functions of the token.
 */
const FNV_BASIS = 0x811c9dc5 | 0; // signed, as every lane value here (see the file comment)
const FNV_PRIME = 0x01000193;
const LANE_B_BASIS = 0x6a09e667;
const LANE_B_PRIME = 0x2127599b;
/** Odd multipliers that weight the first two tokens of a shingle, one pair per output lane. */
const K_LO_FIRST = 0x9e3779b1;
const K_LO_SECOND = 0x85ebca77;
const K_HI_FIRST = 0xc2b2ae3d;
const K_HI_SECOND = 0x27d4eb2f;
/** Output seeds: of 3-shingles (low and high lane) and of the 1-shingles of very short texts. */
const SEED_LO = 0x3c6ef372;
const SEED_HI = 0xa54ff53a;
const SEED_UNIGRAM_LO = 0x510e527f;
const SEED_UNIGRAM_HI = 0x9b05688c;

// ---- voting -----------------------------------------------------------------------------------

/**
 * Scratch state of one fingerprint. Module-level because `simhashWords` runs to completion without
 * yielding (JavaScript is single-threaded, and each worker thread has its own module instance);
 * it saves two allocations per page.
 */
const packed = new Int32Array(16); // byte m of packed[k]: count of bit 8m + k of the low word (k < 8), of bit 8m + k − 8 of the high word (k ≥ 8)
const votes = new Int32Array(64); // V[j] of the formula, j = 0 .. 31 in the low word
let pending = 0; // shingles counted in `packed` but not yet in `votes`

/** Bit 0 of every byte of a 32-bit word. */
const ONES = 0x01010101;

/**
 * Counts the 64 bits of one feature's hash: bits k, k + 8, k + 16 and k + 24 of a word are added to
 * the four byte counters of packed[k] at once, by a shift and a mask (a table of nibbles cost twice
 * as much).
 */
function vote(lo: number, hi: number): void {
  packed[0] = (packed[0] as number) + (lo & ONES);
  packed[1] = (packed[1] as number) + ((lo >>> 1) & ONES);
  packed[2] = (packed[2] as number) + ((lo >>> 2) & ONES);
  packed[3] = (packed[3] as number) + ((lo >>> 3) & ONES);
  packed[4] = (packed[4] as number) + ((lo >>> 4) & ONES);
  packed[5] = (packed[5] as number) + ((lo >>> 5) & ONES);
  packed[6] = (packed[6] as number) + ((lo >>> 6) & ONES);
  packed[7] = (packed[7] as number) + ((lo >>> 7) & ONES);
  packed[8] = (packed[8] as number) + (hi & ONES);
  packed[9] = (packed[9] as number) + ((hi >>> 1) & ONES);
  packed[10] = (packed[10] as number) + ((hi >>> 2) & ONES);
  packed[11] = (packed[11] as number) + ((hi >>> 3) & ONES);
  packed[12] = (packed[12] as number) + ((hi >>> 4) & ONES);
  packed[13] = (packed[13] as number) + ((hi >>> 5) & ONES);
  packed[14] = (packed[14] as number) + ((hi >>> 6) & ONES);
  packed[15] = (packed[15] as number) + ((hi >>> 7) & ONES);
  // A byte counter overflows past 255.
  if (++pending === 255) flush();
}

function flush(): void {
  for (let k = 0; k < 8; k++) {
    for (let half = 0; half < 64; half += 32) {
      const p = packed[k + (half >> 2)] as number;
      const j = half + k;
      // +1 per set bit, −1 per clear bit: 2·ones − shingles.
      votes[j] = (votes[j] as number) + 2 * (p & 255) - pending;
      votes[j + 8] = (votes[j + 8] as number) + 2 * ((p >>> 8) & 255) - pending;
      votes[j + 16] = (votes[j + 16] as number) + 2 * ((p >>> 16) & 255) - pending;
      votes[j + 24] = (votes[j + 24] as number) + 2 * (p >>> 24) - pending;
    }
  }
  packed.fill(0);
  pending = 0;
}

// ---- fingerprints -----------------------------------------------------------------------------

/**
 * SimHash of `text` written as two 32-bit words: `out[offset]` the high 32 bits, `out[offset + 1]`
 * the low 32 bits (so the pair reads as the big-endian 64-bit value of {@link simhash}). For hot
 * paths that keep fingerprints packed in one typed array; allocates nothing for ASCII words.
 *
 * @param offset index of the high word in `out`. Default 0.
 * @throws RangeError if `out` has no room for two words at `offset`.
 */
export function simhashWords(text: string, out: Uint32Array, offset = 0): void {
  if (!Number.isInteger(offset) || offset < 0 || offset + 2 > out.length) {
    throw new RangeError(`simhashWords: no room for two words at offset ${offset} of ${out.length}`);
  }
  votes.fill(0);
  packed.fill(0);
  pending = 0;
  const n = text.length;
  let tokens = 0;
  // Hash lanes of the two previous tokens (t−2, t−1).
  let a2 = 0;
  let b2 = 0;
  let a1 = 0;
  let b1 = 0;
  let i = 0;
  while (i < n) {
    let start = -1;
    let ha = FNV_BASIS;
    let hb = LANE_B_BASIS;
    let isMapped = true;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        const l = ASCII_WORD[c] as number;
        if (l === 0) {
          if (start >= 0) break;
          continue;
        }
        if (start < 0) start = i;
        ha = Math.imul(ha ^ l, FNV_PRIME);
        hb = Math.imul(hb ^ l, LANE_B_PRIME);
      } else {
        const units = nonAsciiWordUnits(text, i, c);
        if (units === 0) {
          if (start >= 0) break;
          continue;
        }
        if (start < 0) start = i;
        const l = units === 1 ? (bmpLower[c] as number) : 0;
        if (l === 0) {
          isMapped = false;
        } else {
          ha = Math.imul(ha ^ l, FNV_PRIME);
          hb = Math.imul(hb ^ l, LANE_B_PRIME);
        }
        i += units - 1;
      }
    }
    if (start < 0) break;
    let length = i - start;
    if (!isMapped) {
      // Only tokens with a letter beyond the table get here (a pair of surrogates, İ, Σ): lowercase
      // them exactly as the string method does (full case mapping, final sigma, İ → i̇), then hash.
      const lower = text.slice(start, i).toLowerCase();
      length = lower.length;
      ha = FNV_BASIS;
      hb = LANE_B_BASIS;
      for (let j = 0; j < length; j++) {
        const c = lower.charCodeAt(j);
        ha = Math.imul(ha ^ c, FNV_PRIME);
        hb = Math.imul(hb ^ c, LANE_B_PRIME);
      }
    }
    // Each lane of the token hash is finalized once here and reused by the three shingles it is in.
    const a0 = fmix32(ha ^ length);
    const b0 = fmix32(hb + length);
    tokens++;
    if (tokens >= 3) {
      // Shingle (t−2, t−1, t): token lanes weighted by distinct odd multipliers (so the order of the
      // words counts) and summed mod 2³², then finalized; the low word from lanes a, the high from b.
      const lo = fmix32((Math.imul(a2, K_LO_FIRST) + Math.imul(a1, K_LO_SECOND) + a0) ^ SEED_LO);
      const hi = fmix32((Math.imul(b2, K_HI_FIRST) + Math.imul(b1, K_HI_SECOND) + b0) ^ SEED_HI);
      vote(lo, hi);
    }
    a2 = a1;
    b2 = b1;
    a1 = a0;
    b1 = b0;
  }
  // One or two tokens: they are in (a1, b1) and (a2, b2).
  if (tokens === 2) voteUnigram(a2, b2);
  if (tokens === 1 || tokens === 2) voteUnigram(a1, b1);
  if (pending > 0) flush();
  let lo = 0;
  let hi = 0;
  for (let j = 0; j < 32; j++) {
    if ((votes[j] as number) > 0) lo |= 1 << j;
    if ((votes[j + 32] as number) > 0) hi |= 1 << j;
  }
  out[offset] = hi >>> 0;
  out[offset + 1] = lo >>> 0;
}

function voteUnigram(a: number, b: number): void {
  vote(fmix32(a ^ SEED_UNIGRAM_LO), fmix32(b ^ SEED_UNIGRAM_HI));
}

const pair = new Uint32Array(2);

/** 64-bit SimHash of `text` (see the file comment), as an unsigned bigint; 0n for a text without words. */
export function simhash(text: string): bigint {
  simhashWords(text, pair, 0);
  return (BigInt(pair[0] as number) << 32n) | BigInt(pair[1] as number);
}

/** Set bits of a 32-bit word (SWAR popcount). */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Bits in which two 64-bit fingerprints differ (0 .. 64); negative inputs are read as two's complement. */
export function hammingDistance(a: bigint, b: bigint): number {
  const x = BigInt.asUintN(64, a ^ b);
  return popcount32(Number(x & 0xffffffffn)) + popcount32(Number(x >> 32n));
}

/**
 * {@link hammingDistance} of two fingerprints stored as word pairs by {@link simhashWords}:
 * `a[aOffset], a[aOffset + 1]` against `b[bOffset], b[bOffset + 1]`.
 */
export function hammingDistanceWords(a: Uint32Array, aOffset: number, b: Uint32Array, bOffset: number): number {
  return (
    popcount32(((a[aOffset] as number) ^ (b[bOffset] as number)) >>> 0) +
    popcount32(((a[aOffset + 1] as number) ^ (b[bOffset + 1] as number)) >>> 0)
  );
}

/**
 * Whether two SimHash fingerprints are at most `maxDistance` bits apart.
 *
 * @param maxDistance largest Hamming distance still called a near-duplicate, an integer in 0 .. 64.
 *   Default {@link NEAR_DUPLICATE_MAX_DISTANCE} (16, measured: see there).
 * @throws RangeError on a `maxDistance` outside 0 .. 64.
 */
export function isNearDuplicate(a: bigint, b: bigint, maxDistance = NEAR_DUPLICATE_MAX_DISTANCE): boolean {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > 64) {
    throw new RangeError(`isNearDuplicate: maxDistance must be an integer in 0 .. 64, got ${maxDistance}`);
  }
  return hammingDistance(a, b) <= maxDistance;
}
