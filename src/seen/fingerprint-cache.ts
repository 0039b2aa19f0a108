/**
 * A bounded cache of popular fingerprints: 4-way set-associative, CLOCK replacement within each
 * set, on typed arrays. It answers "certainly seen" for most URLs without touching the disk set
 * (seed 001, "Disk-Based Hash for UST?": cache popular URLs), and can equally hold popular URLs
 * owned by other nodes so they are not sent again and again (seed 001, "Reducing Communication").
 *
 * Why this shape: a fingerprint may live only in the 4 slots of the set its hash picks, so a lookup
 * reads one 32-byte run of words and memory is fixed at construction (9 bytes per entry plus one
 * per set of 4), with no object per entry for the garbage collector to walk. Within a set, CLOCK keeps
 * what is asked for again: a hit sets the entry's reference bit; an insertion sweeps the set's hand
 * forward, clearing set bits, and evicts the first entry whose bit is clear. A new entry starts
 * with its bit clear, so a URL seen once is the first to go and a popular one survives a sweep.
 *
 * The cache holds only fingerprints known to be in the set it fronts: a hit is an exact "seen",
 * a miss says nothing. Departure from Mercator: it used one fully associative CLOCK over 2^18
 * entries; set associativity trades a few points of hit rate for a bounded, allocation-free probe.
 */

/** Options of {@link FingerprintCache}. */
export interface FingerprintCacheOptions {
  /**
   * Most fingerprints held; rounded down to a power of two, at least 4. Memory is 9.25 bytes per
   * entry, allocated at construction. Default 1,048,576 (9.7 MB).
   */
  readonly maxEntries?: number;
}

/** Entries per set. */
const WAYS = 4;
const DEFAULT_MAX_ENTRIES = 1 << 20;

/** Per-entry state in {@link FingerprintCache}: an entry is empty, present, or present and referenced. */
const SlotState = { empty: 0, present: 1, referenced: 2 } as const;

/** Bounded set-associative CLOCK cache of 64-bit fingerprints (given as two uint32 words). */
export class FingerprintCache {
  /** Entries it can hold: a power of two. */
  readonly capacity: number;
  /** (hi, lo) of entry e at (2e, 2e + 1); entries of set s are e = 4s .. 4s + 3. */
  private readonly words: Uint32Array;
  private readonly states: Uint8Array;
  /** CLOCK hand of each set: the way (0..3) the next sweep starts at. */
  private readonly hands: Uint8Array;
  private readonly setMask: number;
  private used = 0;

  constructor(options: FingerprintCacheOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(max) || max < WAYS) throw new RangeError(`maxEntries must be an integer >= ${WAYS}, got ${max}`);
    let sets = 1;
    while (sets * 2 * WAYS <= max) sets *= 2;
    this.capacity = sets * WAYS;
    this.setMask = sets - 1;
    this.words = new Uint32Array(2 * this.capacity);
    this.states = new Uint8Array(this.capacity);
    this.hands = new Uint8Array(sets);
  }

  /** Fingerprints held now (never more than {@link capacity}). */
  get size(): number {
    return this.used;
  }

  /** Bytes of the cache's arrays: fixed at construction. */
  get byteLength(): number {
    return this.words.byteLength + this.states.byteLength + this.hands.byteLength;
  }

  /**
   * Whether the fingerprint `hi * 2^32 + lo` (both unsigned 32-bit) is held; a hit marks it as
   * referenced.
   */
  has(hi: number, lo: number): boolean {
    const e = this.find(hi, lo);
    if (e < 0) return false;
    this.states[e] = SlotState.referenced;
    return true;
  }

  /** Like {@link has}, without marking the entry: for looking without changing what is kept. */
  peek(hi: number, lo: number): boolean {
    return this.find(hi, lo) >= 0;
  }

  /** Holds the fingerprint, evicting the set's least recently referenced entry if the set is full. */
  add(hi: number, lo: number): void {
    if (this.has(hi, lo)) return;
    const set = mixForSet(hi, lo) & this.setMask;
    const first = set * WAYS;
    const states = this.states;
    let hand = this.hands[set]!;
    let e = -1;
    // At most two turns: the first clears every reference bit, so the second finds a victim.
    for (let step = 0; step < 2 * WAYS; step++) {
      const candidate = first + hand;
      hand = (hand + 1) & (WAYS - 1);
      const state = states[candidate]!;
      if (state === SlotState.referenced) {
        states[candidate] = SlotState.present;
        continue;
      }
      if (state === SlotState.empty) this.used++;
      e = candidate;
      break;
    }
    this.hands[set] = hand;
    this.words[2 * e] = hi;
    this.words[2 * e + 1] = lo;
    states[e] = SlotState.present;
  }

  /** Forgets every entry (memory is kept). */
  clear(): void {
    this.states.fill(SlotState.empty);
    this.hands.fill(0);
    this.used = 0;
  }

  /** Entry index holding the fingerprint, or -1. */
  private find(hi: number, lo: number): number {
    const first = (mixForSet(hi, lo) & this.setMask) * WAYS;
    const w = this.words;
    for (let e = first; e < first + WAYS; e++) {
      if (w[2 * e] === hi && w[2 * e + 1] === lo && this.states[e] !== SlotState.empty) return e;
    }
    return -1;
  }
}

/**
 * Set index hash. Deliberately not the hash set's `mixWords`: were both indexed by the same bits,
 * fingerprints that crowd one cache set would also crowd one probe run of a hash set beside it.
 */
function mixForSet(hi: number, lo: number): number {
  let h = Math.imul(lo ^ 0x7feb352d, 0x846ca68b) ^ hi;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return h ^ (h >>> 12);
}
