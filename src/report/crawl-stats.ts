/**
 * The figures of a crawl report that come from the crawl log alone (SPEC §5, throughput), as pure
 * functions over its lines ({@link ReportFetch}, one per line, read by `src/cluster/read-crawl-report.ts`):
 *
 * - **throughput**: pages (lines with a response, status > 0) and their body bytes per time bucket
 *   and node, bucketed by when each fetch ended; time 0 is when the first fetch started (its end
 *   minus its duration). The bucket width is the smallest of {@link BUCKET_STEPS_MS} that needs no
 *   more than the wanted number of buckets. A rate is a bucket's count over the bucket's width, so
 *   the last bucket, cut short by the end of the crawl, reads low; a resumed crawl's pause reads 0.
 * - **outcomes** and **HTTP status classes**: lines per outcome, and per `1xx`…`5xx` (`none` for
 *   status 0: nothing came back, or nothing was sent).
 * - **fetch latency**: `durationMs` of the lines that made a request (attempt > 0), its mean and
 *   nearest-rank percentiles (the p-th is the least value with at least p % of the values at or
 *   below it), and a histogram of equal bins of a 1-2-5 width from 0 to past p99, the rest in one
 *   overflow bin.
 * - **discoveries between nodes**: for each URL a node's log names (once, whatever its attempts),
 *   who fetched the page it was discovered on (`discoveredFrom`): the node itself, another node,
 *   nobody in the logs, or none (a seed). See {@link discoveryPairs}.
 * - **coverage over time**: the target pages (with a truth) first downloaded by the end of each bucket.
 */
import { niceStep } from './svg-chart.js';

/** One crawl-log line, as the report reads it. */
export interface ReportFetch {
  /** Index of the node that fetched, into the report's node list. */
  readonly node: number;
  /** When the fetch ended (the line's `ts`), ms since the epoch. */
  readonly endMs: number;
  readonly url: string;
  /** The page whose link led here; null for a seed. */
  readonly discoveredFrom: string | null;
  /** HTTP status; 0 when no response arrived or no request was made. */
  readonly status: number;
  readonly outcome: string;
  /** Body bytes as received. */
  readonly bytes: number;
  readonly durationMs: number;
  /** Whether a request was made (the line's attempt > 0; robots and budget decisions make none). */
  readonly hasRequest: boolean;
}

/** Bucket widths a throughput chart may use, ms: 0.1 s up to a day. */
export const BUCKET_STEPS_MS = [
  100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
  21_600_000, 43_200_000, 86_400_000,
] as const;

/** The smallest width of {@link BUCKET_STEPS_MS} (or a whole number of days past them) giving at most `target` buckets over `spanMs`. */
export function bucketWidthMs(spanMs: number, target = 60): number {
  const wanted = Math.max(0, spanMs) / Math.max(1, target);
  const step = BUCKET_STEPS_MS.find((s) => s >= wanted);
  return step ?? Math.ceil(wanted / 86_400_000) * 86_400_000;
}

/** Pages and bytes of one node per time bucket. */
export interface NodeThroughput {
  readonly node: string;
  readonly pages: readonly number[];
  readonly bytes: readonly number[];
}

/** Throughput over time: what {@link throughput} gives. */
export interface Throughput {
  /** Time 0: when the first fetch started, ms since the epoch; null for an empty log. */
  readonly startMs: number | null;
  /** Width of a bucket, ms; bucket b is [startMs + b·bucketMs, startMs + (b + 1)·bucketMs). */
  readonly bucketMs: number;
  readonly buckets: number;
  /** Every node, in the report's order. */
  readonly nodes: readonly NodeThroughput[];
}

/** The time range of the log: first fetch start, last fetch end (ms since the epoch); null for no lines. */
export function timeRange(fetches: readonly ReportFetch[]): { readonly startMs: number; readonly endMs: number } | null {
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const f of fetches) {
    startMs = Math.min(startMs, f.endMs - f.durationMs);
    endMs = Math.max(endMs, f.endMs);
  }
  return Number.isFinite(startMs) ? { startMs, endMs } : null;
}

/** Adds `by` to `counts[i]`. */
const bump = (counts: number[], i: number, by: number): void => {
  counts[i] = (counts[i] as number) + by;
};

