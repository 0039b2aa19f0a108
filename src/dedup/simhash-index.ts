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
 * Where it departs from the paper, so that fingerprints can be added one at a time while the crawl
 * runs: each table is a bucketed copy of the fingerprints (a counting sort by a hash of the table's
 * key bits into one contiguous array per table, scanned sequentially: a linked chain per bucket cost
 * a cache miss per candidate and made a lookup slower than a scan of everything). Fingerprints added
 * since the tables were last built wait in a tail that every lookup scans; the tables are rebuilt
 * when the tail reaches 2·√(size × tables), which balances the tail's scan against the rebuild's
 * cost (both about √(N·T) per page). The index is a FIFO ring of `capacity` fingerprints: an entry
 * of a table whose sequence number has left the ring is skipped, and dropped at the next rebuild.
 *
 * Memory per fingerprint: 8 bytes in the ring and a reference to its value, and 12 bytes per table
 * (fingerprint and sequence number; arrays are reused across rebuilds and sized with a quarter of
 * slack): about 16 + 12·C(m, k) bytes plus the value, 16 + 15·C(m, k) at most.
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
  /** Per table: the high and low word masks of its key bits, and how many bits that is. */
  private readonly keyHi: Uint32Array;
  private readonly keyLo: Uint32Array;
  private readonly keyBits: number[];
  private readonly tableCount: number;
  /** Fingerprints added so far (the next one's sequence number). */
  private added = 0;
  /** The ring: fingerprint of sequence number s at words 2(s mod capacity) and + 1; grows up to capacity. */
  private words = new Uint32Array(0);
  private values: (T | undefined)[] = [];
  /** Sequence numbers below this are in the tables; from it on, in the tail. */
  private builtUpTo = 0;
  /** Per table: bucket bits, bucket offsets (in entries) and entries (high word, low word, sequence number). */
  private bucketBits: number[] = [];
  private offsets: Uint32Array[] = [];
  private entries: Uint32Array[] = [];
  private scratch = new Uint32Array(0);
  private verified = 0;
  private isLoading = false;

  /** @throws RangeError on options outside their ranges, or more than {@link MAX_SIMHASH_TABLES} tables. */
  constructor(options: SimHashIndexOptions) {
    const k = options.maxDistance;
    const m = options.blocks ?? k + 1;
    if (!Number.isInteger(k) || k < 0 || k > 32) throw new RangeError(`SimHashIndex: maxDistance must be an integer in 0 .. 32, got ${k}`);
    if (!Number.isInteger(m) || m <= k || m > 64)
      throw new RangeError(`SimHashIndex: blocks must be an integer in ${k + 1} .. 64, got ${m}`);
    if (!Number.isSafeInteger(options.capacity) || options.capacity < 1 || options.capacity > 2 ** 30) {
      throw new RangeError(`SimHashIndex: capacity must be an integer in 1 .. 2^30, got ${options.capacity}`);
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
    this.keyBits = chosen.map((blocks) => blocks.reduce((sum, b) => sum + (bounds[b + 1] as number) - (bounds[b] as number), 0));
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

  /** Stored fingerprints compared with a query so far, over all lookups (a measure of lookup cost). */
  get probes(): number {
    return this.verified;
  }

  /** Bytes held by the index's arrays (not counting the values themselves): see the file comment. */
  get arrayBytes(): number {
    let bytes = this.words.byteLength + 8 * this.values.length + this.scratch.byteLength;
    for (let t = 0; t < this.offsets.length; t++)
      bytes += (this.offsets[t] as Uint32Array).byteLength + (this.entries[t] as Uint32Array).byteLength;
    return bytes;
  }

  /**
   * Adds fingerprints without looking them up, building the tables once at the end rather than as the
   * tail fills (reading back a crawl: a rebuild per √(N·T) pages would cost N^1.5).
   */
  addAll(fingerprints: Iterable<readonly [hi: number, lo: number, value: T]>): void {
    this.isLoading = true;
    try {
      for (const [hi, lo, value] of fingerprints) this.add(hi, lo, value);
    } finally {
      this.isLoading = false;
    }
    if (this.added > this.builtUpTo) this.rebuild();
  }

  /** Adds a fingerprint with its value, forgetting the oldest when the index is full. */
  add(hi: number, lo: number, value: T): void {
    if (this.added < this.capacity && 2 * this.added === this.words.length) {
      const words = new Uint32Array(2 * Math.min(this.capacity, Math.max(64, 2 * this.added)));
      words.set(this.words);
      this.words = words;
    }
    const slot = this.added % this.capacity;
    this.added++;
    this.words[2 * slot] = hi >>> 0;
    this.words[2 * slot + 1] = lo >>> 0;
    this.values[slot] = value;
    if (!this.isLoading && this.added - this.builtUpTo > Math.max(64, Math.ceil(2 * Math.sqrt(this.size * this.tableCount))))
      this.rebuild();
  }

  /**
   * The stored fingerprint nearest to (`hi`, `lo`) within `maxDistance` whose value `accept`s (default
   * every one), the oldest of those at the same distance; null when there is none. `accept` is
   * called for every stored fingerprint within `maxDistance` the lookup meets (some more than once).
   */
  nearest(hi: number, lo: number, accept?: (value: T) => boolean): SimHashMatch<T> | null {
    const k = this.maxDistance;
    const oldest = Math.max(0, this.added - this.capacity);
    let bestSeq = -1;
    let bestDistance = k + 1;
    const consider = (seq: number, d: number): void => {
      if (
        (d < bestDistance || (d === bestDistance && seq < bestSeq)) &&
        (accept === undefined || accept(this.values[seq % this.capacity] as T))
      ) {
        bestSeq = seq;
        bestDistance = d;
      }
    };
    let probes = 0;
    for (let t = 0; t < this.offsets.length; t++) {
      const offsets = this.offsets[t] as Uint32Array;
      const e = this.entries[t] as Uint32Array;
      const b = this.bucketOf(t, hi, lo, this.bucketBits[t] as number);
      const end = offsets[b + 1] as number;
      for (let i = offsets[b] as number; i < end; i++) {
        const d = popcount32((hi ^ (e[3 * i] as number)) >>> 0) + popcount32((lo ^ (e[3 * i + 1] as number)) >>> 0);
        if (d <= k) {
          const seq = e[3 * i + 2] as number;
          if (seq >= oldest) consider(seq, d);
        }
      }
      probes += end - (offsets[b] as number);
    }
    const words = this.words;
    for (let seq = Math.max(this.builtUpTo, oldest); seq < this.added; seq++) {
      const slot = seq % this.capacity;
      const d = popcount32((hi ^ (words[2 * slot] as number)) >>> 0) + popcount32((lo ^ (words[2 * slot + 1] as number)) >>> 0);
      if (d <= k) consider(seq, d);
      probes++;
    }
    this.verified += probes;
    return bestSeq < 0 ? null : { value: this.values[bestSeq % this.capacity] as T, distance: bestDistance };
  }

  /**
   * Whether the index holds exactly this fingerprint with this value (compared with `===`): one bucket
   * of one table and the tail are read, not every table, so it costs a fraction of {@link nearest}.
   */
  holds(hi: number, lo: number, value: T): boolean {
    const h = hi >>> 0;
    const l = lo >>> 0;
    const oldest = Math.max(0, this.added - this.capacity);
    const isIt = (seq: number): boolean => this.values[seq % this.capacity] === value;
    if (this.offsets.length > 0) {
      const offsets = this.offsets[0] as Uint32Array;
      const e = this.entries[0] as Uint32Array;
      const b = this.bucketOf(0, h, l, this.bucketBits[0] as number);
      for (let i = offsets[b] as number; i < (offsets[b + 1] as number); i++) {
        const seq = e[3 * i + 2] as number;
        if (e[3 * i] === h && e[3 * i + 1] === l && seq >= oldest && isIt(seq)) return true;
      }
    }
    for (let seq = Math.max(this.builtUpTo, oldest); seq < this.added; seq++) {
      const slot = seq % this.capacity;
      if (this.words[2 * slot] === h && this.words[2 * slot + 1] === l && isIt(seq)) return true;
    }
    return false;
  }

  private bucketOf(t: number, hi: number, lo: number, bits: number): number {
    if (bits === 0) return 0;
    const key = Math.imul((hi & (this.keyHi[t] as number)) | 0, 0x9e3779b1) ^ ((lo & (this.keyLo[t] as number)) | 0);
    return fmix32(key) >>> (32 - bits);
  }

  /** Counting sort of every fingerprint in the ring into each table's buckets; the tail is then empty. */
  private rebuild(): void {
    const from = Math.max(0, this.added - this.capacity);
    const count = this.added - from;
    if (this.scratch.length < count) this.scratch = new Uint32Array(Math.min(this.capacity, Math.ceil(count * 1.25)));
    const buckets = this.scratch;
    const sizeBits = Math.max(1, Math.ceil(Math.log2(count)));
    for (let t = 0; t < this.tableCount; t++) {
      // Four buckets per key value when keys are short: hashed keys then seldom share a bucket.
      const bits = Math.min((this.keyBits[t] as number) + 2, sizeBits);
      let offsets = this.offsets[t];
      if (offsets === undefined || offsets.length !== (1 << bits) + 1) offsets = new Uint32Array((1 << bits) + 1);
      else offsets.fill(0);
      let e = this.entries[t];
      if (e === undefined || e.length < 3 * count) e = new Uint32Array(3 * Math.min(this.capacity, Math.ceil(count * 1.25)));
      for (let i = 0; i < count; i++) {
        const slot = (from + i) % this.capacity;
        const b = this.bucketOf(t, this.words[2 * slot] as number, this.words[2 * slot + 1] as number, bits);
        buckets[i] = b;
        offsets[b + 1] = (offsets[b + 1] as number) + 1;
      }
      for (let b = 0; b < 1 << bits; b++) offsets[b + 1] = (offsets[b + 1] as number) + (offsets[b] as number);
      // Placed oldest first within a bucket; `offsets[b]` runs ahead while placing, then is shifted back.
      for (let i = 0; i < count; i++) {
        const slot = (from + i) % this.capacity;
        const b = buckets[i] as number;
        const at = offsets[b] as number;
        offsets[b] = at + 1;
        e[3 * at] = this.words[2 * slot] as number;
        e[3 * at + 1] = this.words[2 * slot + 1] as number;
        e[3 * at + 2] = from + i;
      }
      for (let b = 1 << bits; b > 0; b--) offsets[b] = offsets[b - 1] as number;
      offsets[0] = 0;
      this.bucketBits[t] = bits;
      this.offsets[t] = offsets;
      this.entries[t] = e;
    }
    this.builtUpTo = this.added;
  }
}
