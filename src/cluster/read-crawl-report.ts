/**
 * Reads a crawl directory (one node, a node of a distributed crawl, or an embedded collaborative
 * crawl with `cluster.json` and its nodes' directories) into the crawl report of
 * `src/report/crawl-report.ts`, and writes the report's files into the directory.
 *
 * One pass over the crawl logs: `readCrawlForEval` reads them for the metrics and hands every line
 * that counts for its node (a forwarded page's line counts at the node that fetched it) to the
 * report. The metrics are `evaluateCrawl`'s, the same as `shoal eval` prints; the exchange totals are
 * each node's `exchange.json`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crawlReportHtml } from '../report/crawl-report-html.js';
import { crawlReportCsvFiles } from '../report/crawl-report-csv.js';
import {
  buildCrawlReport,
  CRAWL_REPORT_FILES,
  crawlReportJson,
  type CrawlReport,
  type CrawlReportOptions,
} from '../report/crawl-report.js';
import type { ReportFetch } from '../report/crawl-stats.js';
import { readExchangeTotals } from '../node/collaboration/exchange-totals.js';
import { ShoalError } from '../core/errors.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import { nodeDirsOf } from '../store/crawl-dir.js';
import type { Truth } from '../web/truth/read.js';
import { evaluateCrawl } from './crawl-eval.js';
import { evalKeyOf, readCrawlForEval } from './read-crawl.js';

/** A crawl-log line as the report reads it. */
function fetchOf(node: number, e: CrawlLogEntry): ReportFetch {
  return {
    node,
    endMs: Date.parse(e.ts),
    url: e.url,
    discoveredFrom: e.discoveredFrom,
    status: e.status,
    outcome: e.outcome,
    bytes: e.bytes,
    durationMs: e.durationMs,
    hasRequest: e.attempt > 0,
  };
}

/** Options of {@link readCrawlReport}. */
export interface ReadCrawlReportOptions extends CrawlReportOptions {
  /** The test web's ground truth: coverage, and the metrics that need true labels. */
  readonly truth?: Truth | null;
  /** Where that truth was read from, for the page. */
  readonly truthDir?: string | null;
}

/**
 * Reads `dir` and builds its report.
 * @throws ShoalError `IO` for a directory that is no crawl directory or a damaged file.
 */
export async function readCrawlReport(dir: string, options: ReadCrawlReportOptions = {}): Promise<CrawlReport> {
  const truth = options.truth ?? null;
  const fetches: ReportFetch[] = [];
  const crawl = await readCrawlForEval(dir, truth, { onEntry: (node, e) => fetches.push(fetchOf(node, e)) });
  const evaluation = await evaluateCrawl([dir], truth, [crawl]);
  const { manifest, nodes: nodeDirs } = nodeDirsOf(dir);
  return buildCrawlReport(
    {
      dir,
      truthDir: options.truthDir ?? null,
      partitioner: evaluation.partitioner,
      partitionCount: evaluation.partitionCount,
      forward: manifest?.forward ?? null,
      nodes: crawl.nodes.map((n) => n.node),
      fetches,
      exchange: nodeDirs.map(([, nodeDir]) => readExchangeTotals(nodeDir)),
      metrics: evaluation.metrics,
      target: truth === null || crawl.target === null ? null : { keyOf: evalKeyOf(truth), pages: new Set(crawl.target) },
      topic: evaluation.topic,
      geo: evaluation.geo,
      isGeoWithoutTruth: evaluation.isGeoWithoutTruth,
      community: evaluation.community,
    },
    options,
  );
}

/**
 * Writes the report's files into `dir` (`report.html`, `report.json` and the CSV tables of
 * `CRAWL_REPORT_FILES`); returns their names, the page first.
 * @throws ShoalError `IO` when a file cannot be written.
 */
export async function writeCrawlReport(dir: string, report: CrawlReport): Promise<string[]> {
  const files = new Map<string, string>([
    [CRAWL_REPORT_FILES.html, crawlReportHtml(report)],
    [CRAWL_REPORT_FILES.json, crawlReportJson(report)],
    ...crawlReportCsvFiles(report),
  ]);
  for (const [name, text] of files) {
    try {
      await writeFile(join(dir, name), text);
    } catch (err) {
      throw new ShoalError('IO', `cannot write ${join(dir, name)}: ${(err as Error).message}`, { cause: err });
    }
  }
  return [...files.keys()];
}
