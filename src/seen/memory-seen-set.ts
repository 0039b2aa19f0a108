/**
 * `seen: memory` — the URL-seen test held entirely in memory: an open-addressing hash set with
 * linear probing on one `Uint32Array` of (hi, lo) word pairs, doubled when 70% full. No object per
 * fingerprint, so a set of n fingerprints costs 11–23 bytes each and the garbage collector never
 * walks it. Volatile: for crawls that fit in memory, the simulator, and as the uncommitted-write
 * buffer of `DiskSeenSet`.
 *
 * The all-zero pair marks an empty slot, so the fingerprint 0 is kept in a flag of its own.
 */
import { releaseMemory } from '../core/release-memory.js';
import {
  WORD_OFFSET,
  fingerprintWords,
  lifecycleError,
  mixWords,
  splitFingerprint,
  type Fingerprints,
  type SeenSet,
  type SeenSetSpec,
} from './seen-set.js';

/** Options of {@link MemorySeenSet}. */
export interface MemorySeenSetOptions {
  /** Fingerprints the set holds before its first doubling; rounded up to a power of two. Default 1,024. */
  readonly initialCapacity?: number;
}

/** Linear probing stays short (about 2 probes for a hit, 6 for a miss) up to this load. */
const MAX_LOAD = 0.7;
const DEFAULT_INITIAL_CAPACITY = 1024;
const NAME = 'MemorySeenSet';

/** In-memory {@link SeenSet}; see the file comment. Usable without `start()`. */
export class MemorySeenSet implements SeenSet {
  readonly spec: SeenSetSpec;
  readonly isDurable = false;
  /** Word pairs: slot s holds (hi, lo) at (2s, 2s + 1); (0, 0) is empty. */
  private slots: Uint32Array;
  /** Slot count minus one (slot count is a power of two). */
  private mask: number;
  /** Occupied slots (the fingerprint 0 is not in a slot). */
  private used = 0;
  private growAt: number;
  private hasZero = false;
  private readonly initialSlots: number;
  private isClosed = false;
  private closing: Promise<void> | null = null;

  constructor(options: MemorySeenSetOptions = {}) {
    const initial = options.initialCapacity ?? DEFAULT_INITIAL_CAPACITY;
    if (!Number.isInteger(initial) || initial < 1) throw new RangeError(`initialCapacity must be a positive integer, got ${initial}`);
    this.initialSlots = slotsFor(initial);
    this.slots = new Uint32Array(2 * this.initialSlots);
    this.mask = this.initialSlots - 1;
    this.growAt = Math.floor(this.initialSlots * MAX_LOAD);
    this.spec = { id: 'memory', params: { initialCapacity: initial } };
  }

  get size(): number {
    return this.used + (this.hasZero ? 1 : 0);
  }

  /** Bytes held by the table (it only grows, until {@link clear}). */
  get byteLength(): number {
    return this.slots.byteLength;
  }

  /** Nothing to open: resolves at once (the set is usable from construction). */
  async start(): Promise<void> {
    this.check('start');
  }

