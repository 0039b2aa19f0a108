/**
 * What a revisit's links add to what the crawl knows (docs/recrawl.md, "Links of a revisit"). A
 * page is offered to the ordering policy, the link graph and admission (and so to the link
 * summaries other nodes count backlinks from) once per link: a revisit of an unchanged page offers
 * nothing (its links are not even parsed), and a changed page offers only the links it did not have
 * at its last visit. For that the revisit schedule keeps each page's link set: the 64-bit
 * fingerprints of its distinct link targets, sorted, as base64 (8 bytes a link, about 11 characters
 * in `revisits.jsonl` and in memory).
 */

/** The link set of a page whose links' fingerprints are `fingerprints[2i], fingerprints[2i + 1]`, i < `count`. */
export function linkSetOf(fingerprints: Uint32Array, count: number): string {
  const keys: bigint[] = [];
  for (let i = 0; i < count; i++) keys.push((BigInt(fingerprints[2 * i] as number) << 32n) | BigInt(fingerprints[2 * i + 1] as number));
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out = Buffer.alloc(keys.length * 8);
  let n = 0;
  for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[i - 1]) out.writeBigUInt64LE(keys[i] as bigint, 8 * n++);
  return out.subarray(0, 8 * n).toString('base64');
}

/**
 * Which of a page's links (fingerprints as in {@link linkSetOf}) are not in `previous`, a link set
 * of its last visit: 1 for a new link, 0 for one it had.
 */
export function newLinksOf(previous: string, fingerprints: Uint32Array, count: number): Uint8Array {
  const bytes = Buffer.from(previous, 'base64');
  const known = new Set<bigint>();
  for (let at = 0; at + 8 <= bytes.length; at += 8) known.add(bytes.readBigUInt64LE(at));
  const isNew = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const key = (BigInt(fingerprints[2 * i] as number) << 32n) | BigInt(fingerprints[2 * i + 1] as number);
    isNew[i] = known.has(key) ? 0 : 1;
  }
  return isNew;
}

/** A page's links (with their hostnames and fingerprints, parallel) that are not in `previous`, in document order. */
export function onlyNewLinks<L>(
  previous: string,
  links: readonly L[],
  hostnames: readonly string[],
  fingerprints: Uint32Array,
): { readonly links: readonly L[]; readonly hostnames: readonly string[]; readonly fingerprints: Uint32Array } {
  const isNew = newLinksOf(previous, fingerprints, links.length);
  const keep: number[] = [];
  for (let i = 0; i < links.length; i++) if (isNew[i] === 1) keep.push(i);
  const kept = new Uint32Array(2 * keep.length);
  keep.forEach((from, to) => kept.set(fingerprints.subarray(2 * from, 2 * from + 2), 2 * to));
  return { links: keep.map((i) => links[i] as L), hostnames: keep.map((i) => hostnames[i] as string), fingerprints: kept };
}
