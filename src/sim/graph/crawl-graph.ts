/**
 * The link graph a real crawl wrote (`<crawl dir>/links/`, `store/link-graph.ts`) as a simulator
 * graph, so that ordering policies and partitioners can be replayed on what a crawl actually found
 * (SPEC §6). Accepts a crawl directory of one node, a collaborative crawl directory (`cluster.json`:
 * every node's directory is read), several node directories of a distributed crawl, or a `links/`
 * directory itself; their graphs are merged into one over the union of their URLs.
 *
 * - **Pages** are every URL the link graphs name (fetched pages and the targets of their links),
 *   plus the seeds. A page's out-links are those recorded by its first fetch: in the first
 *   directory (in the order given) that fetched it, the first run of consecutive link records it
 *   wrote (a page fetched again after a crash, or by a second node, wrote its links again).
 * - **Links** keep document order, repeats and self-links; rel=nofollow (and meta robots nofollow)
 *   links are marked not followed; frames are links, as in the crawl.
 * - **What a page gave the crawl**: a page whose link is a redirect answered 3xx (its target is
 *   followed without showing the page to the policy); a page whose first logged fetch had no answer,
 *   an error status or a media type other than HTML gave nothing; every other page, fetched or not,
 *   is an HTML page.
 * - **Seeds** are the crawl log's depth-0 URLs found on no page, in log order (directories in the
 *   order given); without a crawl log, the first URL of each link graph.
 * - **Per host**: the address the crawl connected to and the mean fetch time it measured (the
 *   `measured` latency model); **per page**: the bytes downloaded, for load balance in bytes.
 * - **Content** (option `withContent`): titles and visible text read back from the crawl's WARC
 *   files through their CDXJ indexes and parsed as the crawl parsed them (`crawl-content.ts`);
 *   without it the graph has anchor texts but no page text.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ShoalError } from '../../core/errors.js';
import { csrFromEdges } from '../../eval/csr.js';
import { CLUSTER_MANIFEST, nodeDirsOf } from '../../store/crawl-dir.js';
import { urlParts } from '../../url/url-parts.js';
import { CRAWL_LOG_FILE, readCrawlLog } from '../../store/crawl-log.js';
import { readLinkGraph, type LinkGraph } from '../../store/link-graph-reader.js';
import { LINK_GRAPH_DIR, LINKS_FILE, LinkFlag } from '../../store/link-graph.js';
import { crawlContent, warcDirsOf, type CrawlContent } from './crawl-content.js';
import { edgeOrigins } from './edge-origin.js';
import { GrowableU32, GrowableU8 } from './growable.js';
import { numberHosts, Numbering } from './numbering.js';
import { SimGraphFormat, SimPageKind, type SimGraph } from './sim-graph.js';

/** The node directories (holding `links/`) and link directories that `paths` name, in order. */
export function crawlLinkDirs(paths: readonly string[]): { readonly nodeDir: string | null; readonly linksDir: string }[] {
  const out: { nodeDir: string | null; linksDir: string }[] = [];
  for (const path of paths) {
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new ShoalError('GRAPH_FORMAT', `crawl graph: ${path} is not a directory`);
    const cluster = clusterNodeDirs(path);
    if (cluster !== null) {
      for (const nodeDir of cluster) out.push({ nodeDir, linksDir: join(nodeDir, LINK_GRAPH_DIR) });
    } else if (existsSync(join(path, LINKS_FILE))) {
      out.push({ nodeDir: null, linksDir: path });
    } else if (existsSync(join(path, LINK_GRAPH_DIR, LINKS_FILE))) {
      out.push({ nodeDir: path, linksDir: join(path, LINK_GRAPH_DIR) });
    } else {
      throw new ShoalError(
        'GRAPH_FORMAT',
        `crawl graph: ${path} holds no link graph (${LINK_GRAPH_DIR}/${LINKS_FILE}) and no ` +
          `${CLUSTER_MANIFEST}: not a crawl directory, or it was crawled with store.hasLinkGraph off`,
      );
    }
  }
  if (out.length === 0) throw new ShoalError('GRAPH_FORMAT', 'crawl graph: no directory given');
  return out;
}

/** The node directories a collaborative crawl's `cluster.json` names; null for a directory without one. */
function clusterNodeDirs(path: string): string[] | null {
  let read: ReturnType<typeof nodeDirsOf>;
  try {
    read = nodeDirsOf(path);
  } catch (err) {
    throw new ShoalError('GRAPH_FORMAT', `crawl graph: ${(err as Error).message}`, { cause: err });
  }
  return read.manifest === null ? null : read.nodes.map(([, dir]) => dir);
}

/** Options of {@link loadCrawlGraph}. */
export interface CrawlGraphOptions {
  /**
   * Read page titles and visible text from the crawl's WARC files (`warc/index.cdxj` of each node
   * directory; a `links/` directory given alone is read with its parent's), for policies and
   * importances that read content. Default false.
   */
  readonly withContent?: boolean;
}

/**
 * Reads and merges the link graphs of `paths` (see the file comment).
 * @throws ShoalError `IO` naming the directory and file when one is missing or damaged;
 *   `GRAPH_FORMAT` when content is asked for and no directory holds a WARC index.
 */
