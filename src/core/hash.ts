/**
 * Small pure hash pieces shared by the URL fingerprints (`url/fingerprint.ts`) and SimHash
 * (`dedup/simhash.ts`). Their outputs are recorded in crawl directories, so they never change.
 */

/** Murmur3's 32-bit finalizer: every input bit flips each output bit with probability about 1/2. Signed result. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
