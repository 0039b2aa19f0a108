/**
 * The crawl's Prometheus metrics: one prom-client {@link Registry} of its own (never the global
 * one, so that several crawls, tests and the dashboard may each have theirs), fed by the crawl's
 * diagnostics channels (`events.ts`). `shoal crawl` and `shoal node` serve it on `/metrics`
 * (`metrics-server.ts`); code reads it with {@link CrawlMetrics.snapshot}. docs/observability.md
 * lists every metric.
 *
 * - `shoal:crawl:fetch` (one record per URL whose crawl ended): URLs, pages and bytes by outcome, and
 *   the fetch-duration histogram. A record a node writes for a page another node fetched and
 *   forwarded to it is skipped: the page counts where it was fetched, as in the crawl's summary.
 * - `shoal:crawl:progress`, a node's events: gauges (frontier, hosts, outbox) and, from the totals
 *   the events carry, counters (bytes, robots.txt, exchange traffic). The crawl-wide events of an
 *   embedded collaborative crawl (those with `collab`) add nothing to these, which their nodes'
 *   own events already count, and set the collaboration gauges alone.
 *
 * Labels are the node and, where it says so, the outcome, direction or partition: bounded sets,
 * never hosts or URLs. In an embedded crawl with worker threads the nodes' events are published
 * again in the main thread, so a registry there sees every node.
 */
import { channel } from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CrawlChannel, type CrawlProgress } from '../events.js';
import type { CrawlLogRecord } from '../../store/records.js';
import { PAGE_OUTCOMES } from '../../store/records.js';
import { RecentLatencies, type LatencyPercentiles } from './recent-latencies.js';
import { snapshotOf, type MetricsSnapshot } from './snapshot.js';
import { TotalsCounter } from './totals-counter.js';

/** Upper bounds of the fetch-duration buckets, s: loopback and LAN answers up to `fetch.totalTimeoutMs` (120 s). */
export const FETCH_SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type Collab = NonNullable<CrawlProgress['collab']>;

/** The collaboration gauges (SPEC §5, live): name, help, figure (null: not known, the series is removed). */
const COLLAB_GAUGES: readonly (readonly [string, string, (c: Collab) => number | null])[] = [
  [
    'shoal_collab_downloaded_pages',
    'Pages downloaded by all nodes so far (N; a page counts once per node that downloaded it)',
    (c) => c.downloads,
  ],
  ['shoal_collab_unique_pages', 'Distinct pages among those downloaded (I)', (c) => c.uniquePages],
  ['shoal_collab_overlap_ratio', 'Overlap so far: (N - I) / N', (c) => c.overlap],
  ['shoal_collab_diversity_ratio', 'Distinct host names per downloaded page (S / N)', (c) => c.diversity],
  ['shoal_collab_load_max_over_mean', 'Load balance: the most pages one node downloaded over the mean per node', (c) => c.loadMaxOverMean],
  ['shoal_collab_urls_per_page', 'Communication overhead: URLs sent between nodes per downloaded page', (c) => c.urlsPerPage],
  [
    'shoal_collab_topic_locality_ratio',
    'Of pages whose discovering page has a topic too, the share with the same topic',
    (c) => c.topicLocality,
  ],
  ['shoal_collab_geo_coverage_ratio', 'Geo crawl: pages holding a street address of a target city per page analysed', (c) => c.geoCoverage],
  [
    'shoal_collab_geo_focus_ratio',
    'Geo crawl: mean over geo nodes of the share of their geo pages about their own cities',
    (c) => c.geoFocus,
  ],
  [
    'shoal_collab_community_cohesion_ratio',
    'Mean over nodes of the cohesion of the pages each fetched (against the truth)',
    (c) => c.community?.cohesion ?? null,
  ],
  [
    'shoal_collab_community_precision_ratio',
    'Mean over nodes of the precision of their pages against the truth’s communities',
    (c) => c.community?.precision ?? null,
  ],
  [
    'shoal_collab_community_recall_ratio',
    'Mean over nodes of the recall of their pages against the truth’s communities',
    (c) => c.community?.recall ?? null,
  ],
];

type Exchange = NonNullable<CrawlProgress['exchange']>;

/** Options of {@link CrawlMetrics}. */
export interface CrawlMetricsOptions {
  /** Fetches the recent percentiles are computed from (default 1024). */
  readonly recentFetches?: number;
}

