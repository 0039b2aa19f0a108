/**
 * Where each id of a small batch sits in the batch's own array: an open-addressing table of
 * 1 + position, whose keys are read back from the batch array rather than stored twice. The batch
 * (one page's distinct out-links, one `observe`'s priority changes) is deduplicated in O(its size)
 * with memory that follows the batch, not the ids: a flat table or a stamp per URL id would cost
 * 4 bytes for every URL the node numbers (a million or more), for batches of a few dozen.
 *
 * Linear probing with Fibonacci hashing, at most half full; doubled as the batch grows, and given
 * back after a large batch once small ones follow. Emptied in O(batch) by deleting the keys in the
 * reverse order of their insertion: with linear probing and no other deletions, every slot on a
 * key's probe path holds a key inserted before it, so each is still found when it is deleted.
 */

const MIN_BITS = 6;
/** A table this large (slots) is given back when a batch uses less than 1/64 of it. */
const SHRINK_FROM_BITS = 16;

/** Position of each id in a batch array; see the file comment. */
export class BatchIndex {
  private bits = MIN_BITS;
  private slots = new Int32Array(1 << MIN_BITS);

  /** Position of `id` in `keys[0 .. n)` (the batch, every entry added here), or -1. */
  find(id: number, keys: ArrayLike<number>): number {
    const { slots } = this;
    const mask = slots.length - 1;
    for (let s = this.home(id); ; s = (s + 1) & mask) {
      const entry = slots[s] as number;
      if (entry === 0) return -1;
      if (keys[entry - 1] === id) return entry - 1;
    }
  }

  /**
   * Records that `keys[at]` (an id not in the batch yet) is at position `at`; `at` is the batch's
   * size before it was appended, so `keys[0 .. at]` is the batch afterwards.
   */
  add(at: number, keys: ArrayLike<number>): void {
    if (2 * (at + 1) > this.slots.length) this.rebuild(this.bits + 1, keys, at);
    this.place(at, keys);
  }

  /** Empties the index of the batch `keys[0 .. n)`. */
  clear(keys: ArrayLike<number>, n: number): void {
    if (this.bits >= SHRINK_FROM_BITS && 64 * n < this.slots.length) {
      this.bits = MIN_BITS;
      this.slots = new Int32Array(1 << MIN_BITS);
      return;
    }
    if (8 * n >= this.slots.length) {
      this.slots.fill(0);
      return;
    }
    const { slots } = this;
    const mask = slots.length - 1;
    for (let i = n - 1; i >= 0; i--) {
      let s = this.home(keys[i] as number);
      while (slots[s] !== i + 1) s = (s + 1) & mask;
      slots[s] = 0;
    }
  }

  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> (32 - this.bits);
  }

  private place(at: number, keys: ArrayLike<number>): void {
    const { slots } = this;
    const mask = slots.length - 1;
    let s = this.home(keys[at] as number);
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = at + 1;
  }

  /** A table of 2^bits slots holding positions 0 .. n − 1. */
  private rebuild(bits: number, keys: ArrayLike<number>, n: number): void {
    this.bits = bits;
    this.slots = new Int32Array(1 << bits);
    for (let i = 0; i < n; i++) this.place(i, keys);
  }
}
