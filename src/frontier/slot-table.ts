/**
 * The URLs a frontier holds, one *slot* each, as columns of typed arrays: no object per URL, so a
 * million queued URLs cost tens of megabytes and nothing for the garbage collector to walk.
 *
 * | column | type | meaning |
 * |---|---|---|
 * | `hi`, `lo` | uint32 | the URL's 64-bit fingerprint (`url/fingerprint.ts`): its identity |
 * | `priority` | float64 | from the ordering policy, higher first |
 * | `seq` | float64 | add order, breaks priority ties (FIFO); a safe integer |
 * | `attempt` | uint16 | 1 for the first try, saturating at 65,535 |
 * | `host` | int32 | the host record the URL belongs to (`slot-frontier.ts`) |
 * | `pos` | int32 | its index in the one {@link SlotHeap} that holds it, −1 when in none (in flight) |
 * | `ref` | float64 | the owner's payload reference: an entry index, a file offset, a page id |
 *
 * Freed slots are reused (chained through `pos`), so the columns grow to the largest number of URLs
 * held at once, never more: 42 bytes per slot, plus 6–12 bytes in the {@link SlotIndex}.
 */
import { slotHash } from '../core/hash.js';

const CHUNK_BITS = 16;
/** Slots per chunk: the columns grow 65,536 slots at a time, never copied. */
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;
/** `pos` of the last free slot in the free chain. */
const END_OF_FREE = -2;

/** One chunk of every column. */
class Chunk {
  readonly hi = new Uint32Array(CHUNK);
  readonly lo = new Uint32Array(CHUNK);
  readonly priority = new Float64Array(CHUNK);
  readonly seq = new Float64Array(CHUNK);
  readonly ref = new Float64Array(CHUNK);
  readonly host = new Int32Array(CHUNK);
  readonly pos = new Int32Array(CHUNK);
  readonly attempt = new Uint16Array(CHUNK);
}

/**
 * The columns of held URLs, in chunks of 65,536 slots: the table grows a chunk at a time, so it
 * never holds more than one chunk of spare room and never copies what it holds (a doubling table
 * would hold the old and the new copy at once, at the worst moment). Free slots are chained through
 * their `pos` column. See the file comment.
 */
export class SlotTable {
  private readonly chunks: Chunk[] = [];
  /** First free slot, or END_OF_FREE. */
  private freeHead = END_OF_FREE;
  /** Slots ever used: every live slot is below this. */
  private top = 0;
  private live = 0;

  /** Slots in use. */
  get size(): number {
    return this.live;
  }

  /** Slots the columns have room for. */
  get capacity(): number {
    return this.chunks.length * CHUNK;
  }

  /** Bytes held by the columns. */
  get byteLength(): number {
    return this.capacity * 42;
  }

  hiOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).hi[slot & MASK] as number;
  }
  loOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).lo[slot & MASK] as number;
  }
  priorityOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).priority[slot & MASK] as number;
  }
  seqOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).seq[slot & MASK] as number;
  }
  refOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).ref[slot & MASK] as number;
  }
  hostOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).host[slot & MASK] as number;
  }
  posOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).pos[slot & MASK] as number;
  }
  attemptOf(slot: number): number {
    return (this.chunks[slot >>> CHUNK_BITS] as Chunk).attempt[slot & MASK] as number;
  }

  setPriority(slot: number, value: number): void {
    (this.chunks[slot >>> CHUNK_BITS] as Chunk).priority[slot & MASK] = value;
  }
  setRef(slot: number, value: number): void {
    (this.chunks[slot >>> CHUNK_BITS] as Chunk).ref[slot & MASK] = value;
  }
  setPos(slot: number, value: number): void {
    (this.chunks[slot >>> CHUNK_BITS] as Chunk).pos[slot & MASK] = value;
  }
  /** Sets the attempt count, saturating at 65,535. */
  setAttempt(slot: number, value: number): void {
    (this.chunks[slot >>> CHUNK_BITS] as Chunk).attempt[slot & MASK] = Math.min(value, 0xffff);
  }

  /** Takes a free slot and fills every column of it. */
  allocate(hi: number, lo: number, priority: number, seq: number, attempt: number, host: number): number {
    let slot: number;
    if (this.freeHead !== END_OF_FREE) {
      slot = this.freeHead;
      this.freeHead = this.posOf(slot);
    } else {
      if (this.top === this.capacity) this.chunks.push(new Chunk());
      slot = this.top++;
    }
    this.live++;
    const c = this.chunks[slot >>> CHUNK_BITS] as Chunk;
    const i = slot & MASK;
    c.hi[i] = hi;
    c.lo[i] = lo;
    c.priority[i] = priority;
    c.seq[i] = seq;
    c.attempt[i] = Math.min(attempt, 0xffff);
    c.host[i] = host;
    c.pos[i] = -1;
    c.ref[i] = 0;
    return slot;
  }

  /** Gives a slot back (it must be in no heap). */
  release(slot: number): void {
    this.live--;
    this.setPos(slot, this.freeHead);
    this.freeHead = slot;
  }
}

