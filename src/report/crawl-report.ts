/**
 * The report of a crawl (`shoal report CRAWL_DIR`) as one JSON-able model: the crawl-log figures of
 * `crawl-stats.ts` (throughput, outcomes, status classes, fetch latency, discoveries between nodes,
 * coverage over time), each node's loads and exchange totals, and the metrics `shoal eval` computes
 * (`src/cluster/crawl-eval.ts`: collaboration, topic, geographic, community), passed in as they are.
 * `crawl-report-html.ts` draws it, `crawl-report-csv.ts` tabulates it, and `report.json` is this
 * model itself. Pure: the directory is read by `src/cluster/read-crawl-report.ts`.
 */
import type { StrategySpec } from '../core/strings.js';
import type { CollaborationMetrics, NodeExchangeCounts } from '../eval/collab-metrics.js';
import type { CommunityEval } from '../eval/community-metrics.js';
import type { GeoMetrics } from '../eval/geo-metrics.js';
import type { TopicEval } from '../eval/topic-metrics.js';
import {
  coverageOverTime,
  discoveryPairs,
  latencyHistogram,
  latencySummary,
  outcomeCounts,
  requestDurations,
  statusClassCounts,
  throughput,
  timeRange,
  type CountRow,
  type DiscoveryPairs,
  type LatencyHistogram,
  type LatencySummary,
  type ReportFetch,
  type Throughput,
} from './crawl-stats.js';

/** Format tag and version of `report.json`. */
export const CRAWL_REPORT_FORMAT = 'shoal-crawl-report/1';

/** The files `shoal report` writes into a crawl directory. */
export const CRAWL_REPORT_FILES = {
  html: 'report.html',
  json: 'report.json',
  throughput: 'throughput.csv',
  nodes: 'nodes.csv',
  outcomes: 'outcomes.csv',
  latency: 'latency.csv',
  /** Collaborative crawls only. */
  pairs: 'pairs.csv',
  /** With a truth only. */
  coverage: 'coverage.csv',
} as const;

/** A node's exchange totals (its `exchange.json`; zeros for a node on its own). */
export interface ExchangeFigures extends NodeExchangeCounts {
  readonly messagesSent: number;
  readonly messagesReceived: number;
}

/** Which crawl a report is about. */
export interface ReportedCrawl {
  /** The crawl directory, as the user named it. */
  readonly dir: string;
  /** The truth export the crawl was measured against; null without one. */
  readonly truthDir: string | null;
  /** The partitioner of a collaborative crawl; null for one node. */
  readonly partitioner: StrategySpec | null;
  readonly partitionCount: number;
  /** What nodes forward to each other (`urls`, `pages`, `both`); null for one node. */
  readonly forward: string | null;
  /** Node ids, in the order of the metrics' rows; `ReportFetch.node` indexes them. */
  readonly nodes: readonly string[];
}

/** What {@link buildCrawlReport} is built from. */
export interface CrawlReportInput extends ReportedCrawl {
  /** Every crawl-log line that counts for its node. */
  readonly fetches: readonly ReportFetch[];
  /** Per node, parallel to `nodes`. */
  readonly exchange: readonly ExchangeFigures[];
  readonly metrics: CollaborationMetrics;
  /** With a truth: the key of a URL and the target pages (as the coverage metric keys them). */
  readonly target: { readonly keyOf: (url: string) => string; readonly pages: ReadonlySet<string> } | null;
  readonly topic: TopicEval | null;
  readonly geo: GeoMetrics | null;
  readonly isGeoWithoutTruth: boolean;
  readonly community: CommunityEval | null;
}

/** One node's row. */
export interface NodeReportRow {
  readonly node: string;
  /** Crawl-log lines that count for it. */
  readonly lines: number;
  /** Lines that made a request. */
  readonly requests: number;
  /** Lines with a response (status > 0): its downloads. */
  readonly pages: number;
  readonly bytes: number;
  /** Requests that got no response (DNS error, refused, timeout, reset, ...). */
  readonly failures: number;
  readonly latency: LatencySummary;
  readonly exchange: ExchangeFigures;
  /** URLs it tried that were discovered on another node's page (see `discoveryPairs`); null for one node. */
  readonly fromOtherNodes: number | null;
}

