/**
 * Every collaboration metric of SPEC §5 from one crawl's data, in one JSON-able object: overlap and
 * its histogram, coverage, diversity, communication overhead, exported / imported ratios, load
 * balance and link locality p_l. Each number comes from the one pure function that defines it
 * (`overlap.ts`, `coverage.ts`, `diversity.ts`, `communication.ts`, `load-balance.ts`,
 * `link-locality.ts`); this file only gathers the inputs and joins the per-node rows.
 *
 * For p_l the owner of a page is the set of nodes that downloaded it (matched by URL), and each
 * distinct (linking URL, linked URL) pair counts once, however many nodes recorded it: under overlap
 * every node that fetched a page records its links.
 */
import type { NodeCrawl, NodeExchangeCounts } from './collab-input.js';
import { communicationOverhead, exchangeRatio, type CommunicationResult } from './communication.js';
import { coverage, type CoverageResult } from './coverage.js';
import { diversity, type DiversityResult } from './diversity.js';
import { linkLocality, type LinkLocalityResult } from './link-locality.js';
import { loadBalance, type LoadSpread, type NodeLoad } from './load-balance.js';
import { overlap, overlapHistogram, type OverlapResult } from './overlap.js';

export type { Download, NodeCrawl, NodeExchangeCounts } from './collab-input.js';

/**
 * Links found by the crawl, over their own URL dictionary: `urls[from[i]]` links to `urls[to[i]]`.
 * One node's link graph (`readLinkGraph` gives `urls` and a CSR; `linkPairsOfCsr` gives the arrays).
 */
export interface CrawlLinks {
  /** URL of each id; each URL once. */
  readonly urls: readonly string[];
  /** Linking page id of each link. */
  readonly from: ArrayLike<number>;
  /** Linked page id of each link. */
  readonly to: ArrayLike<number>;
}

/** Input of {@link collaborationMetrics}. */
export interface CollaborationInput {
  /** One entry per node of the crawl, in the order the rows should appear. */
  readonly nodes: readonly NodeCrawl[];
  /** URLs of the reachable pages of the target Web, when known; without it coverage is null. */
  readonly target?: Iterable<string>;
  /** Link graphs (one per node, or one merged), each over its own dictionary; without them p_l is null. */
  readonly links?: readonly CrawlLinks[];
}

/** One node's row: its load, its exchange counters and its exported / imported ratios. */
export interface NodeCollabRow extends NodeExchangeCounts {
  /** Node id. */
  readonly node: string;
  /** Pages the node downloaded itself, with multiplicity. */
  readonly pages: number;
  /** Bytes it downloaded (Σ Download.bytes). */
  readonly bytes: number;
  /** bytesSent / bytes; null when bytes = 0. */
  readonly exportedRatio: number | null;
  /** bytesReceived / bytes; null when bytes = 0. */
  readonly importedRatio: number | null;
}

/** All collaboration metrics of a crawl (plain JSON: numbers, strings, arrays, null). */
export interface CollaborationMetrics {
  /** Number of nodes n. */
  readonly nodeCount: number;
  /** Per-node rows, in input order. */
  readonly nodes: readonly NodeCollabRow[];
  /** Overlap (N − I)/N with N and I. */
  readonly overlap: OverlapResult;
  /** Entry i = distinct URLs downloaded by exactly i nodes, i = 1..n; entry 0 is always 0. */
  readonly overlapHistogram: readonly number[];
  /** Coverage against the target; null when no target was given. */
  readonly coverage: CoverageResult | null;
  /** Diversity S/N. */
  readonly diversity: DiversityResult;
  /** Communication overhead, forwarded pages and the crawl-wide exported / imported ratios. */
  readonly communication: CommunicationResult;
  /** Load balance over the nodes, in pages and in bytes (per-node values are in `nodes`). */
  readonly loadBalance: { readonly pages: LoadSpread; readonly bytes: LoadSpread };
  /** p_l over distinct pairs of downloaded pages; null when no links were given. */
  readonly linkLocality: LinkLocalityResult | null;
}

/** Computes every collaboration metric of SPEC §5 from the crawl's downloads, counters and links. */
export function collaborationMetrics(input: CollaborationInput): CollaborationMetrics {
  const { nodes } = input;
  const load = loadBalance(nodes);
  const rows = nodes.map((n, k): NodeCollabRow => {
    const ratios = exchangeRatio(n);
    const nodeLoad = load.nodes[k] as NodeLoad;
    return {
      node: n.node,
      pages: nodeLoad.pages,
      bytes: nodeLoad.bytes,
      exportedRatio: ratios.exportedRatio,
      importedRatio: ratios.importedRatio,
      urlsSent: n.exchange.urlsSent,
      urlsReceived: n.exchange.urlsReceived,
      pagesSent: n.exchange.pagesSent,
      pagesReceived: n.exchange.pagesReceived,
      pageBytesSent: n.exchange.pageBytesSent,
      pageBytesReceived: n.exchange.pageBytesReceived,
      bytesSent: n.exchange.bytesSent,
      bytesReceived: n.exchange.bytesReceived,
    };
  });
  return {
    nodeCount: nodes.length,
    nodes: rows,
    overlap: overlap(nodes),
    overlapHistogram: overlapHistogram(nodes),
    coverage: input.target === undefined ? null : coverage(nodes, input.target),
    diversity: diversity(nodes),
    communication: communicationOverhead(nodes),
    loadBalance: { pages: load.pages, bytes: load.bytes },
    linkLocality: input.links === undefined ? null : crawlLinkLocality(nodes, input.links),
  };
}

/**
 * p_l of the crawl: pages are numbered by URL over the downloads, the links of every set are
 * renumbered into that space and the distinct pairs counted. A linked URL no node downloaded gets
 * an id past the downloaded pages (distinct within its set, owned by nobody), so it stays unowned.
 */
function crawlLinkLocality(nodes: readonly NodeCrawl[], linkSets: readonly CrawlLinks[]): LinkLocalityResult {
  const pageOf = new Map<string, number>();
  const owners: number[][] = [];
  nodes.forEach((n, k) => {
    for (const { url } of n.downloads) {
      const page = pageOf.get(url);
      if (page === undefined) {
        pageOf.set(url, owners.length);
        owners.push([k]);
        continue;
      }
      // A node's downloads are visited together, so a repeat of this node is the last owner.
      const list = owners[page] as number[];
      if (list[list.length - 1] !== k) list.push(k);
    }
  });
  const pageCount = owners.length;
  let total = 0;
  for (const set of linkSets) {
    if (set.from.length !== set.to.length)
      throw new RangeError(`collaborationMetrics: a link set has ${set.from.length} sources but ${set.to.length} targets`);
    total += set.from.length;
  }
  const from = new Uint32Array(total);
  const to = new Uint32Array(total);
  let at = 0;
  for (const set of linkSets) {
    const global = Uint32Array.from(set.urls, (url, id) => pageOf.get(url) ?? pageCount + id);
    const renumber = (id: number): number => {
      if (!Number.isInteger(id) || id < 0 || id >= global.length)
        throw new RangeError(`collaborationMetrics: link names URL id ${id}, dictionary has ${global.length}`);
      return global[id] as number;
    };
    for (let i = 0; i < set.from.length; i++, at++) {
      from[at] = renumber(set.from[i] as number);
      to[at] = renumber(set.to[i] as number);
    }
  }
  const none: readonly number[] = [];
  return linkLocality({ from, to }, (page) => owners[page] ?? none, { distinctPairs: true });
}
