/**
 * IP hashing (SPEC §4.1; seed 003 §3.3):
 *
 *   partition(u) = ⌊h(resolved address of u's host) · n / 2^32⌋
 *
 * Every host on one address (shared hosting, a farm behind one IP) goes to one partition, so the
 * per-IP politeness limit is enforced by one node. `needsIp` is true: the node resolves a URL's host
 * before placing it. h and the range reduction: `hash-key.ts`.
 *
 * Fallback: when the address is unknown (`ip: null`: resolution failed, or the caller could not
 * resolve) the host name is hashed instead, so the URL still has one owner and all URLs of that host
 * still go together. Two nodes that disagree on whether a host resolves may place its URLs
 * differently; the page may then be fetched twice, which the overlap metric counts.
 */
import { HashKey, KeyHashPartitioner } from './hash-key.js';

/** `ip-hash`: each URL goes to the partition of the hash of its host's address (else its host name). */
export class IpHashPartitioner extends KeyHashPartitioner {
  /** @param partitionCount n, an integer in [1, 65,536]. */
  constructor(partitionCount: number) {
    super('ip-hash', HashKey.ip, partitionCount);
  }
}
