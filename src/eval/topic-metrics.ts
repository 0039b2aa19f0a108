/**
 * The metrics of topic partitioning (SPEC §5; seed 000, the X4 crawler):
 *
 * - **topic locality**: of the linked page pairs (u → v, u ≠ v) with both ends fetched and given a
 *   category, the share whose two categories are equal (X4: 62.4 % on ODP; a hash partition keeps
 *   1/n of the pairs together). With the true labels of the same pages, the true locality of those
 *   pairs too, so that the classifier's share is read against what the Web itself offers.
 * - **Kendall τ-b per subcollection**: for each group of pages (a node's pages), PageRank computed on
 *   the links among the group's pages only, against the global PageRank of the same pages (X4 found
 *   topic subcollections closer to the global order than hash ones). {@link hashGroups} deals the
 *   same pages by a hash of their key, for that comparison.
 *
 * Pages are identified by integer ids (the link graph's); links are pairs of ids. No I/O.
 */
import { csrFromEdges } from './csr.js';
import { kendallTauB } from './kendall-tau.js';
import { pageRank } from './pagerank.js';
import type { ClassifierAccuracy } from './classifier-accuracy.js';
import { linkLocalityOfAssignment, type LinkPairs } from './link-locality.js';

/** Topic locality and the counts it is made of. */
export interface TopicLocality {
  /** Pairs u → v (u ≠ v, each distinct pair once) with both ends categorised: the denominator. */
  readonly pairs: number;
  /** Of them, pairs whose ends share a category. */
  readonly samePairs: number;
  /** samePairs / pairs; null with no pairs. */
  readonly locality: number | null;
  /** The same pairs judged by the true labels (null without them, or when a label is missing for every pair). */
  readonly trueLocality: number | null;
  /** Links skipped (each occurrence): an end not fetched, or fetched without a category. */
  readonly skipped: number;
}

/**
 * Topic locality of `links` under `categoryOf` (null: not fetched or no category), and under
 * `trueCategoryOf` for the same pairs when given: p_l (link-locality.ts) of the assignment page →
 * category, each distinct pair once.
 */
export function topicLocality(
  links: LinkPairs,
  categoryOf: (page: number) => string | null,
  trueCategoryOf?: (page: number) => string | null,
): TopicLocality {
  let pages = 0;
  for (let i = 0; i < links.from.length; i++) pages = Math.max(pages, (links.from[i] as number) + 1, (links.to[i] as number) + 1);
  const indexOf = new Map<string, number>();
  const index = (category: string | null): number => {
    if (category === null) return -1;
    let i = indexOf.get(category);
    if (i === undefined) {
      i = indexOf.size;
      indexOf.set(category, i);
    }
    return i;
  };
  const predicted = Int32Array.from({ length: pages }, (_, p) => index(categoryOf(p)));
  const r = linkLocalityOfAssignment(links, predicted, { distinctPairs: true });
  let trueLocality: number | null = null;
  if (trueCategoryOf !== undefined) {
    // Only the pairs counted above: a page without a predicted category has no true one here.
    const truth = Int32Array.from({ length: pages }, (_, p) => ((predicted[p] as number) < 0 ? -1 : index(trueCategoryOf(p))));
    trueLocality = linkLocalityOfAssignment(links, truth, { distinctPairs: true }).pl;
  }
  return { pairs: r.pairs, samePairs: r.localPairs, locality: r.pl, trueLocality, skipped: r.unowned };
}

/** Kendall τ-b of one subcollection. */
export interface SubcollectionTau {
  readonly group: string;
  readonly pages: number;
  /** Links with both ends in the group. */
  readonly links: number;
  /** τ-b of local PageRank vs global PageRank over the group's pages; null when undefined (under 2 pages, or all ties). */
  readonly tau: number | null;
}

/**
 * τ-b per group: PageRank on each group's own links (links with both ends in the group) against
 * `globalRank` of the same pages. `groups` maps a group name to its page ids (a page in several
 * groups, under overlap, counts in each).
 */
export function subcollectionTaus(
  groups: ReadonlyMap<string, readonly number[]>,
  links: LinkPairs,
  globalRank: (page: number) => number,
): SubcollectionTau[] {
  const out: SubcollectionTau[] = [];
  for (const [group, pages] of groups) {
    const local = new Map<number, number>();
    for (const p of pages) if (!local.has(p)) local.set(p, local.size);
    const src: number[] = [];
    const dst: number[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < links.from.length; i++) {
      const a = local.get(links.from[i] as number);
      const b = local.get(links.to[i] as number);
      if (a === undefined || b === undefined || a === b) continue;
      const key = `${a} ${b}`;
      if (seen.has(key)) continue;
      seen.add(key);
      src.push(a);
      dst.push(b);
    }
    const n = local.size;
    const ranks = n === 0 ? new Float64Array(0) : pageRank(csrFromEdges(n, Uint32Array.from(src), Uint32Array.from(dst)));
    const ids = [...local.keys()];
    const global = Float64Array.from(ids, (p) => globalRank(p));
    out.push({ group, pages: n, links: src.length, tau: kendallTauB(ranks, global).tau });
  }
  return out;
}

/** The same pages dealt to `n` groups by a hash of `keyOf(page)` (FNV-1a): X4's content-hash comparison. */
export function hashGroups(pages: readonly number[], n: number, keyOf: (page: number) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let g = 0; g < n; g++) groups.set(`hash-${g}`, []);
  for (const p of pages) {
    let h = 0x811c9dc5;
    const key = keyOf(p);
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    (groups.get(`hash-${(h >>> 0) % n}`) as number[]).push(p);
  }
  return groups;
}

/** Mean of the defined τ values, weighted by pages; null when none is defined. */
export function meanTau(taus: readonly SubcollectionTau[]): number | null {
  let sum = 0;
  let weight = 0;
  for (const t of taus) {
    if (t.tau === null) continue;
    sum += t.tau * t.pages;
    weight += t.pages;
  }
  return weight > 0 ? sum / weight : null;
}

/** The topic metrics of a crawl, as `src/cluster/read-topic.ts` reads them from a crawl directory. */
export interface TopicEval {
  /** Pages stored with a category / without one (unclassifiable, or not classified). */
  readonly categorised: number;
  readonly uncategorised: number;
  /** Pages per category over every node. */
  readonly perCategory: Readonly<Record<string, number>>;
  readonly locality: TopicLocality;
  /** Against the truth's topics; null without a truth. */
  readonly accuracy: ClassifierAccuracy | null;
  readonly taus: readonly SubcollectionTau[];
  readonly meanTau: number | null;
  readonly hashTaus: readonly SubcollectionTau[];
  readonly meanHashTau: number | null;
}
