/**
 * The {@link PriorityChanges} a policy returns from `observe`, built without allocation: parallel
 * growable arrays, reused from call to call (the Contract lets the caller read them only before its
 * next call), and at most one entry per id per batch: a later `set` of the same id overwrites the
 * earlier one, so the frontier is never asked twice for one URL.
 */
import { withRoomFor } from '../core/typed-arrays.js';
import { BatchIndex } from './batch-index.js';
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
  /** Where each id sits in `ids`: memory that follows the batch, not the ids the node numbered. */
  private readonly index = new BatchIndex();

  /** Empties the batch (O(entries)); call at the start of each `observe`. */
  reset(): this {
    this.index.clear(this.ids, this.length);
    this.length = 0;
    return this;
  }

  /** Records that `id` now has `priority` (finite; ignored otherwise, as is an invalid id). */
  set(id: number, priority: number): void {
    if (!isUrlId(id) || !Number.isFinite(priority)) return;
    const at = this.index.find(id, this.ids);
    if (at >= 0) {
      this.priorities[at] = priority;
      return;
    }
    this.ids = withRoomFor(this.ids, this.length + 1);
    this.priorities = withRoomFor(this.priorities, this.length + 1);
    this.ids[this.length] = id;
    this.priorities[this.length] = priority;
    this.index.add(this.length, this.ids);
    this.length++;
  }
}