  async addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    return this.addBatchSync(fingerprints);
  }

  async has(fingerprint: bigint): Promise<boolean> {
    return this.hasSync(fingerprint);
  }

  /** The synchronous form of {@link addBatch}, for callers that hold no event loop turn to spare. */
  addBatchSync(fingerprints: Fingerprints): Uint8Array {
    this.check('addBatch');
    const words = fingerprintWords(fingerprints);
    const n = words.length >>> 1;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (this.addWords(words[2 * i + WORD_OFFSET.hi]!, words[2 * i + WORD_OFFSET.lo]!)) out[i] = 1;
    }
    return out;
  }

  /** The synchronous form of {@link has}. */
  hasSync(fingerprint: bigint): boolean {
    this.check('has');
    const [hi, lo] = splitFingerprint(fingerprint);
    return this.hasWords(hi, lo);
  }

  /**
   * Inserts the fingerprint given as unsigned 32-bit words (`hi * 2^32 + lo`); true when it was not
   * in the set. The allocation-free form, for callers that already hold words.
   */
  addWords(hi: number, lo: number): boolean {
    if ((hi | lo) === 0) {
      if (this.hasZero) return false;
      this.hasZero = true;
      return true;
    }
    const s = this.slots;
    const i = this.probe(hi, lo);
    if ((s[i]! | s[i + 1]!) !== 0) return false;
    s[i] = hi;
    s[i + 1] = lo;
    if (++this.used > this.growAt) this.grow();
    return true;
  }

  /** Whether the fingerprint given as unsigned 32-bit words is in the set. */
  hasWords(hi: number, lo: number): boolean {
    if ((hi | lo) === 0) return this.hasZero;
    const i = this.probe(hi, lo);
    return (this.slots[i]! | this.slots[i + 1]!) !== 0;
  }

  /**
   * Linear probing for a non-zero fingerprint: the index of its slot, or of the empty slot where it
   * would go (a table is never full: it grows past {@link MAX_LOAD}).
   */
  private probe(hi: number, lo: number): number {
    const s = this.slots;
    const wrap = 2 * this.mask + 1;
    let i = (mixWords(hi, lo) & this.mask) << 1;
    for (;;) {
      const h = s[i]!;
      const l = s[i + 1]!;
      if ((h === hi && l === lo) || (h | l) === 0) return i;
      i = (i + 2) & wrap;
    }
  }

  /**
   * Every fingerprint of the set in ascending numeric order, as (hi, lo) word pairs: element `i` at
   * `2i` (hi) and `2i + 1` (lo). For merging the set into a sorted file (`disk-seen-set.ts`).
   */
  sortedWords(): Uint32Array {
    const values = new BigUint64Array(this.size);
    const w = new Uint32Array(values.buffer);
    let n = 0;
    if (this.hasZero) n++;
    const s = this.slots;
    for (let i = 0; i < s.length; i += 2) {
      const hi = s[i]!;
      const lo = s[i + 1]!;
      if ((hi | lo) === 0) continue;
      w[2 * n + WORD_OFFSET.hi] = hi;
      w[2 * n + WORD_OFFSET.lo] = lo;
      n++;
    }
    values.sort();
    const out = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      out[2 * i] = w[2 * i + WORD_OFFSET.hi]!;
      out[2 * i + 1] = w[2 * i + WORD_OFFSET.lo]!;
    }
    releaseMemory(values);
    return out;
  }

  /** Empties the set and gives back memory beyond the initial capacity. */
  clear(): void {
    if (this.slots.length === 2 * this.initialSlots) this.slots.fill(0);
    else {
      releaseMemory(this.slots);
      this.allocate(this.initialSlots);
    }
    this.used = 0;
    this.hasZero = false;
  }

  /** Volatile: nothing to make durable. */
  async flush(): Promise<void> {
    this.check('flush');
  }

  /** Drops the table. Idempotent; every later call but `close` rejects. */
  close(): Promise<void> {
    // The Contract asks every call to return the same promise.
    this.closing ??= (async () => {
      this.isClosed = true;
      releaseMemory(this.slots);
      this.slots = new Uint32Array(2);
      this.mask = 0;
      this.used = 0;
      this.hasZero = false;
    })();
    return this.closing;
  }

  private check(method: string): void {
    if (this.isClosed) throw lifecycleError(NAME, method, 'closed');
  }

  private grow(): void {
    this.resize((this.mask + 1) * 2);
  }

  /** Rehashes every occupied slot into a table of `slotCount` slots. */
  private resize(slotCount: number): void {
    const old = this.slots;
    this.allocate(slotCount);
    this.used = 0;
    // Old pairs are distinct and non-zero: insertion cannot fail, find them, or trigger growth.
    for (let i = 0; i < old.length; i += 2) {
      const hi = old[i]!;
      const lo = old[i + 1]!;
      if ((hi | lo) !== 0) this.addWords(hi, lo);
    }
    // A table that grew has lived long enough to reach the old generation: give it back now.
    releaseMemory(old);
  }

  private allocate(slotCount: number): void {
    this.slots = new Uint32Array(2 * slotCount);
    this.mask = slotCount - 1;
    this.growAt = Math.floor(slotCount * MAX_LOAD);
  }
}

/** Smallest power of two whose table holds `capacity` fingerprints under {@link MAX_LOAD}. */
function slotsFor(capacity: number): number {
  let slots = 8;
  while (Math.floor(slots * MAX_LOAD) < capacity) slots *= 2;
  return slots;
}
