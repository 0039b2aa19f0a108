/**
 * URL hashing (SPEC §4.1; seed 000 §3, seed 003 §3.3):
 *
 *   partition(u) = ⌊h(normalized u) · n / 2^32⌋
 *
 * Every URL has exactly one owner, so no page is fetched twice (no overlap) and the load spreads
 * evenly however sites differ in size. The price: a link lands on the linking page's own partition
 * with probability p_l = 1/n, so (n − 1)/n of the extracted URLs are sent to other nodes, and
 * politeness toward one server is spread over every node. h and the range reduction: `hash-key.ts`.
 */
import { HashKey, KeyHashPartitioner } from './hash-key.js';

/** `url-hash`: each URL goes to the partition of the hash of its normalized form. */
export class UrlHashPartitioner extends KeyHashPartitioner {
  /** @param partitionCount n, an integer in [1, 65,536]. */
  constructor(partitionCount: number) {
    super('url-hash', HashKey.url, partitionCount);
  }
}
