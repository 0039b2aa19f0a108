/**
 * The dashboard's state, built from the crawl's events and nothing else: progress events (one stream
 * per node, plus the crawl-wide one of an embedded collaborative crawl), fetch records and start
 * events. Pure: no I/O, no clock (every call says what time it is), so tests feed it events and read
 * snapshots. Memory is bounded whatever the crawl's size: the series are compacted
 * (bounded-series.ts), the host and discovery maps are windows, the recent errors a short list.
 *
 * Nodes and the crawl: the events of `crawlNode` (an embedded crawl's own id, `config.nodeId`) are the
 * crawl's totals, with the live partition metrics; every other node id is a member. A crawl of one
 * node publishes under `crawlNode` only, and is then its own single member. Without crawl-wide events
 * (a distributed crawl) the totals are the members' figures added up.
 */
import type { CrawlLogRecord, CrawlOutcomeKind } from '../../store/records.js';
import type { CrawlProgress, CrawlStarted, FrontierProgress, StopReason } from '../events.js';
import { BoundedSeries } from './bounded-series.js';
import { DiscoveryMatrix } from './discovery-matrix.js';
import { HostDurations } from './host-durations.js';
import type {
  CrawlFigures,
  DashboardSnapshot,
  DashboardSource,
  ExchangeView,
  NodeView,
  PartitionView,
  RecentError,
  SlowHost,
} from './snapshot.js';
import { TruthCoverage, type DashboardTruth } from './truth-coverage.js';

/** Options of {@link DashboardAggregator}. */
export interface DashboardAggregatorOptions {
  /** The crawl's name on the page. */
  readonly crawlId: string;
  readonly source: DashboardSource;
  /** Node id of the crawl-wide events (see the file comment); null: every event is a member's. */
  readonly crawlNode?: string | null;
  readonly outDir?: string | null;
  /** The test web's truth, for coverage as the crawl grows; null: none. */
  readonly truth?: DashboardTruth | null;
  /** Points kept per series (even); default 360. */
  readonly seriesPoints?: number;
  /** Slowest hosts listed; default 10. */
  readonly slowHosts?: number;
  /** Recent errors listed; default 20. */
  readonly recentErrors?: number;
  /** Hosts whose fetch durations are kept; default 5,000. */
  readonly maxHosts?: number;
  /** Fetched URLs remembered for the discovery matrix; default 50,000. */
  readonly maxDiscoveries?: number;
}

/** What the dashboard keeps of one stream of progress events. */
interface Stream {
  latest: CrawlProgress;
  updatedAtMs: number;
  pagesPerSecond: number;
  bytesPerSecond: number;
  partitions: readonly number[] | null;
  isIdle: boolean | null;
}

/**
 * Outcome kinds that are no failure, not listed as recent errors: the Web's answers, and the
 * crawler's own decisions (robots.txt rules, budgets), which the outcome counts show.
 */
const NOT_ERRORS: ReadonlySet<CrawlOutcomeKind> = new Set(['ok', 'not-modified', 'redirect', 'robots-denied', 'over-budget']);

const EMPTY_FIGURES: CrawlFigures = Object.freeze({
  urls: 0,
  pages: 0,
  bytes: 0,
  pagesPerSecond: 0,
  bytesPerSecond: 0,
  meanPagesPerSecond: 0,
  frontier: { queued: 0, inFlight: 0, activeHosts: 0, parked: 0, readyHosts: 0, waitingHosts: 0, backoffs: 0 },
  hosts: 0,
  outcomes: {},
  unreachable: { failing: 0, givenUp: 0, hosts: [] },
});

/** See the file comment. */
export class DashboardAggregator {
  private readonly members = new Map<string, Stream>();
  private crawlWide: Stream | null = null;
  private readonly series: BoundedSeries;
  private readonly hostDurations: HostDurations;
  private readonly discoveries: DiscoveryMatrix;
  private readonly truth: TruthCoverage | null;
  private readonly errors: RecentError[] = [];
  /** Slowest hosts as distributed nodes publish them, by node. */
  private readonly publishedSlowHosts = new Map<string, readonly SlowHost[]>();
  private outDir: string | null;

  constructor(private readonly options: DashboardAggregatorOptions) {
    this.series = new BoundedSeries(options.seriesPoints ?? 360);
    this.hostDurations = new HostDurations(options.maxHosts ?? 5_000);
    this.discoveries = new DiscoveryMatrix(options.maxDiscoveries ?? 50_000);
    this.truth = options.truth == null ? null : new TruthCoverage(options.truth);
    this.outDir = options.outDir ?? null;
  }

