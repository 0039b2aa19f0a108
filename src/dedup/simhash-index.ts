/**
 * An index of 64-bit SimHash fingerprints that finds, for a query, the nearest stored fingerprint
 * within Hamming distance k without comparing against all of them: the permuted-tables scheme of
 * Manku, Jain & Das Sarma, "Detecting near-duplicates for web crawling" (WWW 2007), §3.1.
 *
 * Split the 64 bits into m > k contiguous blocks. Two fingerprints at most k bits apart differ in
 * at most k blocks, so they agree exactly on at least m − k of them (pigeonhole). One table per
 * choice of m − k blocks, C(m, k) tables, keys a fingerprint by the bits of its chosen blocks; a
 * query looks up its own key in every table and verifies each candidate by popcount. With
 * m = k + 1 this is the plain band scheme (k + 1 tables keyed by one block each, 64/(k + 1) bits);
 * a larger m means more tables (memory) and longer keys (fewer candidates): a table keyed by b bits
 * returns about N / 2^b unrelated candidates out of N fingerprints.
 *
 * Where it departs from the paper: the tables are hash tables with chains (a bucket head per key
 * hash, a `next` link per fingerprint and table) rather than sorted permuted copies, so that
 * fingerprints can be added one at a time while the crawl runs; and the index is a FIFO ring of
 * `capacity` fingerprints, the oldest forgotten first. A chain runs from newer to older entries,
 * so a slot reused for a newer fingerprint is recognised by its age (it is newer than the entry
 * that links to it) and ends the chain: eviction costs nothing.
 *
 * Memory per fingerprint: 8 bytes for the fingerprint, 4 per table for its chain link, 4 per
 * table for bucket heads (at most one bucket per fingerprint), and one reference to its value:
 * about 8 + 8·C(m, k) bytes plus the value. Arrays grow by doubling up to `capacity`.
 */
import { fmix32 } from '../core/hash.js';

/** Options of {@link SimHashIndex}. */
export interface SimHashIndexOptions {
  /** Largest Hamming distance a lookup finds, k, an integer in 0 .. 32. */
  readonly maxDistance: number;
  /** Blocks the 64 bits are split into, m, with k < m ≤ 64. Default k + 1 (the band scheme). */
  readonly blocks?: number;
  /** Fingerprints kept at most; past it the oldest is forgotten. At least 1. */
  readonly capacity: number;
}

/** The most tables an index may have: C(m, k) grows fast, and each table costs 8 bytes a fingerprint. */
export const MAX_SIMHASH_TABLES = 64;

/** What {@link SimHashIndex.nearest} found. */
export interface SimHashMatch<T> {
  readonly value: T;
  readonly distance: number;
}

/** Number of tables of an index with `blocks` blocks and `maxDistance` k: C(m, k). */
export function simhashTableCount(maxDistance: number, blocks = maxDistance + 1): number {
  let c = 1;
  for (let i = 1; i <= maxDistance; i++) c = (c * (blocks - maxDistance + i)) / i;
  return Math.round(c);
}

