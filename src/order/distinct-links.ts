/**
 * The distinct valid targets of one fetched page, in document order, the page itself left out.
 * Policies count each (page, target) pair once (a page linking twice to a URL is one in-link of it),
 * count no link of a page to itself (it says nothing of the page's standing; the ground truth's
 * graph and the importance metrics of `src/eval/importance.ts` leave self-links out too, so IB′ and
 * IR′ tend to IB and IR as the crawl sees the whole Web), and skip ids that cannot name a URL (-1
 * when the caller numbers no URLs, fractions, negatives).
 *
 * A {@link BatchIndex} over the targets found so far deduplicates in O(links), with memory that
 * follows the page's links rather than the number of URLs the node knows.
 */
import { withRoomFor } from '../core/typed-arrays.js';
import { BatchIndex } from './batch-index.js';
import { isUrlId } from './id-arrays.js';

/** Deduplicates a page's out-link ids; see the file comment. */
export class DistinctLinks {
  /** The distinct targets of the last call, valid below `count`. Reused by the next call. */
  targets = new Uint32Array(64);
  /** Number of distinct valid targets of the last call. */
  count = 0;
  private readonly index = new BatchIndex();

  /** Fills `targets`/`count` with the distinct valid ids of `outIds` other than `self`, first occurrence order; returns `count`. */
  of(outIds: ArrayLike<number>, self: number): number {
    this.index.clear(this.targets, this.count);
    let count = 0;
    const n = outIds.length;
    for (let i = 0; i < n; i++) {
      const id = outIds[i] as number;
      if (!isUrlId(id) || id === self) continue;
      if (this.index.find(id, this.targets) >= 0) continue;
      if (count === this.targets.length) this.targets = withRoomFor(this.targets, count + 1);
      this.targets[count] = id;
      this.index.add(count, this.targets);
      count++;
    }
    this.count = count;
    return count;
  }
}