/**
 * An indexed binary heap of slots, best first: higher `priority`, then lower `seq`. Each slot's
 * index in the heap is kept in the table's `pos` column, so removing a slot or re-sorting it after
 * its priority changed costs O(log n) with no search. A slot lives in at most one heap at a time.
 */
export class SlotHeap {
  private items: Int32Array;
  private count = 0;

  constructor(
    private readonly t: SlotTable,
    initialCapacity = 8,
  ) {
    this.items = new Int32Array(Math.max(4, initialCapacity));
  }

  get size(): number {
    return this.count;
  }

  /** The best slot, or −1 when empty. */
  peek(): number {
    return this.count === 0 ? -1 : (this.items[0] as number);
  }

  /** Whether slot `a` comes out before slot `b`. */
  before(a: number, b: number): boolean {
    const t = this.t;
    const pa = t.priorityOf(a);
    const pb = t.priorityOf(b);
    return pa > pb || (pa === pb && t.seqOf(a) < t.seqOf(b));
  }

  push(slot: number): void {
    if (this.count === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.siftUp(this.count++, slot);
  }

  /** Removes and returns the best slot, or −1 when empty. */
  pop(): number {
    if (this.count === 0) return -1;
    const top = this.items[0] as number;
    this.t.setPos(top, -1);
    const last = this.items[--this.count] as number;
    if (this.count > 0) this.siftDown(0, last);
    this.shrinkIfSparse();
    return top;
  }

  /** Removes `slot` if this heap holds it. @returns whether it did. */
  remove(slot: number): boolean {
    const i = this.t.posOf(slot);
    if (i < 0 || i >= this.count || this.items[i] !== slot) return false;
    this.t.setPos(slot, -1);
    const last = this.items[--this.count] as number;
    if (i < this.count) {
      this.siftDown(i, last);
      if (this.items[i] === last) this.siftUp(i, last);
    }
    this.shrinkIfSparse();
    return true;
  }

  /** Re-sorts `slot` after its priority changed. @returns false if this heap does not hold it. */
  update(slot: number): boolean {
    const i = this.t.posOf(slot);
    if (i < 0 || i >= this.count || this.items[i] !== slot) return false;
    this.siftUp(i, slot);
    if (this.t.posOf(slot) === i) this.siftDown(i, slot);
    return true;
  }

  /** Rebuilds the heap order in O(n), after many priorities changed at once. */
  heapify(): void {
    for (let i = (this.count >>> 1) - 1; i >= 0; i--) this.siftDown(i, this.items[i] as number);
  }

  /** Calls `f` for every slot held, in no particular order. */
  forEach(f: (slot: number) => void): void {
    for (let i = 0; i < this.count; i++) f(this.items[i] as number);
  }

  private siftUp(i: number, slot: number): void {
    const items = this.items;
    const t = this.t;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      const p = items[parent] as number;
      if (!this.before(slot, p)) break;
      items[i] = p;
      t.setPos(p, i);
      i = parent;
    }
    items[i] = slot;
    t.setPos(slot, i);
  }