  /** A progress event, received at `atMs` (or, from NATS, published then). Repeats of the last one are ignored. */
  progress(p: CrawlProgress, atMs: number): void {
    const isCrawlWide = p.node === this.options.crawlNode;
    const before = isCrawlWide ? this.crawlWide : (this.members.get(p.node) ?? null);
    if (
      before !== null &&
      before.latest.elapsedMs === p.elapsedMs &&
      before.latest.urls === p.urls &&
      before.latest.stopReason === p.stopReason
    )
      return;
    // A node that restarted counts from 0 again: its first interval is its whole run.
    const dtMs = before === null || p.elapsedMs <= before.latest.elapsedMs ? p.elapsedMs : p.elapsedMs - before.latest.elapsedMs;
    const dBytes = before === null || p.elapsedMs <= before.latest.elapsedMs ? p.bytes : p.bytes - before.latest.bytes;
    const dPages = before === null || p.elapsedMs <= before.latest.elapsedMs ? p.pages : p.pages - before.latest.pages;
    const stream: Stream = {
      latest: p,
      updatedAtMs: atMs,
      pagesPerSecond: dtMs > 0 ? (dPages * 1000) / dtMs : p.recentPagesPerSecond,
      bytesPerSecond: dtMs > 0 ? (dBytes * 1000) / dtMs : p.bytesPerSecond,
      partitions: before?.partitions ?? null,
      isIdle: before?.isIdle ?? null,
    };
    if (isCrawlWide) this.crawlWide = stream;
    else this.members.set(p.node, stream);
  }

  /** What a distributed node says of itself besides its progress. */
  nodeState(node: string, state: { readonly partitions: readonly number[]; readonly isIdle: boolean }): void {
    const s = this.members.get(node);
    if (s === undefined) return;
    s.partitions = [...state.partitions];
    s.isIdle = state.isIdle;
  }

  /** The slowest hosts a node of a distributed crawl publishes (its fetch records are not seen here). */
  nodeSlowHosts(node: string, hosts: readonly SlowHost[]): void {
    this.publishedSlowHosts.set(node, hosts);
  }

  /** A URL's crawl ended. A node's record of a page another node fetched and forwarded is left out: the fetching node's counts. */
  fetch(r: CrawlLogRecord): void {
    if (r.isReceived === true) return;
    this.hostDurations.add(r);
    this.discoveries.add(r);
    this.truth?.add(r);
    if (NOT_ERRORS.has(r.kind)) return;
    this.errors.push({ timeMs: r.timeMs, node: r.node, url: r.url, kind: r.kind, status: r.status, reason: r.reason });
    if (this.errors.length > (this.options.recentErrors ?? 20)) this.errors.shift();
  }

  /** A run started: the crawl directory, when not known yet. */
  started(s: CrawlStarted): void {
    if (this.outDir === null || s.node === this.options.crawlNode) this.outDir = s.outDir;
  }

  /** Adds a point to the time series: each node's and the crawl's rates, frontier and partition metrics now. */
  sample(atMs: number): void {
    const nodes = this.nodeStreams();
    if (nodes.length === 0) return;
    const values: Record<string, number | null> = {};
    for (const [id, s] of nodes) {
      values[`pps:${id}`] = rateOf(s, 'pages');
      values[`bps:${id}`] = rateOf(s, 'bytes');
      values[`queued:${id}`] = s.latest.frontier.queued;
    }
    const totals = this.totals();
    values.pps = totals.pagesPerSecond;
    values.bps = totals.bytesPerSecond;
    values.queued = totals.frontier.queued;
    values.pages = totals.pages;
    const partition = this.partition();
    if (partition !== null) {
      values.overlap = partition.overlap;
      values.urlsPerPage = partition.urlsPerPage;
      values.loadMaxOverMean = partition.loadMaxOverMean;
      values.topicLocality = partition.topicLocality;
      values.geoCoverage = partition.geoCoverage;
      values.geoFocus = partition.geoFocus;
      values.cohesion = partition.community?.cohesion ?? null;
      values.precision = partition.community?.precision ?? null;
      values.recall = partition.community?.recall ?? null;
    }
    if (this.truth !== null) values.coverage = this.truth.view().coverage;
    this.series.add(atMs, values);
  }

  /** The whole state at `atMs`. */
  snapshot(atMs: number): DashboardSnapshot {
    const nodes = this.nodeStreams();
    const views = nodes.map(([id, s]) => nodeView(id, s));
    const series = this.series.view();
    return {
      version: 1,
      atMs,
      crawl: {
        id: this.options.crawlId,
        source: this.options.source,
        outDir: this.outDir,
        elapsedMs: this.crawlWide?.latest.elapsedMs ?? Math.max(0, ...views.map((v) => v.elapsedMs)),
        stopReason: this.stopReason(views),
      },
      totals: this.totals(),
      nodes: views,
      exchange: this.exchange(views),
      partition: this.partition(),
      slowHosts: this.slowHosts(),
      recentErrors: [...this.errors].reverse(),
      truth: this.truth?.view() ?? null,
      series: { t: series.t, columns: series.columns, stepSeconds: this.series.samplesPerPoint },
    };
  }

  /** From the fetch records seen here, or else the lists the nodes publish, merged. */
  private slowHosts(): SlowHost[] {
    const n = this.options.slowHosts ?? 10;
    const seen = this.hostDurations.slowest(n);
    if (seen.length > 0 || this.publishedSlowHosts.size === 0) return seen;
    return [...this.publishedSlowHosts.values()]
      .flat()
      .sort((a, b) => b.meanMs - a.meanMs || b.maxMs - a.maxMs)
      .slice(0, n);
  }

