/**
 * Overlap of a collaborative crawl (SPEC §5; seed 003, Gao, Lee & Miao, §4 "Evaluation models",
 * after Cho & Garcia-Molina):
 *
 *     overlap = (N − I) / N
 *
 * N = pages downloaded by all nodes, counted with multiplicity (a page fetched twice by one node
 * counts twice); I = distinct pages (URLs) among them. Hash partitioning has none; topic
 * partitioning (seed 000 §4) trades some for locality, hence the histogram that says how the
 * duplicates spread:
 *
 *     h[i] = number of distinct URLs downloaded by exactly i distinct nodes,  i = 1..n
 *
 * where a node that fetched a URL twice counts once (its second fetch shows in N − I, not in h).
 *
 * Departures, on purpose: overlap is 0, not undefined, when nothing was downloaded (no download was
 * repeated).
 */
import type { NodeCrawl } from './collab-input.js';

/** The downloads of one node, as far as overlap is concerned. */
export type NodeUrls = Pick<NodeCrawl, 'downloads'>;

/** Overlap with its two counts. */
export interface OverlapResult {
  /** N: downloads of all nodes, with multiplicity. */
  readonly downloads: number;
  /** I: distinct URLs among them. */
  readonly uniquePages: number;
  /** (N − I) / N, in [0, 1); 0 when N = 0. */
  readonly overlap: number;
}

/** Overlap (N − I)/N over the downloads of every node. */
export function overlap(nodes: readonly NodeUrls[]): OverlapResult {
  const unique = new Set<string>();
  let downloads = 0;
  for (const { downloads: list } of nodes) {
    downloads += list.length;
    for (const d of list) unique.add(d.url);
  }
  const uniquePages = unique.size;
  return { downloads, uniquePages, overlap: downloads === 0 ? 0 : (downloads - uniquePages) / downloads };
}

/**
 * Overlap histogram: entry i (1..n, n = `nodes.length`) is the number of distinct URLs downloaded
 * by exactly i distinct nodes. Entry 0 is always 0 and kept only so that the index reads as the
 * number of nodes; the array has n + 1 entries. The entries sum to I of {@link overlap}.
 */
export function overlapHistogram(nodes: readonly NodeUrls[]): number[] {
  const nodesOf = new Map<string, number>();
  for (const { downloads } of nodes) {
    const mine = new Set<string>();
    for (const d of downloads) mine.add(d.url);
    for (const url of mine) nodesOf.set(url, (nodesOf.get(url) ?? 0) + 1);
  }
  const histogram = new Array<number>(nodes.length + 1).fill(0);
  for (const count of nodesOf.values()) histogram[count] = (histogram[count] as number) + 1;
  return histogram;
}
