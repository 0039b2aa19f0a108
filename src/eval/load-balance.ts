/**
 * Load balance of a collaborative crawl (SPEC §5): per node the pages and bytes it downloaded, and
 * for each of the two the imbalance
 *
 *     imbalance = max_k x_k / mean_k x_k
 *
 * over the n nodes: 1 is a perfect split, n means one node did everything. A partitioner that keeps
 * a server on one node (host hash, SPEC §4.1) pays for politeness locality with imbalance when host
 * sizes are skewed; pages and bytes can disagree when page sizes differ between nodes' shares.
 *
 * Departures, on purpose: with no nodes, or when every node has 0, the mean is 0 and the imbalance is
 * null (undefined), not NaN.
 */
import type { NodeCrawl } from './collab-input.js';

/** Spread of one quantity over the nodes. */
export interface LoadSpread {
  /** Sum over the nodes. */
  readonly total: number;
  /** Mean over the nodes (0 with no nodes). */
  readonly mean: number;
  /** Largest value (0 with no nodes). */
  readonly max: number;
  /** Smallest value (0 with no nodes). */
  readonly min: number;
  /** max / mean, >= 1; null when the mean is 0. */
  readonly maxOverMean: number | null;
}

/** Load of one node. */
export interface NodeLoad {
  /** Node id. */
  readonly node: string;
  /** Pages it downloaded, with multiplicity. */
  readonly pages: number;
  /** Σ Download.bytes of the node. */
  readonly bytes: number;
}

/** Load balance: per-node loads (in input order) and their spread. */
export interface LoadBalanceResult {
  /** One entry per node, in input order. */
  readonly nodes: readonly NodeLoad[];
  /** Spread of the page counts. */
  readonly pages: LoadSpread;
  /** Spread of the downloaded bytes. */
  readonly bytes: LoadSpread;
}

/** Spread (total, mean, max, min, max/mean) of `values`. */
export function loadSpread(values: readonly number[]): LoadSpread {
  if (values.length === 0) return { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null };
  let total = 0;
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {
    total += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  const mean = total / values.length;
  return { total, mean, max, min, maxOverMean: mean === 0 ? null : max / mean };
}

/** Load balance of the crawl in pages and in bytes. */
export function loadBalance(nodes: readonly Pick<NodeCrawl, 'node' | 'downloads'>[]): LoadBalanceResult {
  const loads = nodes.map((n): NodeLoad => {
    let bytes = 0;
    for (const d of n.downloads) bytes += d.bytes;
    return { node: n.node, pages: n.downloads.length, bytes };
  });
  return {
    nodes: loads,
    pages: loadSpread(loads.map((l) => l.pages)),
    bytes: loadSpread(loads.map((l) => l.bytes)),
  };
}
