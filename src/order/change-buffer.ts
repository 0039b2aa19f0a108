/**
 * The {@link PriorityChanges} a policy returns from `observe`, built without allocation: parallel
 * growable arrays, reused from call to call (the Contract lets the caller read them only before its
 * next call), and at most one entry per id per batch: a later `set` of the same id overwrites the
 * earlier one, so the frontier is never asked twice for one URL.
 */
import { PagedArray } from '../core/paged-arrays.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { isUrlId } from './id-arrays.js';
import type { PriorityChanges } from './policy.js';

/** A reusable batch of priority changes; see the file comment. */
export class ChangeBuffer implements PriorityChanges {
  /** Entries in the current batch. */
  length = 0;
  /** Ids of the batch, valid below `length`. */
  ids = new Uint32Array(16);
  /** New priorities, parallel to `ids`. */
  priorities = new Float64Array(16);
  /** Per id: 1 + its index in the current batch, 0 when absent. */
  private readonly slotOf = new PagedArray(Int32Array);

  /** Empties the batch (O(entries)); call at the start of each `observe`. */
  reset(): this {
    for (let i = 0; i < this.length; i++) this.slotOf.set(this.ids[i] as number, 0);
    this.length = 0;
    return this;
  }

  /** Records that `id` now has `priority` (finite; ignored otherwise, as is an invalid id). */
  set(id: number, priority: number): void {
    if (!isUrlId(id) || !Number.isFinite(priority)) return;
    const slot = this.slotOf.get(id);
    if (slot > 0) {
      this.priorities[slot - 1] = priority;
      return;
    }
    this.ids = withRoomFor(this.ids, this.length + 1);
    this.priorities = withRoomFor(this.priorities, this.length + 1);
    this.ids[this.length] = id;
    this.priorities[this.length] = priority;
    this.slotOf.set(id, ++this.length);
  }
}
