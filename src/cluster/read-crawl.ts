/**
 * Reads a finished (or interrupted) crawl directory back into the inputs of the collaboration
 * metrics (`src/eval/collab-metrics.ts`), for `shoal eval` and the end of `shoal crawl --nodes`:
 *
 * - a collaborative crawl (`cluster.json`): each node's directory; a crawl of one node: the
 *   directory itself;
 * - downloads: the crawl-log lines with a response that the node fetched itself (a forwarded page's
 *   line at its receiver names the node that fetched it, and counts there);
 * - exchange counts: the node's `exchange.json` (zeros for a node on its own);
 * - links: each node's link graph (`links/`), for p_l;
 * - with a ground-truth export: URLs are matched to the truth's pages (host and path, port ignored),
 *   and the target of coverage is every page a polite crawler reaches from the seeds (`reach` = 2).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import type { CrawlLinks, NodeCrawl } from '../eval/collab-metrics.js';
import { linkPairsOfCsr } from '../eval/link-locality.js';
import { readExchangeTotals } from '../node/collaboration/exchange-totals.js';
import { CRAWL_LOG_FILE, readCrawlLog, type CrawlLogEntry } from '../store/crawl-log.js';
import { readLinkGraph } from '../store/link-graph-reader.js';
import { LINK_GRAPH_DIR } from '../store/link-graph.js';
import { Reach } from '../web/truth/format.js';
import type { Truth } from '../web/truth/read.js';
import { nodeDirsOf, type ClusterManifest } from '../store/crawl-dir.js';

/** A crawl directory read for evaluation. */
export interface CrawlForEval {
  /** The manifest of a collaborative crawl; null for a crawl of one node. */
  readonly manifest: ClusterManifest | null;
  readonly nodes: readonly NodeCrawl[];
  readonly links: readonly CrawlLinks[];
  /** With a truth: the pages a polite crawler reaches, as the keys downloads are matched by. */
  readonly target: readonly string[] | null;
}

/** How a URL is keyed for evaluation: `page:<id>` for a page of the truth, else the URL itself. */
export function evalKeyOf(truth: Truth | null): (url: string) => string {
  return (url) => {
    if (truth === null) return url;
    const page = truth.pageIdOf(url);
    return page < 0 ? url : `page:${page}`;
  };
}

/** The truth's page of a key made by {@link evalKeyOf}, or −1. */
export function truthPageOfKey(key: string): number {
  return key.startsWith('page:') ? Number(key.slice(5)) : -1;
}

/** Options of {@link readCrawlForEval}. */
export interface ReadCrawlOptions {
  /**
   * Called with every crawl-log line that counts for its node (all but a forwarded page's line at
   * its receiver), in log order, and the node's index in `nodes`: for readers that want more of
   * each line than the metrics do, without reading the logs twice.
   */
  readonly onEntry?: (node: number, entry: CrawlLogEntry) => void;
}

/**
 * Reads `dir` (a crawl directory of one node or of a collaborative crawl).
 * @param truth when given, URLs are keyed by the truth's page ids (`page:<id>`), others kept as they are.
 * @throws ShoalError `IO` for a directory that is no crawl directory or a damaged file.
 */
export async function readCrawlForEval(dir: string, truth: Truth | null = null, options: ReadCrawlOptions = {}): Promise<CrawlForEval> {
  const { manifest, nodes: dirs } = nodeDirsOf(dir);
  const keyOf = evalKeyOf(truth);
  const nodes: NodeCrawl[] = [];
  const links: CrawlLinks[] = [];
  for (const [id, nodeDir] of dirs) {
    const logPath = join(nodeDir, CRAWL_LOG_FILE);
    if (!existsSync(logPath))
      throw new ShoalError(
        'IO',
        `${nodeDir} holds no crawl log (${CRAWL_LOG_FILE}): not a crawl directory, or its crawl log was turned off`,
      );
    let nodeId = id;
    const downloads: NodeCrawl['downloads'][number][] = [];
    for await (const e of readCrawlLog(logPath)) {
      nodeId ??= e.node;
      if (e.node !== null && nodeId !== null && e.node !== nodeId) continue;
      options.onEntry?.(nodes.length, e);
      if (e.status === 0) continue;
      downloads.push({ url: keyOf(e.url), host: new URL(e.url).hostname, bytes: e.bytes });
    }
    nodes.push({ node: nodeId ?? 'shoal', downloads, exchange: readExchangeTotals(nodeDir) });
    if (existsSync(join(nodeDir, LINK_GRAPH_DIR))) {
      const graph = await readLinkGraph(join(nodeDir, LINK_GRAPH_DIR));
      try {
        links.push({ urls: graph.urls.map(keyOf), ...linkPairsOfCsr(graph.csr) });
      } finally {
        graph.close();
      }
    }
  }
  let target: string[] | null = null;
  if (truth !== null) {
    target = [];
    for (let p = 0; p < truth.pageCount; p++) if (truth.reach[p] === Reach.polite) target.push(`page:${p}`);
  }
  return { manifest, nodes, links, target };
}
