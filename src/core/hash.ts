/**
 * Small pure hash pieces shared by the URL fingerprints (`url/fingerprint.ts`), SimHash
 * (`dedup/simhash.ts`) and the tables keyed by fingerprint (`core/fingerprint-map.ts`,
 * `frontier/slot-table.ts`). `fmix32`'s outputs are recorded in crawl directories, through the
 * fingerprints, so it never changes; `slotHash` only places keys in memory.
 */

/** Murmur3's 32-bit finalizer: every input bit flips each output bit with probability about 1/2. Signed result. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * The home slot of a 64-bit fingerprint (two u32 words) in an open-addressing table, before the
 * table's mask: both words are mixed, because fingerprints made by hand often differ in their low
 * bits only.
 */
export function slotHash(hi: number, lo: number): number {
  return fmix32(Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo);
}