/** The bucket of a time, given the origin and width. */
const bucketOf = (ms: number, startMs: number, bucketMs: number): number => Math.max(0, Math.floor((ms - startMs) / bucketMs));

/** Pages (status > 0) and bytes per node and time bucket; about `target` buckets (see the file comment). */
export function throughput(fetches: readonly ReportFetch[], nodes: readonly string[], target = 60): Throughput {
  const range = timeRange(fetches);
  const bucketMs = bucketWidthMs(range === null ? 0 : range.endMs - range.startMs, target);
  const buckets = range === null ? 0 : bucketOf(range.endMs, range.startMs, bucketMs) + 1;
  const pages = nodes.map(() => new Array<number>(buckets).fill(0));
  const bytes = nodes.map(() => new Array<number>(buckets).fill(0));
  if (range !== null)
    for (const f of fetches) {
      if (f.status === 0) continue;
      const b = bucketOf(f.endMs, range.startMs, bucketMs);
      bump(pages[f.node] as number[], b, 1);
      bump(bytes[f.node] as number[], b, f.bytes);
    }
  return {
    startMs: range?.startMs ?? null,
    bucketMs,
    buckets,
    nodes: nodes.map((node, k) => ({ node, pages: pages[k] as number[], bytes: bytes[k] as number[] })),
  };
}

/** A label and how many lines have it. */
export interface CountRow {
  readonly label: string;
  readonly count: number;
}

/** Lines per outcome, most first (ties by name). */
export function outcomeCounts(fetches: readonly ReportFetch[]): CountRow[] {
  const counts = new Map<string, number>();
  for (const f of fetches) counts.set(f.outcome, (counts.get(f.outcome) ?? 0) + 1);
  return [...counts]
    .map(([label, count]) => ({ label, count }))
    .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** The status classes in the order shown. */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'other', 'none'] as const;

/** The class of a status: `2xx` for 200–299, ..., `none` for 0, `other` outside 100–599. */
export function statusClassOf(status: number): (typeof STATUS_CLASSES)[number] {
  if (status === 0) return 'none';
  if (status < 100 || status > 599) return 'other';
  return `${Math.floor(status / 100)}xx` as (typeof STATUS_CLASSES)[number];
}

