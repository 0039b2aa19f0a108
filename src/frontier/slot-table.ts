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
 * Freed slots are reused (a stack of free slots), so the columns grow to the largest number of
 * URLs held at once, never more: 46 bytes per slot, plus the frontier's fingerprint index.
 */

/** The columns of held URLs, grown by doubling; see the file comment. */
export class SlotTable {
  hi: Uint32Array;
  lo: Uint32Array;
  priority: Float64Array;
  seq: Float64Array;
  attempt: Uint16Array;
  host: Int32Array;
  pos: Int32Array;
  ref: Float64Array;
  private free: Int32Array;
  private freeCount = 0;
  /** Slots ever used: every live slot is below this. */
  private top = 0;
  private live = 0;

  constructor(initialCapacity = 1024) {
    const n = Math.max(16, initialCapacity);
    this.hi = new Uint32Array(n);
    this.lo = new Uint32Array(n);
    this.priority = new Float64Array(n);
    this.seq = new Float64Array(n);
    this.attempt = new Uint16Array(n);
    this.host = new Int32Array(n);
    this.pos = new Int32Array(n);
    this.ref = new Float64Array(n);
    this.free = new Int32Array(n);
  }

  /** Slots in use. */
  get size(): number {
    return this.live;
  }

  /** Slots the columns have room for. */
  get capacity(): number {
    return this.hi.length;
  }

  /** Bytes held by the columns. */
  get byteLength(): number {
    return this.capacity * 46;
  }

  /** Takes a free slot (its columns hold stale values: the caller sets every one). */
  allocate(): number {
    this.live++;
    if (this.freeCount > 0) return this.free[--this.freeCount] as number;
    if (this.top === this.capacity) this.grow();
    return this.top++;
  }

  /** Gives a slot back. */
  release(slot: number): void {
    this.live--;
    this.pos[slot] = -1;
    this.free[this.freeCount++] = slot;
  }

  private grow(): void {
    const n = this.capacity * 2;
    const grown = <T extends Uint32Array | Float64Array | Uint16Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(n);
      next.set(old);
      return next;
    };
    this.hi = grown(this.hi, (k) => new Uint32Array(k));
    this.lo = grown(this.lo, (k) => new Uint32Array(k));
    this.priority = grown(this.priority, (k) => new Float64Array(k));
    this.seq = grown(this.seq, (k) => new Float64Array(k));
    this.attempt = grown(this.attempt, (k) => new Uint16Array(k));
    this.host = grown(this.host, (k) => new Int32Array(k));
    this.pos = grown(this.pos, (k) => new Int32Array(k));
    this.ref = grown(this.ref, (k) => new Float64Array(k));
    this.free = grown(this.free, (k) => new Int32Array(k));
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

  constructor(private readonly t: SlotTable, initialCapacity = 8) {
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
    const p = this.t.priority;
    const pa = p[a] as number;
    const pb = p[b] as number;
    return pa > pb || (pa === pb && (this.t.seq[a] as number) < (this.t.seq[b] as number));
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
    this.t.pos[top] = -1;
    const last = this.items[--this.count] as number;
    if (this.count > 0) this.siftDown(0, last);
    this.shrinkIfSparse();
    return top;
  }

  /** Removes `slot` if this heap holds it. @returns whether it did. */
  remove(slot: number): boolean {
    const i = this.t.pos[slot] as number;
    if (i < 0 || i >= this.count || this.items[i] !== slot) return false;
    this.t.pos[slot] = -1;
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
    const i = this.t.pos[slot] as number;
    if (i < 0 || i >= this.count || this.items[i] !== slot) return false;
    this.siftUp(i, slot);
    if (this.t.pos[slot] === i) this.siftDown(i, slot);
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
    const pos = this.t.pos;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      const p = items[parent] as number;
      if (!this.before(slot, p)) break;
      items[i] = p;
      pos[p] = i;
      i = parent;
    }
    items[i] = slot;
    pos[slot] = i;
  }

  private siftDown(i: number, slot: number): void {
    const items = this.items;
    const pos = this.t.pos;
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
      pos[c] = i;
      i = child;
    }
    items[i] = slot;
    pos[slot] = i;
  }

  /** A host's heap that held thousands of URLs once should not keep that room for ever. */
  private shrinkIfSparse(): void {
    const cap = this.items.length;
    if (cap > 64 && this.count < cap >>> 2) this.items = this.items.slice(0, cap >>> 1);
  }
}
