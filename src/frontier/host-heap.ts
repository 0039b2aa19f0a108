/**
 * An indexed binary min-heap: the "heap of hosts keyed by the earliest time each may be contacted
 * again" of the Mercator frontier (seed 001, SPEC §2 item 5), written once and reused by the memory
 * frontier for every ordered set it keeps (URLs by priority, hosts by time, IP groups by their best
 * URL).
 *
 * Each item carries its own slot number (`heapIndex`), kept current by the heap, so removing an item
 * or re-sorting it after its key changed costs O(log n) with no search and no stale copies left
 * behind (the alternative, lazy deletion, would let dead entries pile up for hosts that change their
 * time on every fetch). The order is whatever `before` says; it must be a strict weak order, and
 * callers that want determinism break ties themselves (by a sequence number, say), because a binary
 * heap is not stable.
 *
 * An item lives in at most one heap at a time: the slot number is shared.
 */

/** What an item needs to live in a {@link HostHeap}: the slot the heap keeps it in, −1 when outside. */
export interface HeapSlot {
  heapIndex: number;
}

/** The slot number of an item that is in no heap. */
export const NOT_IN_HEAP = -1;

/** An indexed binary min-heap ordered by `before`; see the file comment. */
export class HostHeap<T extends HeapSlot> {
  private readonly items: T[] = [];
  private readonly before: (a: T, b: T) => boolean;

  /** @param before true when `a` must come out before `b` (a strict weak order). */
  constructor(before: (a: T, b: T) => boolean) {
    this.before = before;
  }

  /** Number of items held. */
  get size(): number {
    return this.items.length;
  }

  /** The first item, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Whether `item` is held by this heap (not merely by some heap). */
  has(item: T): boolean {
    const i = item.heapIndex;
    return i >= 0 && i < this.items.length && this.items[i] === item;
  }

  /**
   * Inserts `item`. O(log n).
   * @throws Error if the item is already in a heap: two heaps sharing one slot number would corrupt both.
   */
  push(item: T): void {
    if (item.heapIndex !== NOT_IN_HEAP) throw new Error(`HostHeap: item is already in a heap (slot ${item.heapIndex})`);
    this.items.push(item);
    this.siftUp(this.items.length - 1, item);
  }

  /** Removes and returns the first item, or undefined when empty. O(log n). */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  /** Removes `item` if this heap holds it; returns whether it did. O(log n). */
  remove(item: T): boolean {
    if (!this.has(item)) return false;
    this.removeAt(item.heapIndex);
    return true;
  }

  /**
   * Restores the order after `item`'s key changed, in either direction. O(log n).
   * @returns false (and does nothing) if this heap does not hold the item.
   */
  update(item: T): boolean {
    if (!this.has(item)) return false;
    const i = item.heapIndex;
    const parent = (i - 1) >> 1;
    if (i > 0 && this.before(item, this.items[parent] as T)) this.siftUp(i, item);
    else this.siftDown(i, item);
    return true;
  }

  /** Restores the order after many keys changed at once. O(n). */
  heapify(): void {
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.siftDown(i, this.items[i] as T);
  }

  /** Removes every item (their slots are reset). O(n). */
  clear(): void {
    for (const item of this.items) item.heapIndex = NOT_IN_HEAP;
    this.items.length = 0;
  }

  /**
   * Checks the heap order and every slot number; O(n), for tests and debugging.
   * @throws Error naming the first broken slot.
   */
  validate(): void {
    const n = this.items.length;
    for (let i = 0; i < n; i++) {
      const item = this.items[i] as T;
      if (item.heapIndex !== i) throw new Error(`HostHeap: item at slot ${i} believes it is at ${item.heapIndex}`);
      if (i > 0 && this.before(item, this.items[(i - 1) >> 1] as T)) throw new Error(`HostHeap: slot ${i} comes before its parent`);
    }
  }

  private removeAt(i: number): void {
    const removed = this.items[i] as T;
    const last = this.items.pop() as T;
    removed.heapIndex = NOT_IN_HEAP;
    if (last === removed) return;
    // The last item fills the hole; it may belong above or below it.
    this.items[i] = last;
    last.heapIndex = i;
    if (i > 0 && this.before(last, this.items[(i - 1) >> 1] as T)) this.siftUp(i, last);
    else this.siftDown(i, last);
  }

  // Both sifts move a hole instead of swapping, writing each moved item once.
  private siftUp(start: number, item: T): void {
    let i = start;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = this.items[parentIndex] as T;
      if (!this.before(item, parent)) break;
      this.items[i] = parent;
      parent.heapIndex = i;
      i = parentIndex;
    }
    this.items[i] = item;
    item.heapIndex = i;
  }

  private siftDown(start: number, item: T): void {
    const n = this.items.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      let childItem = this.items[left] as T;
      if (right < n) {
        const rightItem = this.items[right] as T;
        if (this.before(rightItem, childItem)) {
          child = right;
          childItem = rightItem;
        }
      }
      if (!this.before(childItem, item)) break;
      this.items[i] = childItem;
      childItem.heapIndex = i;
      i = child;
    }
    this.items[i] = item;
    item.heapIndex = i;
  }
}
