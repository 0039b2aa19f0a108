/**
 * The documentation crawl of `experiment:cho` and `experiment:community` (`docs-crawl.ts`) as a graph
 * with known communities: each page's community is its site in {@link DOCS_SITES}, known from the
 * host that served it rather than from the links. The crawl directory is read with
 * `loadSimGraph(dir, 'crawl')`, the reader of `shoal simulate --graph`, cut to the pages fetched as
 * HTML (`fetchedSubgraph`), renumbered in URL order so that page ids, and what is drawn from them,
 * repeat from crawl to crawl (a crawl numbers URLs in the order its fetch slots happened to finish),
 * and reduced to each page's distinct links without self-links: the community crawler's similarity
 * counts a link once, and cohesion then does too.
 */
import type { CommunityGraph } from '../../src/eval/community-metrics.js';
import { csrFromEdges } from '../../src/eval/csr.js';
import { loadSimGraph } from '../../src/sim/graph/load-graph.js';
import { SimPageKind, type SimGraph } from '../../src/sim/graph/sim-graph.js';
import { DOCS_SITES } from './docs-crawl.js';
import { fetchedSubgraph } from './graph-views.js';

/** The documentation crawl's link graph with each page's site as its community. */
export interface DocsCommunityGraph extends CommunityGraph {
  /** Page ids of each site, in {@link DOCS_SITES} order. */
  readonly sitePages: readonly (readonly number[])[];
  /** Per site: distinct links from its pages (self-links dropped), and those that leave the site (to another site or host). */
  readonly siteLinks: readonly { readonly all: number; readonly crossing: number }[];
  /** Links of the fetched pages as the crawl parsed them, repeats and self-links included. */
  readonly parsedLinks: number;
}

/**
 * Reads the crawl in `dir` as {@link DocsCommunityGraph}: pages fetched as HTML only (the crawl graph
 * also numbers every link target, fetched or not; a fetched page has its bytes from the crawl log).
 */
export async function loadDocsCommunityGraph(dir: string): Promise<DocsCommunityGraph> {
  const crawl = await loadSimGraph([dir], 'crawl');
  try {
    return siteCommunityGraph(fetchedSubgraph(crawl, (p) => crawl.pageKinds?.[p] === SimPageKind.page && (crawl.pageBytes?.[p] ?? 0) > 0));
  } finally {
    crawl.close();
  }
}

/**
 * `graph` renumbered in URL order, with each page's distinct links (self-links dropped) and its site
 * in {@link DOCS_SITES} as its community (−1 for a page of another host).
 */
export function siteCommunityGraph(graph: SimGraph): DocsCommunityGraph {
  const n = graph.pageCount;
  const urls = Array.from({ length: n }, (_, p) => graph.urlOf(p));
  const order = Array.from({ length: n }, (_, p) => p).sort((a, b) => ((urls[a] as string) < (urls[b] as string) ? -1 : 1));
  const id = new Uint32Array(n);
  order.forEach((p, i) => (id[p] = i));
  const community = new Int32Array(n);
  const sitePages = DOCS_SITES.map((): number[] => []);
  order.forEach((p, i) => {
    const host = new URL(urls[p] as string).hostname;
    const site = DOCS_SITES.findIndex((s) => s.host === host);
    community[i] = site;
    sitePages[site]?.push(i);
  });
  const siteLinks = DOCS_SITES.map(() => ({ all: 0, crossing: 0 }));
  const src: number[] = [];
  const dst: number[] = [];
  const { offsets, targets } = graph.csr;
  for (const p of order) {
    const from = id[p] as number;
    const counts = siteLinks[community[from] as number];
    const linked = new Set<number>([from]);
    for (let e = offsets[p] as number; e < (offsets[p + 1] as number); e++) {
      const to = id[targets[e] as number] as number;
      if (linked.has(to)) continue;
      linked.add(to);
      src.push(from);
      dst.push(to);
      if (counts === undefined) continue;
      counts.all++;
      if (community[to] !== community[from]) counts.crossing++;
    }
  }
  return {
    graph: csrFromEdges(n, Uint32Array.from(src), Uint32Array.from(dst)),
    community,
    sitePages,
    siteLinks,
    parsedLinks: graph.linkCount,
  };
}
