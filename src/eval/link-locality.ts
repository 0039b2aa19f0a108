/**
 * Link locality p_l (SPEC §5; seed 000, Chung & Clarke, §3 "Hash-based collaboration"): the share
 * of (linking page, linked page) pairs that the partition puts on the same node,
 *
 *     p_l = |{ (u, v) ∈ L : owner(u) ∩ owner(v) ≠ ∅ }| / |{ (u, v) ∈ L : owner(u) ≠ ∅, owner(v) ≠ ∅ }|
 *
 * A uniform hash over pages gives p_l = 1/n (seed 000 §3); host hashing and topic partitioning
 * (SPEC §4.1, §4.2) aim higher, since most links stay on their site or topic.
 *
 * Two owner models:
 * - {@link linkLocality}, for a crawl: owner(p) = the set of nodes that downloaded p (empty when
 *   none did; several under overlap). A pair is local when the two sets intersect.
 * - {@link linkLocalityOfAssignment}, for theory checks of a partitioner on a known graph: owner(p)
 *   = the one partition a table assigns to p, −1 meaning unassigned.
 *
 * Links are two parallel arrays of page ids, `from[i] → to[i]` (a CSR converts with
 * {@link linkPairsOfCsr}). Pairs are counted as given unless `distinctPairs` is set, which counts
 * each (u, v) once however many times it was found (several nodes that downloaded u each record
 * its links).
 *
 * Departures, on purpose: self-links (u → u) are skipped and reported apart: they are local under
 * any partition and would lift p_l of a uniform hash above 1/n. p_l is null when no pair counts.
 */
import type { Csr } from './csr.js';

/** Links as two parallel arrays of non-negative integer page ids: `from[i]` links to `to[i]`. */
export interface LinkPairs {
  /** Linking page of each pair. */
  readonly from: ArrayLike<number>;
  /** Linked page of each pair. */
  readonly to: ArrayLike<number>;
}

/** Node ids owning a page (empty when no node owns it); small, duplicates harmless. */
export type OwnersOf = (page: number) => readonly number[];

/** Options of {@link linkLocality} and {@link linkLocalityOfAssignment}. */
export interface LinkLocalityOptions {
  /**
   * Count each distinct (from, to) pair once. Default false (every pair as given). Needs
   * (max id + 1)² <= 2⁵³ (about 94 million pages).
   */
  readonly distinctPairs?: boolean;
}

/** p_l with the counts it is made of. `links = selfLinks + unowned + duplicates + pairs`. */
export interface LinkLocalityResult {
  /** Pairs given. */
  readonly links: number;
  /** Pairs u → u, skipped. */
  readonly selfLinks: number;
  /** Other pairs with an end no node owns, skipped. */
  readonly unowned: number;
  /** Repeats of a counted pair, skipped (only with `distinctPairs`; else 0). */
  readonly duplicates: number;
  /** Pairs counted: the denominator of p_l. */
  readonly pairs: number;
  /** Counted pairs whose ends share an owner. */
  readonly localPairs: number;
  /** localPairs / pairs; null when pairs = 0. */
  readonly pl: number | null;
}

/** The edges of a CSR as link pairs; `to` shares the CSR's `targets` (no copy). */
export function linkPairsOfCsr(csr: Csr): { readonly from: Uint32Array; readonly to: Uint32Array } {
  const m = csr.offsets[csr.nodeCount] as number;
  const from = new Uint32Array(m);
  for (let u = 0; u < csr.nodeCount; u++) from.fill(u, csr.offsets[u] as number, csr.offsets[u + 1] as number);
  return { from, to: csr.targets.subarray(0, m) };
}

/**
 * p_l of a crawl: a pair counts when both pages have an owner, and is local when their owner sets
 * intersect.
 *
 * @throws RangeError if `from` and `to` differ in length or an id is not a non-negative integer.
 */
export function linkLocality(links: LinkPairs, ownersOf: OwnersOf, options: LinkLocalityOptions = {}): LinkLocalityResult {
  return countLocality(
    links,
    (p) => ownersOf(p).length > 0,
    (u, v) => intersects(ownersOf(u), ownersOf(v)),
    options,
  );
}

/**
 * p_l of a page → partition assignment (the theory check of a partitioner): a pair counts when
 * both pages are assigned (`partitionOf[p] >= 0`), and is local when they have the same partition.
 *
 * @param partitionOf partition of every page id, −1 for unassigned.
 * @throws RangeError if `from` and `to` differ in length or an id is outside `partitionOf`.
 */
export function linkLocalityOfAssignment(
  links: LinkPairs,
  partitionOf: Int32Array | readonly number[],
  options: LinkLocalityOptions = {},
): LinkLocalityResult {
  const n = partitionOf.length;
  const partition = (p: number): number => {
    if (p >= n) throw new RangeError(`linkLocalityOfAssignment: page ${p} has no entry (${n} pages)`);
    return partitionOf[p] as number;
  };
  return countLocality(
    links,
    (p) => partition(p) >= 0,
    (u, v) => partition(u) === partition(v),
    options,
  );
}

function intersects(a: readonly number[], b: readonly number[]): boolean {
  for (const x of a) if (b.includes(x)) return true;
  return false;
}

function countLocality(
  links: LinkPairs,
  isOwned: (page: number) => boolean,
  isLocal: (u: number, v: number) => boolean,
  options: LinkLocalityOptions,
): LinkLocalityResult {
  const { from, to } = links;
  if (from.length !== to.length) throw new RangeError(`linkLocality: ${from.length} linking pages but ${to.length} linked pages`);
  const total = from.length;
  const isDistinct = options.distinctPairs ?? false;
  // With distinctPairs, the counted pairs wait here (u and v) until they are deduplicated.
  const keptFrom: number[] = [];
  const keptTo: number[] = [];
  let selfLinks = 0;
  let unowned = 0;
  let pairs = 0;
  let localPairs = 0;
  let maxId = -1;
  for (let i = 0; i < total; i++) {
    const u = from[i] as number;
    const v = to[i] as number;
    if (!isPageId(u) || !isPageId(v)) throw new RangeError(`linkLocality: pair ${i} (${u} -> ${v}) is not two non-negative integer ids`);
    if (u === v) {
      selfLinks++;
      continue;
    }
    if (!isOwned(u) || !isOwned(v)) {
      unowned++;
      continue;
    }
    if (isDistinct) {
      keptFrom.push(u);
      keptTo.push(v);
      maxId = Math.max(maxId, u, v);
      continue;
    }
    pairs++;
    if (isLocal(u, v)) localPairs++;
  }
  let duplicates = 0;
  if (isDistinct && keptFrom.length > 0) {
    const width = maxId + 1;
    if (width * width > Number.MAX_SAFE_INTEGER + 1)
      throw new RangeError(`linkLocality: distinctPairs needs (max id + 1)² <= 2^53, got max id ${maxId}`);
    const keys = Float64Array.from(keptFrom, (u, i) => u * width + (keptTo[i] as number)).sort();
    let previous = -1;
    for (const key of keys) {
      if (key === previous) {
        duplicates++;
        continue;
      }
      previous = key;
      const u = Math.floor(key / width);
      pairs++;
      if (isLocal(u, key - u * width)) localPairs++;
    }
  }
  return { links: total, selfLinks, unowned, duplicates, pairs, localPairs, pl: pairs === 0 ? null : localPairs / pairs };
}

function isPageId(x: number): boolean {
  return Number.isSafeInteger(x) && x >= 0;
}
