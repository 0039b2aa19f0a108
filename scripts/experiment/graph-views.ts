/**
 * Two views of a simulator graph that the experiment needs and the loaders do not give:
 *
 * - {@link fetchedSubgraph}: a crawl graph cut to the pages its crawl fetched as HTML (2xx), as the
 *   paper counted only the valid pages of its crawl and nothing outside Stanford. A crawl graph also
 *   holds every link target (other sites, images, pages that answered 404); a simulated crawl would
 *   visit those as pages. Links to a redirect lead to its target.
 * - {@link withContentInMemory}: every page's title, text and anchors read once and kept in memory,
 *   so that the experiment's many content-reading runs do not render or read each page again. The
 *   values are those of the graph's own providers, unchanged.
 */
import { csrFromEdges } from '../../src/eval/csr.js';
import { SimPageKind, type PageContent, type PageLinks, type SimGraph, type SimHosts } from '../../src/sim/graph/sim-graph.js';

/** Redirect hops followed to reach a kept page. */
const MAX_REDIRECT_HOPS = 5;

/**
 * The subgraph of `graph` over the pages in `isKept` (by page id), seeds among them; an edge to a
 * redirect page leads to the kept page its redirect chain ends on, or is dropped.
 */
export function fetchedSubgraph(graph: SimGraph, isKept: (page: number) => boolean): SimGraph {
  const { offsets, targets } = graph.csr;
  const newId = new Int32Array(graph.pageCount).fill(-1);
  const oldId: number[] = [];
  for (let p = 0; p < graph.pageCount; p++) {
    if (graph.pageKinds?.[p] === SimPageKind.redirect || !isKept(p)) continue;
    newId[p] = oldId.length;
    oldId.push(p);
  }
  const resolve = (p: number): number => {
    let at = p;
    for (let hop = 0; hop <= MAX_REDIRECT_HOPS; hop++) {
      if (newId[at] !== -1) return newId[at] as number;
      if (graph.pageKinds?.[at] !== SimPageKind.redirect || offsets[at] === offsets[at + 1]) return -1;
      at = targets[offsets[at] as number] as number;
    }
    return -1;
  };
  const src: number[] = [];
  const dst: number[] = [];
  const origin: number[] = [];
  for (const p of oldId) {
    for (let e = offsets[p] as number; e < (offsets[p + 1] as number); e++) {
      const t = resolve(targets[e] as number);
      if (t < 0) continue;
      src.push(newId[p] as number);
      dst.push(t);
      origin.push(e);
    }
  }
  const n = oldId.length;
  // Hosts renumbered over the kept pages, so that host counts are the subgraph's.
  const hostOf = new Map<number, number>();
  const oldHost: number[] = [];
  const pageHost = Uint32Array.from(oldId, (p) => {
    const h = graph.pageHost[p] as number;
    let k = hostOf.get(h);
    if (k === undefined) {
      k = oldHost.length;
      hostOf.set(h, k);
      oldHost.push(h);
    }
    return k;
  });
  const { ips, crawlDelayMs, measuredLatencyMs } = graph.hosts;
  const hosts: SimHosts = {
    count: oldHost.length,
    nameOf: (h) => graph.hosts.nameOf(oldHost[h] as number),
    ips: ips === null ? null : oldHost.map((h) => ips[h] as string),
    crawlDelayMs: crawlDelayMs === null ? null : Float64Array.from(oldHost, (h) => crawlDelayMs[h] as number),
    measuredLatencyMs: measuredLatencyMs === null ? null : Float64Array.from(oldHost, (h) => measuredLatencyMs[h] as number),
  };
  // csrFromEdges is stable on the source and the edges are in source order: CSR edge i is edge i.
  const csr = csrFromEdges(n, Uint32Array.from(src), Uint32Array.from(dst));
  const old = (p: number): number => oldId[p] as number;
  const nofollow = graph.edgeNofollow;
  const anchorOf = graph.anchorOf;
  const contentOf = graph.contentOf;
  const seeds = Array.from(graph.seeds, (s) => resolve(s)).filter((s) => s >= 0);
  return {
    format: graph.format,
    source: graph.source,
    pageCount: n,
    linkCount: src.length,
    csr,
    pageHost,
    hosts,
    edgeNofollow: nofollow === null ? null : Uint8Array.from(origin, (e) => nofollow[e] as number),
    pageKinds: null,
    seeds: Uint32Array.from(new Set(seeds)),
    hasUrls: graph.hasUrls,
    urlOf: (p) => graph.urlOf(old(p)),
    nameOf: (p) => graph.nameOf(old(p)),
    pageIdOf: (name) => {
      const p = graph.pageIdOf(name);
      return p < 0 ? -1 : (newId[p] as number);
    },
    anchorOf: anchorOf === null ? null : (edge) => anchorOf(origin[edge] as number),
    contentOf: contentOf === null ? null : (p) => contentOf(old(p)),
    pageBytes: graph.pageBytes === null ? null : Float64Array.from(oldId, (p) => graph.pageBytes?.[p] as number),
    labels: graph.labels,
    close: () => graph.close(),
  };
}

/** Progress of {@link withContentInMemory}: pages read so far of all. */
export type ContentProgress = (done: number, total: number) => void;

/**
 * `graph` with its titles, text, anchor texts and link occurrences (`linksOf`, when it has them) read
 * once into memory, page by page, each page's anchors and links right after its content, so a
 * provider that parses a page per call parses each page once.
 */
export function withContentInMemory(graph: SimGraph, onProgress: ContentProgress = () => {}): SimGraph {
  const contentOf = graph.contentOf;
  const anchorOf = graph.anchorOf;
  const n = graph.pageCount;
  const titles: string[] = new Array<string>(n);
  const texts: string[] = new Array<string>(n);
  const anchors: string[] = new Array<string>(graph.linkCount);
  const linksOf = graph.linksOf ?? null;
  const links: PageLinks[] = linksOf === null ? [] : new Array<PageLinks>(n);
  const { offsets } = graph.csr;
  const step = Math.max(1, Math.ceil(n / 20));
  for (let p = 0; p < n; p++) {
    const c: PageContent = contentOf === null ? {} : contentOf(p);
    // Flattened copies: a parser's slices would keep whole documents alive.
    titles[p] = flat(c.title ?? '');
    texts[p] = flat(c.text ?? '');
    if (anchorOf !== null) for (let e = offsets[p] as number; e < (offsets[p + 1] as number); e++) anchors[e] = flat(anchorOf(e));
    if (linksOf !== null) {
      const l = linksOf(p);
      links[p] = { ids: l.ids, anchors: l.anchors.map(flat) };
    }
    if ((p + 1) % step === 0 || p + 1 === n) onProgress(p + 1, n);
  }
  return {
    ...graph,
    anchorOf: anchorOf === null ? null : (edge) => anchors[edge] as string,
    contentOf: contentOf === null ? null : (p) => ({ title: titles[p] as string, text: texts[p] as string }),
    linksOf: linksOf === null ? null : (p) => links[p] as PageLinks,
  };
}

/** A string that holds its own characters (not a slice or a rope over a larger one). */
function flat(s: string): string {
  return s.length === 0 ? '' : (' ' + s).slice(1);
}