/** Lines per status class, in {@link STATUS_CLASSES} order, classes with no line left out. */
export function statusClassCounts(fetches: readonly ReportFetch[]): CountRow[] {
  const counts = new Map<string, number>();
  for (const f of fetches) {
    const c = statusClassOf(f.status);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return STATUS_CLASSES.filter((c) => counts.has(c)).map((label) => ({ label, count: counts.get(label) as number }));
}

/**
 * The nearest-rank `p`-th percentile (0 < p ≤ 100) of ascending `sorted`: the value at rank
 * ⌈p/100 · n⌉. NaN when empty.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  return sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1] as number;
}

/** Fetch latency in brief; NaN figures when there is no request. */
export interface LatencySummary {
  /** Requests measured. */
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Durations of the lines that made a request, ascending. */
export function requestDurations(fetches: readonly ReportFetch[], node?: number): Float64Array {
  const out: number[] = [];
  for (const f of fetches) if (f.hasRequest && (node === undefined || f.node === node)) out.push(f.durationMs);
  return Float64Array.from(out).sort();
}

/** Mean, percentiles and maximum of ascending durations. */
export function latencySummary(sorted: Float64Array): LatencySummary {
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  return {
    count: n,
    meanMs: n === 0 ? NaN : sum / n,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: n === 0 ? NaN : (sorted[n - 1] as number),
  };
}

/** Equal bins from 0, then one overflow bin. */
export interface LatencyHistogram {
  /** Bin edges, ms: bin i is [edgesMs[i], edgesMs[i + 1]). */
  readonly edgesMs: readonly number[];
  readonly counts: readonly number[];
  /** Durations at or past the last edge. */
  readonly overflow: number;
}

/**
 * The histogram of ascending durations: bins of the least 1-2-5 width giving no more than
 * `maxBins` bins up to p99, as many as reach past p99 (so p99 falls inside the last), the rest in
 * `overflow`. One bin [0, 1) for no durations.
 */
export function latencyHistogram(sorted: Float64Array, maxBins = 20): LatencyHistogram {
  const p99 = sorted.length === 0 ? 0 : percentile(sorted, 99);
  const width = p99 > 0 ? niceStep(p99 / maxBins) : 1;
  const bins = Math.floor(p99 / width) + 1;
  const edgesMs = Array.from({ length: bins + 1 }, (_, i) => Number((i * width).toPrecision(12)));
  const counts = new Array<number>(bins).fill(0);
  let overflow = 0;
  for (const v of sorted) {
    const b = Math.floor(v / width);
    if (b >= bins || v >= (edgesMs[bins] as number)) overflow++;
    else bump(counts, Math.max(0, b), 1);
  }
  return { edgesMs, counts, overflow };
}

/** URLs of each node by who fetched the page they were discovered on: what {@link discoveryPairs} gives. */
export interface DiscoveryPairs {
  /**
   * counts[i][j], i ≠ j: URLs in node j's log (each once) whose `discoveredFrom` page has a line
   * with a response in node i's log and none in j's; with several such i, the first node in order.
   * counts[j][j]: those whose page j fetched itself.
   */
  readonly counts: readonly (readonly number[])[];
  /** Per node: URLs without `discoveredFrom` (seeds, and URLs from sitemaps or lists). */
  readonly seeds: readonly number[];
  /** Per node: URLs whose `discoveredFrom` page has no line with a response in any node's log. */
  readonly unknown: readonly number[];
}

/**
 * Who found each node's URLs. A URL node j fetched after a page node i fetched must have gone from
 * i to j in a message (a URL batch, or the page itself forwarded); so the off-diagonal counts are
 * URLs carried between the nodes and then tried, pair by pair. The log keeps only the discovery
 * that queued a URL, so a URL sent again, or sent and never tried, is not counted here: compare
 * with the URLs each node's `exchange.json` says it received.
 */
export function discoveryPairs(fetches: readonly ReportFetch[], nodeCount: number): DiscoveryPairs {
  const fetchedBy = new Map<string, number[]>();
  for (const f of fetches) {
    if (f.status === 0) continue;
    const list = fetchedBy.get(f.url);
    if (list === undefined) fetchedBy.set(f.url, [f.node]);
    else if (!list.includes(f.node)) list.push(f.node);
  }
  const counts = Array.from({ length: nodeCount }, () => new Array<number>(nodeCount).fill(0));
  const seeds = new Array<number>(nodeCount).fill(0);
  const unknown = new Array<number>(nodeCount).fill(0);
  const seen = Array.from({ length: nodeCount }, () => new Set<string>());
  for (const f of fetches) {
    const urls = seen[f.node] as Set<string>;
    if (urls.has(f.url)) continue;
    urls.add(f.url);
    if (f.discoveredFrom === null) {
      bump(seeds, f.node, 1);
      continue;
    }
    const by = fetchedBy.get(f.discoveredFrom);
    if (by === undefined) {
      bump(unknown, f.node, 1);
      continue;
    }
    const from = by.includes(f.node) ? f.node : Math.min(...by);
    bump(counts[from] as number[], f.node, 1);
  }
  return { counts, seeds, unknown };
}

/**
 * Target pages first downloaded (status > 0) by the end of each bucket of `throughput`, cumulative.
 * `keyOf` maps a URL to the key the target is written in.
 */
export function coverageOverTime(
  fetches: readonly ReportFetch[],
  keyOf: (url: string) => string,
  target: ReadonlySet<string>,
  buckets: Pick<Throughput, 'startMs' | 'bucketMs' | 'buckets'>,
): number[] {
  const firstMs = new Map<string, number>();
  for (const f of fetches) {
    if (f.status === 0) continue;
    const key = keyOf(f.url);
    if (!target.has(key)) continue;
    const at = firstMs.get(key);
    if (at === undefined || f.endMs < at) firstMs.set(key, f.endMs);
  }
  const added = new Array<number>(buckets.buckets).fill(0);
  if (buckets.startMs !== null)
    for (const ms of firstMs.values()) bump(added, Math.min(buckets.buckets - 1, bucketOf(ms, buckets.startMs, buckets.bucketMs)), 1);
  let sum = 0;
  return added.map((n) => (sum += n));
}
