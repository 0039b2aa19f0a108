/**
 * The {@link PriorityChanges} a policy returns from `observe`, built without allocation: parallel
 * growable arrays, reused from call to call (the Contract lets the caller read them only before its
 * next call), and at most one entry per id per batch: a later `set` of the same id overwrites the
 * earlier one, so the frontier is never asked twice for one URL.
 *
 * Memory follows the batch: 12 bytes per entry and 8 per entry of the index that finds an id again.
 * A batch can name most of the queued URLs (a PageRank recomputation re-prioritizes up to a million
 * at once), so two things keep it from costing 20 bytes per queued URL for the life of the crawl:
 * - a **closing run** ({@link setClosing}) of ids the caller knows to be distinct (a sweep over the
 *   queued URLs that ends the batch) is looked up among the entries before it but not indexed
 *   itself, and sized exactly ({@link reserve}) rather than doubled;
 * - arrays grown past {@link KEEP_ENTRIES} entries are given back at the next `reset`, so a large
 *   batch costs memory while the caller reads it, not afterwards.
 */
import { withRoomFor } from '../core/typed-arrays.js';
import { BatchIndex } from './batch-index.js';
import { isUrlId } from './id-arrays.js';
import type { PriorityChanges } from './policy.js';

/** Entries a buffer keeps room for from one batch to the next; larger arrays are dropped at `reset`. */
export const KEEP_ENTRIES = 1 << 14;

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
  /** Entries [0, indexed) are in the index; those after it belong to the closing run. */
  private indexed = 0;

  /** Empties the batch (O(entries)); call at the start of each `observe`. */
  reset(): this {
    this.index.clear(this.ids, this.indexed);
    if (this.ids.length > KEEP_ENTRIES) {
      this.ids = new Uint32Array(16);
      this.priorities = new Float64Array(16);
    }
    this.length = 0;
    this.indexed = 0;
    return this;
  }

  /**
   * Records that `id` now has `priority` (finite; ignored otherwise, as is an invalid id).
   * @throws Error after {@link setClosing} appended an entry to this batch (a bug of the caller).
   */
  set(id: number, priority: number): void {
    if (!isUrlId(id) || !Number.isFinite(priority)) return;
    if (this.indexed !== this.length) throw new Error('ChangeBuffer: set() after the closing run of a batch; reset() first');
    const at = this.index.find(id, this.ids);
    if (at >= 0) {
      this.priorities[at] = priority;
      return;
    }
    this.append(id, priority);
    this.index.add(this.length - 1, this.ids);
    this.indexed = this.length;
  }

  /**
   * Records a change of the batch's closing run: `id` is named by no other call of the run, and no
   * `set` follows it before `reset`. An id already set earlier in the batch gets the new priority in
   * its entry; any other is appended without an index entry.
   */
  setClosing(id: number, priority: number): void {
    if (!isUrlId(id) || !Number.isFinite(priority)) return;
    const at = this.indexed > 0 ? this.index.find(id, this.ids) : -1;
    if (at >= 0) this.priorities[at] = priority;
    else this.append(id, priority);
  }

  /** Makes room for `extra` more entries, exactly: a caller that knows its batch's size spares the copies of doubling. */
  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.ids.length) return;
    const ids = new Uint32Array(need);
    const priorities = new Float64Array(need);
    ids.set(this.ids.subarray(0, this.length));
    priorities.set(this.priorities.subarray(0, this.length));
    this.ids = ids;
    this.priorities = priorities;
  }

  private append(id: number, priority: number): void {
    this.ids = withRoomFor(this.ids, this.length + 1);
    this.priorities = withRoomFor(this.priorities, this.length + 1);
    this.ids[this.length] = id;
    this.priorities[this.length] = priority;
    this.length++;
  }
}