export async function loadCrawlGraph(paths: readonly string[], options: CrawlGraphOptions = {}): Promise<SimGraph> {
  const dirs = crawlLinkDirs(paths);
  const pages = new Numbering();
  const globalId = (url: string): number => pages.idOf(url);
  const src = new GrowableU32();
  const dst = new GrowableU32();
  const nofollow = new GrowableU32();
  const edgeGraph = new GrowableU32();
  const edgeLocal = new GrowableU32();
  const graphs: LinkGraph[] = [];
  // Pages whose out-links are recorded already (by global id): 1 byte each.
  const linked = new GrowableU8();
  // Pages that answered a redirect (their one link is flagged so).
  const redirects = new GrowableU8();

  for (const { linksDir } of dirs) {
    const g = await readLinkGraph(linksDir);
    graphs.push(g);
    const gi = graphs.length - 1;
    const local = Uint32Array.from(g.urls, globalId);
    const { offsets, targets } = g.csr;
    for (let u = 0; u < g.csr.nodeCount; u++) {
      const start = offsets[u] as number;
      const end = offsets[u + 1] as number;
      if (start === end) continue;
      const source = local[u] as number;
      if (linked.at(source) === 1) continue; // a fetch in an earlier directory recorded its links first
      linked.set(source, 1);
      for (let e = start; e < end; e++) {
        // The first run of consecutive records is the first fetch's links.
        if (e > start && (g.edgeRecord[e] as number) !== (g.edgeRecord[e - 1] as number) + 1) break;
        src.push(source);
        dst.push(local[targets[e] as number] as number);
        nofollow.push(((g.flags[e] as number) & LinkFlag.nofollow) !== 0 ? 1 : 0);
        if (((g.flags[e] as number) & LinkFlag.redirect) !== 0) redirects.set(source, 1);
        edgeGraph.push(gi);
        edgeLocal.push(e);
      }
    }
  }

  const seedUrls: string[] = [];
  const hostLatency = new Map<string, { sum: number; count: number }>();
  const hostIp = new Map<string, string>();
  const bytesOf = new Map<string, number>();
  /** URLs whose first logged fetch gave no HTML page (an error, no answer, another media type). */
  const isNoContent = new Set<string>();
  const answered = new Set<string>();
  let hasLog = false;
  for (const { nodeDir } of dirs) {
    const logPath = nodeDir === null ? null : join(nodeDir, CRAWL_LOG_FILE);
    if (logPath === null || !existsSync(logPath)) continue;
    hasLog = true;
    for await (const e of readCrawlLog(logPath)) {
      if (e.depth === 0 && e.discoveredFrom === null) seedUrls.push(e.url);
      if (!answered.has(e.url)) {
        answered.add(e.url);
        const isHtml = e.contentType === null || e.contentType === 'text/html' || e.contentType === 'application/xhtml+xml';
        if (e.status === 0 || e.status >= 400 || (e.status < 300 && !isHtml)) isNoContent.add(e.url);
      }
      if (e.status === 0) continue;
      const host = urlParts(e.url).hostKey;
      const stat = hostLatency.get(host) ?? { sum: 0, count: 0 };
      stat.sum += e.durationMs;
      stat.count++;
      hostLatency.set(host, stat);
      if (e.ip !== null && !hostIp.has(host)) hostIp.set(host, e.ip);
      if (!bytesOf.has(e.url)) bytesOf.set(e.url, e.bytes);
    }
  }
  if (!hasLog) for (const g of graphs) if (g.urls.length > 0) seedUrls.push(g.urls[0] as string);
  const seedIds: number[] = [];
  const isSeed = new Set<number>();
  for (const url of seedUrls) {
    const id = globalId(url);
    if (!isSeed.has(id)) {
      isSeed.add(id);
      seedIds.push(id);
    }
  }

  const urls = pages.names;
  const n = urls.length;
  const csr = csrFromEdges(n, src.view(), dst.view());
  const m = src.length;
  const origin = edgeOrigins(csr, src.view());
  const edgeNofollow = Uint8Array.from(origin, (i) => nofollow.data[i] as number);

  const { pageHost, hosts } = numberHosts(n, (p) => urlParts(urls[p] as string).hostKey);
  const hostNames = hosts.names;
  const measured = Float64Array.from(hostNames, (h) => {
    const s = hostLatency.get(h);
    return s === undefined ? Number.NaN : s.sum / s.count;
  });
  const pageBytes = hasLog ? Float64Array.from(urls, (u) => bytesOf.get(u) ?? 0) : null;
  const isAnyIp = hostIp.size > 0;
  const pageKinds = Uint8Array.from(urls, (url, p) =>
    redirects.at(p) === 1 ? SimPageKind.redirect : isNoContent.has(url) ? SimPageKind.noContent : SimPageKind.page,
  );
  let content: CrawlContent | null = null;
  if (options.withContent === true) {
    try {
      content = await crawlContent(warcDirsOf(dirs.map((d) => d.nodeDir ?? dirname(d.linksDir))), n, (url) => pages.find(url));
    } catch (err) {
      for (const g of graphs) g.close();
      throw err;
    }
  }

  return {
    format: SimGraphFormat.crawl,
    source: paths.join(', '),
    pageCount: n,
    linkCount: m,
    csr,
    pageHost,
    hosts: {
      count: hostNames.length,
      nameOf: (h) => hostNames[h] as string,
      ips: isAnyIp ? hostNames.map((h) => hostIp.get(h) ?? '') : null,
      crawlDelayMs: null,
      measuredLatencyMs: hasLog ? measured : null,
    },
    edgeNofollow,
    pageKinds,
    seeds: Uint32Array.from(seedIds),
    hasUrls: true,
    urlOf: (p) => urls[p] as string,
    nameOf: (p) => urls[p] as string,
    pageIdOf: (name) => pages.find(name),
    anchorOf: (edge) => {
      const i = origin[edge] as number;
      return (graphs[edgeGraph.data[i] as number] as LinkGraph).anchorOf(edgeLocal.data[i] as number);
    },
    contentOf: content === null ? null : content.contentOf,
    pageBytes,
    labels: null,
    close: () => {
      for (const g of graphs) g.close();
      content?.close();
    },
  };
}
