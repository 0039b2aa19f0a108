/**
 * The distinct valid targets of one fetched page, in document order, the page itself left out.
 * Policies count each (page, target) pair once (a page linking twice to a URL is one in-link of it),
 * count no link of a page to itself (it says nothing of the page's standing; the ground truth's
 * graph and the importance metrics of `src/eval/importance.ts` leave self-links out too, so IB′ and
 * IR′ tend to IB and IR as the crawl sees the whole Web), and skip ids that cannot name a URL (-1
 * when the caller numbers no URLs, fractions, negatives).
 *
 * A stamp per id marks the targets met in the current call, so deduplication costs O(links) with no
 * clearing between pages.
 */
import { PagedArray } from '../core/paged-arrays.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { isUrlId } from './id-arrays.js';

/** Deduplicates a page's out-link ids; see the file comment. */
export class DistinctLinks {
  /** The distinct targets of the last call, valid below `count`. Reused by the next call. */
  targets = new Uint32Array(64);
  /** Number of distinct valid targets of the last call. */
  count = 0;
  private readonly stamp = new PagedArray(Int32Array);
  private generation = 0;

  /** Fills `targets`/`count` with the distinct valid ids of `outIds` other than `self`, first occurrence order; returns `count`. */
  of(outIds: ArrayLike<number>, self: number): number {
    if (this.generation === 0x7fffffff) {
      this.stamp.clear();
      this.generation = 0;
    }
    const generation = ++this.generation;
    let count = 0;
    const n = outIds.length;
    for (let i = 0; i < n; i++) {
      const id = outIds[i] as number;
      if (!isUrlId(id) || id === self) continue;
      if (this.stamp.get(id) === generation) continue;
      this.stamp.set(id, generation);
      if (count === this.targets.length) this.targets = withRoomFor(this.targets, count + 1);
      this.targets[count++] = id;
    }
    this.count = count;
    return count;
  }
}
