/**
 * The tables of a crawl report (`crawl-report.ts`) as CSV files for spreadsheets and plotting
 * tools: one row per observation, a header naming each column with its unit, RFC 4180 quoting,
 * empty cells for undefined figures, lines ending with `\n`.
 *
 * | file | rows |
 * |---|---|
 * | `throughput.csv` | one per time bucket and node: `elapsed_ms` (bucket start), `node`, `pages`, `bytes`, `pages_per_s`, `bytes_per_s` (sum over the nodes for the crawl) |
 * | `nodes.csv` | one per node: lines, requests, pages, bytes, failures, latency percentiles, exchange totals, ratios, URLs from other nodes |
 * | `outcomes.csv` | `kind` (`outcome` or `status_class`), `label`, `lines` |
 * | `latency.csv` | one per histogram bin: `from_ms`, `to_ms` (empty for the overflow bin), `requests` |
 * | `pairs.csv` | collaborative crawls: `from_node`, `to_node`, `urls` (see `discoveryPairs`; `from_node` is `(seed)` or `(unknown)` for those) |
 * | `coverage.csv` | with a truth: `elapsed_ms` (bucket end), `covered_pages`, `target_pages`, `coverage` |
 */
import { csvField, formatCsvNumber } from './curves-csv.js';
import { CRAWL_REPORT_FILES, type CrawlReport } from './crawl-report.js';

const num = (v: number | null): string => (v === null ? '' : formatCsvNumber(v));
const csv = (header: readonly string[], rows: readonly (readonly string[])[]): string =>
  `${[header.map(csvField).join(','), ...rows.map((r) => r.join(','))].join('\n')}\n`;

/** `throughput.csv`. */
export function throughputCsv(report: CrawlReport): string {
  const t = report.throughput;
  const seconds = t.bucketMs / 1000;
  const rows: string[][] = [];
  for (let b = 0; b < t.buckets; b++)
    for (const n of t.nodes) {
      const pages = n.pages[b] as number;
      const bytes = n.bytes[b] as number;
      rows.push([num(b * t.bucketMs), csvField(n.node), num(pages), num(bytes), num(pages / seconds), num(bytes / seconds)]);
    }
  return csv(['elapsed_ms', 'node', 'pages', 'bytes', 'pages_per_s', 'bytes_per_s'], rows);
}

/** `nodes.csv`. */
export function nodesCsv(report: CrawlReport): string {
  const header = [
    'node',
    'lines',
    'requests',
    'pages',
    'bytes',
    'failures',
    'latency_p50_ms',
    'latency_p90_ms',
    'latency_p99_ms',
    'urls_sent',
    'urls_received',
    'pages_sent',
    'pages_received',
    'page_bytes_sent',
    'page_bytes_received',
    'bytes_sent',
    'bytes_received',
    'messages_sent',
    'messages_received',
    'exported_ratio',
    'imported_ratio',
    'urls_from_other_nodes',
  ];
  const rows = report.nodes.map((n, k) => {
    const e = n.exchange;
    const c = report.collaboration.nodes[k];
    return [
      csvField(n.node),
      ...[n.lines, n.requests, n.pages, n.bytes, n.failures, n.latency.p50Ms, n.latency.p90Ms, n.latency.p99Ms].map(num),
      ...[e.urlsSent, e.urlsReceived, e.pagesSent, e.pagesReceived, e.pageBytesSent, e.pageBytesReceived].map(num),
      ...[e.bytesSent, e.bytesReceived, e.messagesSent, e.messagesReceived].map(num),
      num(c?.exportedRatio ?? null),
      num(c?.importedRatio ?? null),
      num(n.fromOtherNodes),
    ];
  });
  return csv(header, rows);
}

/** `outcomes.csv`. */
export function outcomesCsv(report: CrawlReport): string {
  const rows = [
    ...report.outcomes.map((o) => ['outcome', csvField(o.label), num(o.count)]),
    ...report.statusClasses.map((s) => ['status_class', csvField(s.label), num(s.count)]),
  ];
  return csv(['kind', 'label', 'lines'], rows);
}

/** `latency.csv`. */
export function latencyCsv(report: CrawlReport): string {
  const h = report.latency.histogram;
  const rows = h.counts.map((c, i) => [num(h.edgesMs[i] as number), num(h.edgesMs[i + 1] as number), num(c)]);
  if (h.overflow > 0) rows.push([num(h.edgesMs[h.edgesMs.length - 1] as number), '', num(h.overflow)]);
  return csv(['from_ms', 'to_ms', 'requests'], rows);
}

/** `pairs.csv`; null for a crawl of one node. */
export function pairsCsv(report: CrawlReport): string | null {
  const d = report.discoveries;
  if (d === null) return null;
  const names = report.crawl.nodes;
  const rows: string[][] = [];
  d.counts.forEach((row, i) =>
    row.forEach((count, j) => rows.push([csvField(names[i] as string), csvField(names[j] as string), num(count)])),
  );
  names.forEach((name, j) => {
    rows.push(['(seed)', csvField(name), num(d.seeds[j] as number)]);
    rows.push(['(unknown)', csvField(name), num(d.unknown[j] as number)]);
  });
  return csv(['from_node', 'to_node', 'urls'], rows);
}

/** `coverage.csv`; null without a truth. */
export function coverageCsv(report: CrawlReport): string | null {
  const c = report.coverage;
  if (c === null) return null;
  const t = report.throughput;
  const rows = c.covered.map((covered, b) => [
    num((b + 1) * t.bucketMs),
    num(covered),
    num(c.targetPages),
    num(c.targetPages > 0 ? covered / c.targetPages : NaN),
  ]);
  return csv(['elapsed_ms', 'covered_pages', 'target_pages', 'coverage'], rows);
}

/** Every CSV file of the report, by file name (pairs and coverage only when they apply). */
export function crawlReportCsvFiles(report: CrawlReport): Map<string, string> {
  const files = new Map<string, string>([
    [CRAWL_REPORT_FILES.throughput, throughputCsv(report)],
    [CRAWL_REPORT_FILES.nodes, nodesCsv(report)],
    [CRAWL_REPORT_FILES.outcomes, outcomesCsv(report)],
    [CRAWL_REPORT_FILES.latency, latencyCsv(report)],
  ]);
  const pairs = pairsCsv(report);
  if (pairs !== null) files.set(CRAWL_REPORT_FILES.pairs, pairs);
  const coverage = coverageCsv(report);
  if (coverage !== null) files.set(CRAWL_REPORT_FILES.coverage, coverage);
  return files;
}
