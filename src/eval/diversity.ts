/**
 * Diversity of a collaborative crawl (SPEC §5; seed 003, Gao, Lee & Miao, §4 "Evaluation models"):
 *
 *     diversity = S / N
 *
 * S = distinct host names among the downloaded pages, N = downloads of all nodes with multiplicity
 * (as in overlap). Low diversity flags a crawl stuck on a few servers (a crawler trap, or a policy
 * that favours pages of the same site).
 *
 * Departures, on purpose: seed 003 counts distinct *domain* names; SPEC §5 says host names, which
 * is what {@link Download.host} holds (a registrable-domain variant would pass domains there).
 * Host names are compared as given (the crawl lower-cases them). Undefined (null) when N = 0.
 */
import type { Download, NodeCrawl } from './collab-input.js';

/** Diversity with its two counts. */
export interface DiversityResult {
  /** N: downloads of all nodes, with multiplicity. */
  readonly downloads: number;
  /** S: distinct host names among them. */
  readonly hosts: number;
  /** S / N, in (0, 1]; null when N = 0. */
  readonly diversity: number | null;
}

/** Diversity S/N over the downloads of every node. */
export function diversity(nodes: readonly Pick<NodeCrawl, 'downloads'>[]): DiversityResult {
  const hostSet = new Set<Download['host']>();
  let downloads = 0;
  for (const { downloads: list } of nodes) {
    downloads += list.length;
    for (const d of list) hostSet.add(d.host);
  }
  return { downloads, hosts: hostSet.size, diversity: downloads === 0 ? null : hostSet.size / downloads };
}