/** Set bits of a 32-bit word. */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Mask of bits [from, to) of the 64-bit value as (high word, low word); bit 0 is the lowest. */
function rangeMask(from: number, to: number): [number, number] {
  let hi = 0;
  let lo = 0;
  for (let b = from; b < to; b++) {
    if (b < 32) lo |= 1 << b;
    else hi |= 1 << (b - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

/** Every choice of `r` of the numbers 0 .. n − 1, in lexicographic order. */
function combinations(n: number, r: number): number[][] {
  const out: number[][] = [];
  const pick: number[] = [];
  const walk = (start: number): void => {
    if (pick.length === r) {
      out.push([...pick]);
      return;
    }
    for (let i = start; i <= n - (r - pick.length); i++) {
      pick.push(i);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}

/**
 * Fingerprints with a value each (a URL, in the crawl), searchable by Hamming distance; see the file
 * comment. Fingerprints are passed as two unsigned 32-bit words, high word first.
 */
export class SimHashIndex<T> {
  readonly maxDistance: number;
  readonly blocks: number;
  readonly capacity: number;
  /** Per table: the high and low word masks of its key bits. */
  private readonly keyHi: Uint32Array;
  private readonly keyLo: Uint32Array;
  private readonly tableCount: number;
  /** Fingerprints added so far (the next one's sequence number). */
  private added = 0;
  /** Slots allocated (≤ capacity). */
  private length = 0;
  private words = new Uint32Array(0);
  private values: (T | undefined)[] = [];
  /** Per table, `next[t * length + slot]`: the next older slot of its chain, or −1. */
  private next = new Int32Array(0);
  /** Per table, `heads[t * buckets + b]`: the newest slot of bucket b, or −1. */
  private heads = new Int32Array(0);
  private bucketBits = 0;

  /** @throws RangeError on options outside their ranges, or more than {@link MAX_SIMHASH_TABLES} tables. */
  constructor(options: SimHashIndexOptions) {
    const k = options.maxDistance;
    const m = options.blocks ?? k + 1;
    if (!Number.isInteger(k) || k < 0 || k > 32) throw new RangeError(`SimHashIndex: maxDistance must be an integer in 0 .. 32, got ${k}`);
    if (!Number.isInteger(m) || m <= k || m > 64)
      throw new RangeError(`SimHashIndex: blocks must be an integer in ${k + 1} .. 64, got ${m}`);
    if (!Number.isSafeInteger(options.capacity) || options.capacity < 1) {
      throw new RangeError(`SimHashIndex: capacity must be a positive integer, got ${options.capacity}`);
    }
    const tables = simhashTableCount(k, m);
    if (tables > MAX_SIMHASH_TABLES) {
      throw new RangeError(`SimHashIndex: ${m} blocks at distance ${k} need ${tables} tables, more than ${MAX_SIMHASH_TABLES}`);
    }
    this.maxDistance = k;
    this.blocks = m;
    this.capacity = options.capacity;
    const bounds = Array.from({ length: m + 1 }, (_, i) => Math.round((64 * i) / m));
    const chosen = combinations(m, m - k);
    this.tableCount = chosen.length;
    this.keyHi = new Uint32Array(chosen.length);
    this.keyLo = new Uint32Array(chosen.length);
    chosen.forEach((blocks, t) => {
      for (const b of blocks) {
        const [hi, lo] = rangeMask(bounds[b] as number, bounds[b + 1] as number);
        this.keyHi[t] = ((this.keyHi[t] as number) | hi) >>> 0;
        this.keyLo[t] = ((this.keyLo[t] as number) | lo) >>> 0;
      }
    });
  }

  /** Tables (C(m, k)). */
  get tables(): number {
    return this.tableCount;
  }

  /** Fingerprints held (at most `capacity`). */
  get size(): number {
    return Math.min(this.added, this.capacity);
  }

  /** Bytes held by the index's arrays (not counting the values themselves): see the file comment. */
  get arrayBytes(): number {
    return this.words.byteLength + this.next.byteLength + this.heads.byteLength + 8 * this.values.length;
  }

  /** Adds a fingerprint with its value, forgetting the oldest when the index is full. */
  add(hi: number, lo: number, value: T): void {
    if (this.added < this.capacity && this.added === this.length) this.grow();
    const slot = this.added % this.capacity;
    this.added++;
    this.words[2 * slot] = hi >>> 0;
    this.words[2 * slot + 1] = lo >>> 0;
    this.values[slot] = value;
    this.link(slot);
  }

  /**
   * The stored fingerprint nearest to (`hi`, `lo`) within `maxDistance` whose value `accept`s (default
   * every one), the oldest of those at the same distance; null when there is none. `accept` is
   * called for every stored fingerprint within `maxDistance` the lookup meets (some more than once).
   */
  nearest(hi: number, lo: number, accept?: (value: T) => boolean): SimHashMatch<T> | null {
    let best = -1;
    let bestDistance = this.maxDistance + 1;
    let bestAge = -1;
    const shift = 32 - this.bucketBits;
    const buckets = 1 << this.bucketBits;
    for (let t = 0; t < this.tableCount; t++) {
      const b = this.bucketOf(t, hi, lo, shift);
      let prevSeq = Infinity;
      let slot = this.heads[t * buckets + b] as number;
      // Only the head needs its bucket checked: see the file comment.
      if (slot >= 0 && this.bucketOf(t, this.words[2 * slot] as number, this.words[2 * slot + 1] as number, shift) !== b) slot = -1;
      while (slot >= 0) {
        const seq = this.seqOf(slot);
        if (seq >= prevSeq) break;
        prevSeq = seq;
        const d = popcount32((hi ^ (this.words[2 * slot] as number)) >>> 0) + popcount32((lo ^ (this.words[2 * slot + 1] as number)) >>> 0);
        if (
          d <= this.maxDistance &&
          (accept === undefined || accept(this.values[slot] as T)) &&
          (d < bestDistance || (d === bestDistance && seq < bestAge))
        ) {
          best = slot;
          bestDistance = d;
          bestAge = seq;
        }
        slot = this.next[t * this.length + slot] as number;
      }
    }
    return best < 0 ? null : { value: this.values[best] as T, distance: bestDistance };
  }

  /** The sequence number of the fingerprint in `slot` (the ring holds the newest `capacity`). */
  private seqOf(slot: number): number {
    const newest = this.added - 1;
    return slot + this.capacity * Math.floor((newest - slot) / this.capacity);
  }

  private bucketOf(t: number, hi: number, lo: number, shift: number): number {
    if (shift === 32) return 0;
    const key = Math.imul((hi & (this.keyHi[t] as number)) | 0, 0x9e3779b1) ^ ((lo & (this.keyLo[t] as number)) | 0);
    return fmix32(key) >>> shift;
  }

  private link(slot: number): void {
    const shift = 32 - this.bucketBits;
    const buckets = 1 << this.bucketBits;
    const hi = this.words[2 * slot] as number;
    const lo = this.words[2 * slot + 1] as number;
    for (let t = 0; t < this.tableCount; t++) {
      const h = t * buckets + this.bucketOf(t, hi, lo, shift);
      this.next[t * this.length + slot] = this.heads[h] as number;
      this.heads[h] = slot;
    }
  }

  /** Doubles the slots (up to capacity) and the buckets with them, relinking every chain. */
  private grow(): void {
    const length = Math.min(this.capacity, Math.max(64, 2 * this.length));
    const words = new Uint32Array(2 * length);
    words.set(this.words);
    this.words = words;
    this.values.length = length;
    this.length = length;
    this.bucketBits = Math.min(30, Math.ceil(Math.log2(length)));
    this.next = new Int32Array(this.tableCount * length);
    this.heads = new Int32Array(this.tableCount << this.bucketBits).fill(-1);
    // Growth happens before the ring wraps: slots 0 .. added − 1 in order, oldest first.
    for (let slot = 0; slot < this.added; slot++) this.link(slot);
  }
}
