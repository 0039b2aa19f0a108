/**
 * Domain hashing (SPEC §4.1; seed 003 §3.3, site hashing in seed 000 §3):
 *
 *   partition(u) = ⌊h(registrable domain of u's host) · n / 2^32⌋
 *
 * Host hashing one level up: `www.example.co.uk`, `shop.example.co.uk` and `example.co.uk` share a
 * partition, so links between the hosts of one organisation stay local too, at the cost of coarser
 * (less balanced) units. The registrable domain comes from the Public Suffix List (tldts), private
 * suffixes counted as in `url/scope.ts`. Names it does not know, such as the test web's `.test`,
 * take the last two labels (`www.something.test` → `something.test`); IP addresses, `localhost`,
 * single-label names and bare suffixes fall back to the host name itself (`registrableDomainOf` in
 * `hash-key.ts`, with h and the range reduction).
 */
import { HashKey, KeyHashPartitioner } from './hash-key.js';

/** `domain-hash`: each URL goes to the partition of the hash of its host's registrable domain. */
export class DomainHashPartitioner extends KeyHashPartitioner {
  /** @param partitionCount n, an integer in [1, 65,536]. */
  constructor(partitionCount: number) {
    super('domain-hash', HashKey.domain, partitionCount);
  }
}
