/**
 * A simulator graph from an adjacency list in memory: page URL → its out-links in document order.
 * For small drawn webs (tests, examples, a graph another program built); the three file loaders are
 * for anything large.
 *
 * Pages are numbered in order of first mention (the keys first, in their order, then targets not
 * listed as keys); hosts are the URLs' `host[:port]`. A target that is not a key is a page without
 * links. URLs are used as given (no normalization).
 */
import { csrFromEdges } from '../../eval/csr.js';
import { urlParts } from '../../url/url-parts.js';
import { numberHosts, Numbering } from './numbering.js';
import { checkSimGraph, SimGraphFormat, type SimGraph } from './sim-graph.js';

/** Options of {@link graphFromAdjacency}. */
export interface AdjacencyGraphOptions {
  /** Links `from → to` that are not followed (rel=nofollow). */
  readonly nofollow?: readonly (readonly [from: string, to: string])[];
  /** Anchor text of the link `from → to`; default none (the graph has no anchors). */
  readonly anchor?: (from: string, to: string) => string;
  /** Title and text of a page; default none. */
  readonly content?: (url: string) => { readonly title?: string; readonly text?: string };
}

/** Builds a graph from `web` with `seeds` (URLs; one that is no key or target is a page without links). */
export function graphFromAdjacency(
  web: Readonly<Record<string, readonly string[]>>,
  seeds: readonly string[],
  options: AdjacencyGraphOptions = {},
): SimGraph {
  const pages = new Numbering();
  const id = (url: string): number => pages.idOf(url);
  for (const url of Object.keys(web)) id(url);
  const src: number[] = [];
  const dst: number[] = [];
  const edgeFrom: string[] = [];
  const edgeTo: string[] = [];
  for (const [from, links] of Object.entries(web)) {
    for (const to of links) {
      src.push(id(from));
      dst.push(id(to));
      edgeFrom.push(from);
      edgeTo.push(to);
    }
  }
  for (const s of seeds) id(s);
  const urls = pages.names;
  const n = urls.length;
  // Keys come first and their links are listed key by key, so edges are already grouped by source.
  const csr = csrFromEdges(n, Uint32Array.from(src), Uint32Array.from(dst));
  const nofollowSet = new Set((options.nofollow ?? []).map(([f, t]) => `${f}\n${t}`));
  const edgeNofollow =
    nofollowSet.size === 0 ? null : Uint8Array.from(edgeFrom, (f, e) => (nofollowSet.has(`${f}\n${edgeTo[e] as string}`) ? 1 : 0));
  const { pageHost, hosts } = numberHosts(n, (p) => urlParts(urls[p] as string).hostKey);
  const { anchor, content } = options;
  const graph: SimGraph = {
    format: SimGraphFormat.memory,
    source: '(memory)',
    pageCount: n,
    linkCount: src.length,
    csr,
    pageHost,
    hosts: { count: hosts.size, nameOf: (h) => hosts.nameOf(h), ips: null, crawlDelayMs: null, measuredLatencyMs: null },
    edgeNofollow,
    pageKinds: null,
    seeds: Uint32Array.from(seeds, (s) => pages.find(s)),
    hasUrls: true,
    urlOf: (p) => urls[p] as string,
    nameOf: (p) => urls[p] as string,
    pageIdOf: (name) => pages.find(name),
    anchorOf: anchor === undefined ? null : (e) => anchor(edgeFrom[e] as string, edgeTo[e] as string),
    contentOf: content === undefined ? null : (p) => content(urls[p] as string),
    pageBytes: null,
    labels: null,
    close: () => {},
  };
  checkSimGraph(graph);
  return graph;
}