/** See the file comment. */
export class CrawlMetrics {
  /** The registry: `registry.metrics()` is the text format. */
  readonly registry = new Registry();
  private readonly recent: RecentLatencies;
  private readonly urls: Counter<'node' | 'outcome'>;
  private readonly pages: Counter<'node' | 'outcome'>;
  private readonly pageBytes: Counter<'node' | 'outcome'>;
  private readonly fetchSeconds: Histogram<'node'>;
  private readonly nodeTotals: readonly (readonly [TotalsCounter<'node'>, (p: CrawlProgress) => number])[];
  private readonly nodeGauges: readonly (readonly [Gauge<'node'>, (p: CrawlProgress) => number])[];
  private readonly frontierUrls: Gauge<'node' | 'where'>;
  private readonly unreachable: Gauge<'node' | 'state'>;
  private readonly robotsFetches: TotalsCounter<'node' | 'result'>;
  private readonly exchangeTotals: readonly (readonly [
    TotalsCounter<'node' | 'direction'>,
    (x: Exchange) => number,
    (x: Exchange) => number,
  ])[];
  private readonly exchangeGauges: readonly (readonly [Gauge<'node'>, (x: Exchange) => number])[];
  private readonly partitionInfo: Gauge<'node' | 'partition'>;
  private readonly partitionsOf = new Map<string, readonly number[]>();
  private readonly collab: readonly (readonly [Gauge<'node'>, (c: Collab) => number | null])[];
  private readonly onFetch = (m: unknown): void => this.observeFetch(m as CrawlLogRecord);
  private readonly onProgress = (m: unknown): void => this.observeProgress(m as CrawlProgress);
  private isListening = false;