  /** The members in name order (node-2 before node-10), or the crawl itself when it has none. */
  private nodeStreams(): [string, Stream][] {
    if (this.members.size > 0) return [...this.members].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    return this.crawlWide === null ? [] : [[this.crawlWide.latest.node, this.crawlWide]];
  }

  private totals(): CrawlFigures {
    if (this.crawlWide !== null) return figuresOf(this.crawlWide);
    const all = [...this.members.values()].map(figuresOf);
    return all.length === 0 ? EMPTY_FIGURES : all.reduce(addFigures);
  }

  private stopReason(views: readonly NodeView[]): StopReason | null {
    if (this.crawlWide !== null) return this.crawlWide.latest.stopReason;
    if (views.length === 0 || views.some((v) => v.stopReason === null)) return null;
    return views.find((v) => v.stopReason !== 'exhausted')?.stopReason ?? 'exhausted';
  }

  private exchange(views: readonly NodeView[]): ExchangeView {
    return {
      nodes: views.flatMap((v) => (v.exchange === null ? [] : [{ id: v.id, ...v.exchange }])),
      matrix: this.discoveries.view(views.map((v) => v.id)),
    };
  }

  private partition(): PartitionView | null {
    const collab = this.crawlWide?.latest.collab;
    if (collab !== undefined) return { from: 'crawl', ...collab };
    const members = [...this.members.values()].map((s) => s.latest);
    if (members.length < 2) return null;
    const pages = members.map((p) => p.pages);
    const downloads = pages.reduce((a, b) => a + b, 0);
    const mean = downloads / members.length;
    const sent = members.reduce((a, p) => a + (p.exchange?.urlsSent ?? 0), 0);
    return {
      from: 'nodes',
      downloads,
      uniquePages: null,
      overlap: null,
      diversity: null,
      loadMaxOverMean: mean > 0 ? Math.max(...pages) / mean : null,
      urlsPerPage: downloads > 0 ? sent / downloads : null,
      topicLocality: null,
      geoCoverage: null,
      geoFocus: null,
      community: null,
    };
  }
}

function rateOf(s: Stream, what: 'pages' | 'bytes'): number {
  if (s.latest.stopReason !== null) return 0;
  return what === 'pages' ? s.pagesPerSecond : s.bytesPerSecond;
}

function figuresOf(s: Stream): CrawlFigures {
  const p = s.latest;
  const failed = Object.values(p.errors).reduce((a: number, n) => a + (n ?? 0), 0);
  return {
    urls: p.urls,
    pages: p.pages,
    bytes: p.bytes,
    pagesPerSecond: rateOf(s, 'pages'),
    bytesPerSecond: rateOf(s, 'bytes'),
    meanPagesPerSecond: p.pagesPerSecond,
    frontier: { ...p.frontier },
    hosts: p.hosts,
    outcomes: { ok: Math.max(0, p.urls - failed), ...p.errors },
    unreachable:
      p.unreachable === undefined ? { failing: 0, givenUp: 0, hosts: [] } : { ...p.unreachable, hosts: [...p.unreachable.hosts] },
  };
}

function addFigures(a: CrawlFigures, b: CrawlFigures): CrawlFigures {
  const outcomes: Partial<Record<CrawlOutcomeKind, number>> = { ...a.outcomes };
  for (const [k, n] of Object.entries(b.outcomes) as [CrawlOutcomeKind, number][]) outcomes[k] = (outcomes[k] ?? 0) + n;
  return {
    urls: a.urls + b.urls,
    pages: a.pages + b.pages,
    bytes: a.bytes + b.bytes,
    pagesPerSecond: a.pagesPerSecond + b.pagesPerSecond,
    bytesPerSecond: a.bytesPerSecond + b.bytesPerSecond,
    meanPagesPerSecond: a.meanPagesPerSecond + b.meanPagesPerSecond,
    frontier: addFrontiers(a.frontier, b.frontier),
    hosts: a.hosts + b.hosts,
    outcomes,
    unreachable: {
      failing: a.unreachable.failing + b.unreachable.failing,
      givenUp: a.unreachable.givenUp + b.unreachable.givenUp,
      hosts: [...a.unreachable.hosts, ...b.unreachable.hosts].slice(0, 10),
    },
  };
}

/** Two frontiers' figures added up (a node of an older shoal may lack the newer ones: 0). */
function addFrontiers(a: FrontierProgress, b: FrontierProgress): FrontierProgress {
  const out = { ...EMPTY_FIGURES.frontier };
  for (const k of Object.keys(out) as (keyof FrontierProgress)[]) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}

function nodeView(id: string, s: Stream): NodeView {
  return {
    id,
    ...figuresOf(s),
    elapsedMs: s.latest.elapsedMs,
    stopReason: s.latest.stopReason,
    exchange: s.latest.exchange === undefined ? null : { ...s.latest.exchange },
    updatedAtMs: s.updatedAtMs,
    partitions: s.partitions,
    isIdle: s.isIdle,
  };
}
