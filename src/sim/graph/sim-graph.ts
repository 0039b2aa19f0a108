/**
 * The graph a simulated crawl runs over: one CSR of pages and links (`eval/csr.ts`) plus what the
 * crawl's components read about each page and link, in typed arrays (no object per page). Three
 * loaders fill it: a test web's ground truth (`truth-graph.ts`), the link graph a real crawl wrote
 * (`crawl-graph.ts`) and a TSV edge list (`tsv-graph.ts`); `load-graph.ts` picks one. Small drawn
 * webs are built in memory (`memory-graph.ts`).
 *
 * Pages are numbered 0 .. n − 1; the out-links of a page are in document order, as the crawl found
 * them (the truth export removes repeats and self-links; the other two keep them). Hosts are
 * numbered 0 .. h − 1 and are the politeness key, as `host[:port]` is in a real crawl.
 *
 * Optional parts are null when the source does not have them: real URLs (without them a page gets a
 * made-up `http://<host>/<name>` URL, good enough for hash partitioners and reports, and policies
 * that read URLs are refused), anchor texts, titles and text, page sizes, and per-host facts
 * (address, robots.txt Crawl-delay, measured fetch time).
 */
import type { Csr } from '../../eval/csr.js';

/** Where a graph came from: one of the three file formats, or an adjacency list built in memory (`memory-graph.ts`). */
export const SimGraphFormat = { truth: 'truth', crawl: 'crawl', tsv: 'tsv', memory: 'memory' } as const;
export type SimGraphFormat = (typeof SimGraphFormat)[keyof typeof SimGraphFormat];
/** The formats read from files (`load-graph.ts`). */
export type SimGraphFileFormat = Exclude<SimGraphFormat, 'memory'>;

/**
 * What fetching a page gives a crawl, which decides what the crawl does with it
 * (`node/stages/page-processor.ts`): an HTML page is shown to the ordering policy (`observe`) and its links
 * followed; a redirect's target is followed like a link, without `observe` and without a
 * discovering page; an error or a page that is not HTML ends there.
 */
export const SimPageKind = { page: 0, redirect: 1, noContent: 2 } as const;
export type SimPageKind = (typeof SimPageKind)[keyof typeof SimPageKind];

/** Title and visible text of a page, when the graph can tell. */
export interface PageContent {
  readonly title?: string;
  readonly text?: string;
}

/**
 * Every link of a page as a crawl parses it: each occurrence in document order (repeats, self-links
 * and nofollow links included), with its own anchor text. A crawl shows an ordering policy these
 * (`observe`); a graph that keeps one link per target gives them when it can.
 */
export interface PageLinks {
  /** Target page of each occurrence (occurrences of URLs that are no page of the graph left out). */
  readonly ids: Uint32Array;
  /** Anchor text of each occurrence ('' for none). */
  readonly anchors: readonly string[];
}

/** What is known of each host, by host index; null columns are unknown for every host. */
export interface SimHosts {
  /** Number of hosts h. */
  readonly count: number;
  /** The host's name as in URLs (`host[:port]`). */
  nameOf(host: number): string;
  /** The address each host resolves to ('' when unknown): hosts on one address share its connection limit. */
  readonly ips: readonly string[] | null;
  /** robots.txt Crawl-delay of each host, ms (0 = none). */
  readonly crawlDelayMs: Float64Array | null;
  /** Mean fetch time measured by a real crawl, ms; NaN for a host it never fetched. */
  readonly measuredLatencyMs: Float64Array | null;
}

/** True labels of each page, when the graph is a test web's ground truth. */
export interface PageLabels {
  /** Category names; `topic[p]` indexes them. */
  readonly categories: readonly string[];
  readonly topic: Uint8Array;
  /** Language codes; `lang[p]` indexes them. */
  readonly languages: readonly string[];
  readonly lang: Uint8Array;
  /** The page whose content this page repeats byte for byte (a mirror), or −1: equal content digests. */
  readonly sameContentAs: Int32Array;
  /** True PageRank IR(P) of the whole Web (d = 0.9, mean 1). */
  readonly pagerank: Float64Array;
  /** Community of each page (−1 for none), or null when the web has no communities (SPEC §4.4). */
  readonly community: Int32Array | null;
}