  constructor(options: CrawlMetricsOptions = {}) {
    this.recent = new RecentLatencies(options.recentFetches);
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> =>
      new Counter({ name, help, labelNames, registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> =>
      new Gauge({ name, help, labelNames, registers });
    const byNode = ['node'] as const;
    const byOutcome = ['node', 'outcome'] as const;
    const byDirection = ['node', 'direction'] as const;

    this.urls = counter('shoal_urls_total', 'URLs whose crawl ended, by outcome (robots.txt decisions and budgets included)', byOutcome);
    this.pages = counter('shoal_pages_total', 'Pages fetched (URLs that got an HTTP response), by outcome', byOutcome);
    this.pageBytes = counter('shoal_page_bytes_total', 'Body bytes of the pages fetched, as received (compressed), by outcome', byOutcome);
    this.fetchSeconds = new Histogram({
      name: 'shoal_fetch_duration_seconds',
      help: 'Duration of the last request of each URL fetched, from sending it to the end of the body',
      labelNames: byNode,
      buckets: [...FETCH_SECONDS_BUCKETS],
      registers,
    });
    const nodeTotal = (name: string, help: string, of: (p: CrawlProgress) => number) =>
      [new TotalsCounter(counter(name, help, byNode)), of] as const;
    this.nodeTotals = [
      nodeTotal('shoal_downloaded_bytes_total', 'Body bytes received, as received (compressed), robots.txt included', (p) => p.bytes),
      nodeTotal(
        'shoal_politeness_backoffs_total',
        'Times a host was backed off (Retry-After, or a struggling server)',
        (p) => p.frontier.backoffs,
      ),
      nodeTotal(
        'shoal_politeness_held_back_total',
        'Fetch slots given to another host because the best host was over its share of recent fetches (politeness.maxHostShare)',
        (p) => p.frontier.heldBack ?? 0,
      ),
      nodeTotal('shoal_robots_requests_total', 'robots.txt requests, redirect hops included', (p) => p.robots.requests),
      nodeTotal(
        'shoal_robots_bytes_total',
        'Body bytes of robots.txt responses (in shoal_downloaded_bytes_total too)',
        (p) => p.robots.bytes,
      ),
    ];
    const nodeGauge = (name: string, help: string, of: (p: CrawlProgress) => number) => [gauge(name, help, byNode), of] as const;
    this.nodeGauges = [
      nodeGauge('shoal_fetches_in_flight', 'Fetches in flight', (p) => p.frontier.inFlight),
      nodeGauge('shoal_hosts_active', 'Hosts with URLs queued in the frontier (holding a back queue)', (p) => p.frontier.activeHosts),
      nodeGauge('shoal_hosts_ready', 'Active hosts whose next request may go now', (p) => p.frontier.readyHosts),
      nodeGauge(
        'shoal_hosts_waiting',
        'Active hosts waiting for their politeness gap, Crawl-delay, Retry-After or back-off',
        (p) => p.frontier.waitingHosts,
      ),
      nodeGauge('shoal_hosts_contacted', 'Hosts contacted at least once in this run', (p) => p.hosts),
    ];
    this.frontierUrls = gauge('shoal_frontier_urls', 'URLs queued in the frontier, held in memory or parked on disk', ['node', 'where']);
    this.unreachable = gauge('shoal_hosts_unreachable', 'Hosts whose requests fail before any answer: still failing, or given up', [
      'node',
      'state',
    ]);
    this.robotsFetches = new TotalsCounter(
      counter(
        'shoal_robots_fetches_total',
        'robots.txt fetches by what they led to (parsed, client-error, server-error, unreachable, ...)',
        ['node', 'result'],
      ),
    );
    const exchangeTotal = (name: string, help: string, sent: (x: Exchange) => number, received: (x: Exchange) => number) =>
      [new TotalsCounter(counter(name, help, byDirection)), sent, received] as const;
    this.exchangeTotals = [
      exchangeTotal(
        'shoal_exchange_urls_total',
        'URLs sent to other nodes, and received from them',
        (x) => x.urlsSent,
        (x) => x.urlsReceived,
      ),
      exchangeTotal(
        'shoal_exchange_pages_total',
        'Boundary pages forwarded to other nodes, and received from them',
        (x) => x.pagesSent,
        (x) => x.pagesReceived,
      ),
      exchangeTotal(
        'shoal_exchange_bytes_total',
        'Encoded bytes of the messages sent, and received',
        (x) => x.bytesSent,
        (x) => x.bytesReceived,
      ),
    ];
    this.exchangeGauges = [
      [
        gauge('shoal_exchange_outbox_messages', 'Messages sent but not yet confirmed by the transport (the outbox backlog)', byNode),
        (x) => x.unconfirmed,
      ],
      [gauge('shoal_exchange_batched_urls', 'URLs waiting in partly filled batches to be sent', byNode), (x) => x.batchedUrls],
    ];
    this.partitionInfo = gauge('shoal_partition_info', 'The partitions each node owns (1 per node and partition)', ['node', 'partition']);
    this.collab = COLLAB_GAUGES.map(([name, help, of]) => [gauge(name, help, byNode), of] as const);
  }

  /** Starts counting what this thread's channels carry; returns this. */
  listen(): this {
    if (this.isListening) return this;
    this.isListening = true;
    channel(CrawlChannel.fetch).subscribe(this.onFetch);
    channel(CrawlChannel.progress).subscribe(this.onProgress);
    return this;
  }

  /** Stops listening (idempotent); what was counted stays readable. */
  close(): void {
    if (!this.isListening) return;
    this.isListening = false;
    channel(CrawlChannel.fetch).unsubscribe(this.onFetch);
    channel(CrawlChannel.progress).unsubscribe(this.onProgress);
  }

  /** Counts one URL whose crawl ended (a `shoal:crawl:fetch` message). */
  observeFetch(r: CrawlLogRecord): void {
    if (r.isReceived === true) return;
    const labels = { node: r.node, outcome: r.kind };
    this.urls.inc(labels);
    if (PAGE_OUTCOMES.has(r.kind)) {
      this.pages.inc(labels);
      this.pageBytes.inc(labels, r.bytes);
    }
    // A URL that ended without a request (robots.txt, a budget, a host given up) has no duration.
    if (r.durationMs > 0) {
      this.fetchSeconds.observe({ node: r.node }, r.durationMs / 1000);
      this.recent.add(r.durationMs);
    }
  }

  /** Takes in one progress event (a `shoal:crawl:progress` message). */
  observeProgress(p: CrawlProgress): void {
    if (p.collab !== undefined) {
      this.observeCollab(p.node, p.collab);
      return;
    }
    const node = { node: p.node };
    for (const [total, of] of this.nodeTotals) total.set(node, of(p));
    for (const [gauge, of] of this.nodeGauges) gauge.set(node, of(p));
    this.frontierUrls.set({ node: p.node, where: 'memory' }, p.frontier.queued - p.frontier.parked);
    this.frontierUrls.set({ node: p.node, where: 'disk' }, p.frontier.parked);
    this.unreachable.set({ node: p.node, state: 'failing' }, p.unreachable?.failing ?? 0);
    this.unreachable.set({ node: p.node, state: 'given-up' }, p.unreachable?.givenUp ?? 0);
    for (const [result, n] of Object.entries(p.robots.results)) this.robotsFetches.set({ node: p.node, result }, n ?? 0);
    const x = p.exchange;
    if (x === undefined) return;
    for (const [total, sent, received] of this.exchangeTotals) {
      total.set({ node: p.node, direction: 'sent' }, sent(x));
      total.set({ node: p.node, direction: 'received' }, received(x));
    }
    for (const [gauge, of] of this.exchangeGauges) gauge.set(node, of(x));
    this.observePartitions(p.node, x.partitions);
  }

  /** The fetch-duration percentiles of the last fetches (every node's); null before the first. */
  recentLatency(): LatencyPercentiles | null {
    return this.recent.percentiles();
  }

  /** The text format (Prometheus exposition format 0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link text}: `text/plain; version=0.0.4; charset=utf-8`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric's current values (see snapshot.ts; `sampleValue` sums a metric's samples). */
  async snapshot(): Promise<MetricsSnapshot> {
    return snapshotOf(await this.registry.getMetricsAsJSON());
  }

  private observeCollab(node: string, c: Collab): void {
    for (const [gauge, of] of this.collab) {
      const value = of(c);
      if (value === null) gauge.remove({ node });
      else gauge.set({ node }, value);
    }
  }

  private observePartitions(node: string, partitions: readonly number[]): void {
    const before = this.partitionsOf.get(node) ?? [];
    if (before.length === partitions.length && before.every((p, i) => p === partitions[i])) return;
    for (const p of before) this.partitionInfo.remove({ node, partition: String(p) });
    for (const p of partitions) this.partitionInfo.set({ node, partition: String(p) }, 1);
    this.partitionsOf.set(node, [...partitions]);
  }
}