  private siftDown(i: number, slot: number): void {
    const items = this.items;
    const t = this.t;
    const n = this.count;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.before(items[right] as number, items[left] as number)) child = right;
      const c = items[child] as number;
      if (!this.before(c, slot)) break;
      items[i] = c;
      t.setPos(c, i);
      i = child;
    }
    items[i] = slot;
    t.setPos(slot, i);
  }

  /** A host's heap that held thousands of URLs once should not keep that room for ever. */
  private shrinkIfSparse(): void {
    const cap = this.items.length;
    if (cap > 64 && this.count < cap >>> 2) this.items = this.items.slice(0, cap >>> 1);
  }
}

/** Linear probing stays short up to this load. */
const MAX_INDEX_LOAD = 0.7;

/**
 * The fingerprint → slot index of a {@link SlotTable}: open addressing with linear probing over one
 * `Int32Array` of slot numbers (−1 empty). Keys are not stored twice: a cell's key is read from the
 * table's `hi` and `lo` columns. Backward-shift deletion, so probes stay short as URLs come and go.
 */
export class SlotIndex {
  private cells: Int32Array;
  private mask: number;
  private used = 0;
  private growAt: number;

  constructor(
    private readonly t: SlotTable,
    initialCapacity = 1024,
  ) {
    let n = 16;
    while (n * MAX_INDEX_LOAD < initialCapacity) n *= 2;
    this.cells = new Int32Array(n).fill(-1);
    this.mask = n - 1;
    this.growAt = Math.floor(n * MAX_INDEX_LOAD);
  }

  /** The slot holding fingerprint (hi, lo), or −1. */
  find(hi: number, lo: number): number {
    hi >>>= 0;
    lo >>>= 0;
    const cells = this.cells;
    const t = this.t;
    for (let c = slotHash(hi, lo) & this.mask; ; c = (c + 1) & this.mask) {
      const slot = cells[c] as number;
      if (slot < 0) return -1;
      if (t.hiOf(slot) === hi && t.loOf(slot) === lo) return slot;
    }
  }

  /** Indexes `slot` under the key in its `hi`/`lo` columns (not indexed yet). */
  insert(slot: number): void {
    let c = slotHash(this.t.hiOf(slot), this.t.loOf(slot)) & this.mask;
    while ((this.cells[c] as number) >= 0) c = (c + 1) & this.mask;
    this.cells[c] = slot;
    if (++this.used > this.growAt) this.grow();
  }

  /** Removes `slot` (indexed under its current key). */
  remove(slot: number): void {
    const cells = this.cells;
    const mask = this.mask;
    const t = this.t;
    let c = slotHash(t.hiOf(slot), t.loOf(slot)) & mask;
    while (cells[c] !== slot) {
      if ((cells[c] as number) < 0) throw new Error(`SlotIndex: slot ${slot} is not indexed`);
      c = (c + 1) & mask;
    }
    let hole = c;
    for (let d = (c + 1) & mask; ; d = (d + 1) & mask) {
      const s = cells[d] as number;
      if (s < 0) break;
      const home = slotHash(t.hiOf(s), t.loOf(s)) & mask;
      const isBetween = hole <= d ? home > hole && home <= d : home > hole || home <= d;
      if (isBetween) continue;
      cells[hole] = s;
      hole = d;
    }
    cells[hole] = -1;
    this.used--;
  }

  private grow(): void {
    const old = this.cells;
    const n = old.length * 2;
    this.cells = new Int32Array(n).fill(-1);
    this.mask = n - 1;
    this.growAt = Math.floor(n * MAX_INDEX_LOAD);
    this.used = 0;
    for (const slot of old) if (slot >= 0) this.insert(slot);
  }
}