/** A graph ready for the simulator; see the file comment. */
export interface SimGraph {
  readonly format: SimGraphFormat;
  /** The file or directories it was read from, for reports. */
  readonly source: string;
  readonly pageCount: number;
  readonly linkCount: number;
  /** Out-links of each page in document order. */
  readonly csr: Csr;
  /** Host index of each page. */
  readonly pageHost: Uint32Array;
  readonly hosts: SimHosts;
  /** Per edge of `csr`: 1 when the crawl does not follow it (rel=nofollow, or meta robots nofollow on its page); null: every edge is followed. */
  readonly edgeNofollow: Uint8Array | null;
  /** {@link SimPageKind} of each page; null: every page is an HTML page. */
  readonly pageKinds: Uint8Array | null;
  /** Seed pages in the order a crawl is seeded. */
  readonly seeds: Uint32Array;
  /** Whether {@link urlOf} gives the pages' real URLs (else made-up ones). */
  readonly hasUrls: boolean;
  /** The URL of a page: real when `hasUrls`, else `http://<host name>/<page name>`. Built on demand. */
  urlOf(page: number): string;
  /** How outputs name a page: its URL, or the id it had in the input file. */
  nameOf(page: number): string;
  /** The page a seed given by the user names (an id as written in the input, or a URL); −1 if none. */
  pageIdOf(name: string): number;
  /** Anchor text of edge `edge` of `csr` ('' for none); null when the graph has none. */
  readonly anchorOf: ((edge: number) => string) | null;
  /** Title and text of a page; null when the graph has none. */
  readonly contentOf: ((page: number) => PageContent) | null;
  /**
   * Every occurrence of a page's links ({@link PageLinks}) when `csr` keeps one link per target (a
   * truth export) and the graph can parse its pages; absent or null when `csr` holds them already.
   */
  readonly linksOf?: ((page: number) => PageLinks) | null;
  /** Bytes downloaded for each page, when a real crawl measured them; null otherwise. */
  readonly pageBytes: Float64Array | null;
  /** True labels (test web ground truth only). */
  readonly labels: PageLabels | null;
  /** Releases files read on demand (anchor texts); idempotent. */
  close(): void;
}

/** What a graph can provide, in the words of `OrderingPolicy.needs`. */
export interface GraphAbilities {
  readonly urls: boolean;
  readonly anchors: boolean;
  readonly text: boolean;
}

/** What `graph` can provide to ordering policies. */
export function abilitiesOf(graph: SimGraph): GraphAbilities {
  return { urls: graph.hasUrls, anchors: graph.anchorOf !== null, text: graph.contentOf !== null };
}

/**
 * What `needs` (an ordering policy's `needs`) asks and `graph` does not have, in words; empty when
 * the graph serves the policy.
 */
export function missingForPolicy(
  needs: { readonly urls: boolean; readonly anchors: boolean; readonly text: boolean },
  graph: SimGraph,
): string[] {
  const can = abilitiesOf(graph);
  return [
    needs.urls && !can.urls ? 'URLs (this graph has made-up ones)' : null,
    needs.anchors && !can.anchors ? 'anchor texts' : null,
    needs.text && !can.text ? 'page titles and text' : null,
  ].filter((m): m is string => m !== null);
}

/**
 * Why `graph` cannot serve the policy `policy` (what it reads and the graph lacks, and the option
 * that would give it), or null when it can.
 */
export function policyNeedsProblem(
  policy: { readonly spec: { readonly id: string }; readonly needs: Parameters<typeof missingForPolicy>[0] },
  graph: SimGraph,
): string | null {
  const missing = missingForPolicy(policy.needs, graph);
  if (missing.length === 0) return null;
  const hint =
    graph.format === 'truth'
      ? '; with a truth export, graph.rebuildContent gives titles, text and anchors'
      : graph.format === 'crawl'
        ? '; with a crawl graph, graph.crawlContent reads titles and text from its WARC files'
        : '';
  return `${policy.spec.id} reads ${missing.join(' and ')}, which the ${graph.format} graph ${graph.source} does not have${hint}`;
}

/**
 * Made-up URLs for a graph without real ones: `http://<host name>/<page name>`, with the page name
 * percent-encoded. Distinct pages get distinct URLs as long as page names are distinct.
 */
export function syntheticUrlOf(hosts: SimHosts, pageHost: Uint32Array, nameOf: (page: number) => string): (page: number) => string {
  return (page) => `http://${hosts.nameOf(pageHost[page] as number)}/${encodeURIComponent(nameOf(page))}`;
}

/** Checks the invariants every loader promises; throws RangeError naming the first broken one (a loader bug). */
export function checkSimGraph(graph: SimGraph): void {
  const { csr, pageCount: n } = graph;
  if (csr.nodeCount !== n || csr.offsets.length !== n + 1) throw new RangeError(`sim graph: ${n} pages but a CSR of ${csr.nodeCount}`);
  if ((csr.offsets[n] as number) !== graph.linkCount)
    throw new RangeError(`sim graph: ${graph.linkCount} links but the CSR ends at ${csr.offsets[n]}`);
  if (graph.pageHost.length !== n) throw new RangeError(`sim graph: ${graph.pageHost.length} page hosts for ${n} pages`);
  if (graph.edgeNofollow !== null && graph.edgeNofollow.length !== graph.linkCount)
    throw new RangeError('sim graph: edgeNofollow is not one byte per link');
  if (graph.pageKinds !== null && graph.pageKinds.length !== n) throw new RangeError('sim graph: pageKinds is not one byte per page');
  for (const s of graph.seeds) if (s >= n) throw new RangeError(`sim graph: seed ${s} is not a page`);
}