/** The crawl report. Plain JSON: numbers (NaN where undefined, `null` in the JSON), strings, arrays, null. */
export interface CrawlReport {
  readonly format: typeof CRAWL_REPORT_FORMAT;
  readonly crawl: ReportedCrawl & {
    /** When the first fetch started and the last ended (ISO 8601 UTC); null for an empty log. */
    readonly startedAt: string | null;
    readonly endedAt: string | null;
  };
  readonly totals: {
    readonly lines: number;
    readonly requests: number;
    readonly pages: number;
    readonly bytes: number;
    /** From the first fetch's start to the last one's end. */
    readonly durationMs: number;
    /** pages / duration; NaN for a zero duration. */
    readonly pagesPerSecond: number;
    readonly bytesPerSecond: number;
    /** Distinct hosts of the downloads. */
    readonly hosts: number;
  };
  readonly throughput: Throughput;
  readonly outcomes: readonly CountRow[];
  readonly statusClasses: readonly CountRow[];
  readonly latency: { readonly summary: LatencySummary; readonly histogram: LatencyHistogram };
  readonly nodes: readonly NodeReportRow[];
  /** Who found each node's URLs; null for one node. */
  readonly discoveries: DiscoveryPairs | null;
  /** With a truth: target pages downloaded by the end of each throughput bucket. */
  readonly coverage: { readonly targetPages: number; readonly covered: readonly number[] } | null;
  readonly collaboration: CollaborationMetrics;
  readonly topic: TopicEval | null;
  readonly geo: GeoMetrics | null;
  readonly isGeoWithoutTruth: boolean;
  readonly community: CommunityEval | null;
}

/** Options of {@link buildCrawlReport}. */
export interface CrawlReportOptions {
  /** Most time buckets of the throughput. Default 60. */
  readonly buckets?: number;
  /** Most bins of the latency histogram up to p99. Default 20. */
  readonly latencyBins?: number;
}

/** Builds the report model. */
export function buildCrawlReport(input: CrawlReportInput, options: CrawlReportOptions = {}): CrawlReport {
  const { dir, truthDir, partitioner, partitionCount, forward, fetches, nodes } = input;
  const range = timeRange(fetches);
  const durationMs = range === null ? 0 : range.endMs - range.startMs;
  const flow = throughput(fetches, nodes, options.buckets ?? 60);
  const allDurations = requestDurations(fetches);
  const discoveries = nodes.length > 1 ? discoveryPairs(fetches, nodes.length) : null;
  const perNode = nodes.map(() => ({ lines: 0, requests: 0, pages: 0, bytes: 0, failures: 0 }));
  for (const f of fetches) {
    const n = perNode[f.node];
    if (n === undefined) throw new RangeError(`buildCrawlReport: a line names node ${f.node}; there are ${nodes.length}`);
    n.lines++;
    if (f.hasRequest) n.requests++;
    if (f.status > 0) {
      n.pages++;
      n.bytes += f.bytes;
    } else if (f.hasRequest) n.failures++;
  }
  const sum = (pick: (n: (typeof perNode)[number]) => number): number => perNode.reduce((s, n) => s + pick(n), 0);
  const pages = sum((n) => n.pages);
  const bytes = sum((n) => n.bytes);
  const perSecond = (count: number): number => (durationMs > 0 ? count / (durationMs / 1000) : NaN);
  return {
    format: CRAWL_REPORT_FORMAT,
    crawl: {
      dir,
      truthDir,
      partitioner,
      partitionCount,
      forward,
      nodes,
      startedAt: range === null ? null : new Date(range.startMs).toISOString(),
      endedAt: range === null ? null : new Date(range.endMs).toISOString(),
    },
    totals: {
      lines: fetches.length,
      requests: sum((n) => n.requests),
      pages,
      bytes,
      durationMs,
      pagesPerSecond: perSecond(pages),
      bytesPerSecond: perSecond(bytes),
      hosts: input.metrics.diversity.hosts,
    },
    throughput: flow,
    outcomes: outcomeCounts(fetches),
    statusClasses: statusClassCounts(fetches),
    latency: { summary: latencySummary(allDurations), histogram: latencyHistogram(allDurations, options.latencyBins ?? 20) },
    nodes: nodes.map((node, k) => {
      const n = perNode[k] as (typeof perNode)[number];
      const column = discoveries?.counts.map((row) => row[k] as number);
      return {
        node,
        ...n,
        latency: latencySummary(requestDurations(fetches, k)),
        exchange: input.exchange[k] as ExchangeFigures,
        fromOtherNodes: column === undefined ? null : column.reduce((s, c, i) => (i === k ? s : s + c), 0),
      };
    }),
    discoveries,
    coverage:
      input.target === null
        ? null
        : { targetPages: input.target.pages.size, covered: coverageOverTime(fetches, input.target.keyOf, input.target.pages, flow) },
    collaboration: input.metrics,
    topic: input.topic,
    geo: input.geo,
    isGeoWithoutTruth: input.isGeoWithoutTruth,
    community: input.community,
  };
}

/** `report.json`: the model, two-space indented, undefined figures (NaN) as null. */
export function crawlReportJson(report: CrawlReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value), 2)}\n`;
}
