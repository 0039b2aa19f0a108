/**
 * Host hashing (SPEC §4.1; seed 000 §3, seed 003 §3.3):
 *
 *   partition(u) = ⌊h(host name of u) · n / 2^32⌋
 *
 * All URLs of a server go to one partition, so politeness toward it is enforced by one node and the
 * many links between pages of one site stay local (p_l ≥ the share of same-host links). The price is
 * balance: a node's load is the sum of its hosts' sizes, and the Web's site sizes are heavy-tailed.
 * The host name is hashed without its port, as normalization returned it (lower-case, punycode, IPv6
 * in brackets). h and the range reduction: `hash-key.ts`.
 */
import { HashKey, KeyHashPartitioner } from './hash-key.js';

/** `host-hash`: each URL goes to the partition of the hash of its host name. */
export class HostHashPartitioner extends KeyHashPartitioner {
  /** @param partitionCount n, an integer in [1, 65,536]. */
  constructor(partitionCount: number) {
    super('host-hash', HashKey.host, partitionCount);
  }
}
