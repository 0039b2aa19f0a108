/**
 * The out-links of fetched pages, appended page after page into one growable typed array: a
 * compressed sparse row graph in fetch order (page k's targets are `targets[start(k) .. end(k))`),
 * with no object per page or per link. Pages are named by a caller-chosen key (a URL id, or a dense
 * local index), found back through a key → page-number table.
 *
 * Append-only: a prefix (the first k pages) stays valid while later pages are added, which lets a
 * recomputation read a fixed snapshot of the graph while the crawl goes on (`rank-job.ts`). About
 * 4 bytes per link plus 12 bytes per page and 4 per key.
 */
import { PagedArray } from '../core/paged-arrays.js';
import { withRoomFor } from '../core/typed-arrays.js';

/** Out-links of fetched pages in fetch order; see the file comment. */
export class LinkLog {
  /** Link targets, page after page; valid below `linkCount`. */
  targets = new Uint32Array(1024);
  /** Pages logged. */
  pageCount = 0;
  /** Links logged. */
  linkCount = 0;
  /** Start of page k's links in `targets`; `starts[k + 1]` is its end. Valid up to `pageCount`. */
  starts = new Uint32Array(64);
  /** Key of page k, valid below `pageCount`. */
  keys = new Uint32Array(64);
  /** Per key: 1 + its page number, 0 when not logged. */
  private readonly pageOfKey = new PagedArray(Int32Array);

  /** Logs the page `key` (an integer >= 0, not logged before) with `targets[0 .. count)`; returns its page number. */
  append(key: number, targets: ArrayLike<number>, count: number): number {
    const k = this.pageCount;
    this.starts = withRoomFor(this.starts, k + 2);
    this.keys = withRoomFor(this.keys, k + 1);
    this.targets = withRoomFor(this.targets, this.linkCount + count);
    for (let i = 0; i < count; i++) this.targets[this.linkCount + i] = targets[i] as number;
    this.linkCount += count;
    this.keys[k] = key;
    this.starts[k + 1] = this.linkCount;
    this.pageOfKey.set(key, k + 1);
    this.pageCount = k + 1;
    return k;
  }

  /** Page number of `key`, or -1 when it was not logged. */
  pageOf(key: number): number {
    return Number.isInteger(key) && key >= 0 && key < 2 ** 31 ? this.pageOfKey.get(key) - 1 : -1;
  }

  /** Key of page `k` (k < pageCount). */
  keyOf(k: number): number {
    return this.keys[k] as number;
  }

  /** Index in `targets` of page k's first link. */
  start(k: number): number {
    return this.starts[k] as number;
  }

  /** Index in `targets` just past page k's last link. */
  end(k: number): number {
    return this.starts[k + 1] as number;
  }
}
