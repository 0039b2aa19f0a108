/**
 * The `/metrics` endpoint over a real crawl: an in-process {@link Crawl} of the tiny test web on
 * loopback, with the registry listening and its server bound to 127.0.0.1, as `shoal crawl
 * --metrics-port` runs them. Scraped while the crawl runs (when a progress event says pages have
 * been fetched) and after it has ended, and parsed as Prometheus parses it, the figures must be the
 * crawl's own:
 *
 * - URLs and pages by outcome, as in the summary; page bytes plus robots.txt bytes are the summary's
 *   bytes, which shoal_downloaded_bytes_total carries whole;
 * - the histogram counts each URL fetched once: requests minus robots.txt requests minus retries;
 * - with three nodes in two worker threads, every node under its own label (the records of threaded
 *   nodes reach the main thread), its figures its own summary's, each owning its partition, and the
 *   collaboration gauges those of the crawl's last crawl-wide progress event.
 */
import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../../src/config/crawl-config.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { CrawlChannel, type CrawlProgress } from '../../../src/obs/events.js';
import { CrawlMetrics } from '../../../src/obs/metrics/crawl-metrics.js';
import { startMetricsServer } from '../../../src/obs/metrics/metrics-server.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import { parseScrape, type Scrape } from '../../helpers/prometheus.js';

let web: TestWeb;
let dir: string;

before(async () => {
  // The tiny web with its faults (404, 500, redirects: several outcomes), without slow hosts,
  // Crawl-delays or traps, which only make it longer.
  web = await startTestWeb({ ...WEB_PRESETS.tiny, latency: { slowHostRate: 0 }, robots: { crawlDelayRate: 0 }, traps: { hostRate: 0 } });
  dir = mkdtempSync(join(tmpdir(), 'shoal-metrics-'));
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(outDir: string, extra: Partial<CrawlConfigInput> = {}): CrawlConfigInput {
  return {
    nodeId: 'm',
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100 },
    fetch: { firstByteTimeoutMs: 5000, bodyTimeoutMs: 5000 },
    limits: { concurrency: 8 },
    progressIntervalMs: 100,
    parse: { workers: 0 },
    ...extra,
  };
}

/** What a crawl served: a scrape taken while it ran, one after it ended, its summary and progress events. */
interface Served {
  readonly during: Scrape;
  readonly afterEnd: Scrape;
  readonly summary: CrawlSummary;
  readonly events: readonly CrawlProgress[];
}

/**
 * Crawls with the registry and its server up, scraping at the first progress event `isTime` accepts
 * and once the crawl has ended.
 */
async function crawlServed(input: CrawlConfigInput, isTime: (p: CrawlProgress) => boolean): Promise<Served> {
  const metrics = new CrawlMetrics().listen();
  const server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0, allowRemote: false });
  const scrape = async (): Promise<Scrape> => {
    const res = await fetch(server.url);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return parseScrape(await res.text());
  };
  const events: CrawlProgress[] = [];
  let during: Promise<Scrape> | null = null;
  const onProgress = (m: unknown): void => {
    const p = m as CrawlProgress;
    events.push(p);
    if (during === null && p.stopReason === null && isTime(p)) during = scrape();
  };
  channel(CrawlChannel.progress).subscribe(onProgress);
  try {
    const summary = await new Crawl(input).run();
    assert.ok(during !== null, 'a progress event came while the crawl ran');
    return { during: await (during as Promise<Scrape>), afterEnd: await scrape(), summary, events };
  } finally {
    channel(CrawlChannel.progress).unsubscribe(onProgress);
    await server.close();
    metrics.close();
  }
}

/** The URL fetches a summary implies: every page request is the last of its URL or was retried. */
const fetchesOf = (s: CrawlSummary): number => s.requests - s.robotsRequests - s.retries;

describe('the /metrics endpoint over a crawl of the test web', () => {
  it('serves the crawl’s own figures while it runs and once it has ended', { timeout: 120_000 }, async () => {
    // 20 pages counted: with 8 fetch slots, the records of at least 12 are out.
    const { during, afterEnd: m, summary: s } = await crawlServed(config(join(dir, 'one')), (p) => p.pages >= 20);
    assert.equal(s.stopReason, 'exhausted');
    assert.ok(s.pages > 300, `${s.pages} pages`);
    // While it ran: some of the pages, and never more than in the end.
    const pagesDuring = during.value('shoal_pages_total');
    assert.ok(pagesDuring > 0 && pagesDuring <= s.pages, `${pagesDuring} of ${s.pages}`);
    assert.ok(during.value('shoal_fetch_duration_seconds_count') > 0);

    assert.equal(m.value('shoal_urls_total'), s.urls);
    assert.equal(m.value('shoal_pages_total'), s.pages);
    const outcomes = Object.entries(s.outcomes);
    assert.ok(outcomes.length >= 3, `several outcomes: ${JSON.stringify(s.outcomes)}`);
    for (const [outcome, n] of outcomes) assert.equal(m.value('shoal_urls_total', { outcome }), n, outcome);
    assert.deepEqual(m.labelValues('shoal_urls_total', 'outcome'), outcomes.map(([k]) => k).sort());
    assert.equal(m.value('shoal_downloaded_bytes_total'), s.bytes);
    assert.equal(m.value('shoal_page_bytes_total') + m.value('shoal_robots_bytes_total'), s.bytes);
    assert.equal(m.value('shoal_fetch_duration_seconds_count'), fetchesOf(s));
    assert.equal(m.value('shoal_fetch_duration_seconds_bucket', { le: '+Inf' }), fetchesOf(s));
    assert.ok(m.value('shoal_fetch_duration_seconds_sum') > 0);
    assert.equal(m.value('shoal_robots_requests_total'), s.robotsRequests);
    assert.equal(m.value('shoal_robots_fetches_total', { result: 'parsed' }) > 0, true);
    assert.equal(m.value('shoal_hosts_contacted'), s.hosts);
    assert.equal(m.value('shoal_frontier_urls'), s.frontierLeft.queued);
    assert.equal(m.value('shoal_fetches_in_flight'), 0);
    assert.deepEqual(m.labelValues('shoal_pages_total', 'node'), ['m']);
    // A crawl of one node: no exchange, no collaboration.
    assert.equal(m.families.find((f) => f.name === 'shoal_exchange_urls_total')?.metrics.length ?? 0, 0);
    assert.equal(m.families.find((f) => f.name === 'shoal_collab_overlap_ratio')?.metrics.length ?? 0, 0);
  });

  it(
    'labels every node of a collaborative crawl in worker threads, and serves the live collaboration figures',
    { timeout: 180_000 },
    async () => {
      // Once the crawl-wide figures say two nodes or more have pages (max/mean below 3): the registry
      // heard the same records, on the same channel, before the event was made.
      const {
        during,
        afterEnd: m,
        summary,
        events,
      } = await crawlServed(
        config(join(dir, 'three'), { cluster: { nodes: 3, workers: 2 } }),
        (p) => p.collab !== undefined && p.collab.loadMaxOverMean !== null && p.collab.loadMaxOverMean < 3,
      );
      const nodes = summary.cluster?.nodes ?? [];
      assert.equal(nodes.length, 3);
      const ids = nodes.map((n) => n.node).sort();
      // The crawl's own id labels its crawl-wide figures only; every node's figures are under its own.
      assert.deepEqual(m.labelValues('shoal_pages_total', 'node'), ids);
      assert.deepEqual(m.labelValues('shoal_downloaded_bytes_total', 'node'), ids);
      assert.deepEqual(m.labelValues('shoal_collab_overlap_ratio', 'node'), ['m']);
      assert.ok(during.labelValues('shoal_pages_total', 'node').length > 1, 'several nodes heard while the crawl ran');
      assert.ok(during.value('shoal_collab_downloaded_pages') > 0, 'collaboration figures while the crawl ran');

      assert.equal(m.value('shoal_pages_total'), summary.pages);
      assert.equal(m.value('shoal_downloaded_bytes_total'), summary.bytes);
      for (const [i, s] of nodes.entries()) {
        const node = { node: s.node };
        assert.ok(s.pages > 0, `${s.node} fetched pages`);
        assert.equal(m.value('shoal_pages_total', node), s.pages, s.node);
        assert.equal(m.value('shoal_urls_total', node), s.urls, s.node);
        assert.equal(m.value('shoal_page_bytes_total', node) + m.value('shoal_robots_bytes_total', node), s.bytes, s.node);
        assert.equal(m.value('shoal_fetch_duration_seconds_count', node), fetchesOf(s), s.node);
        assert.equal(m.value('shoal_exchange_urls_total', { ...node, direction: 'sent' }), s.exchange?.endpoint.sent.urls, s.node);
        assert.equal(m.value('shoal_exchange_urls_total', { ...node, direction: 'received' }), s.exchange?.endpoint.received.urls, s.node);
        assert.deepEqual(m.labelValues('shoal_partition_info', 'partition').length, 3);
        assert.equal(m.value('shoal_partition_info', { ...node, partition: String(s.exchange?.partitions[0]) }), 1, s.node);
        assert.deepEqual(s.exchange?.partitions, [i]);
      }
      assert.ok(m.value('shoal_exchange_urls_total', { direction: 'sent' }) > 0, 'URLs crossed between nodes');
      assert.equal(m.value('shoal_exchange_outbox_messages'), 0, 'every message confirmed in the end');

      const last = events.filter((e) => e.collab !== undefined).at(-1)?.collab;
      assert.ok(last !== undefined && last.downloads > 0);
      assert.equal(m.value('shoal_collab_downloaded_pages'), last.downloads);
      assert.equal(m.value('shoal_collab_unique_pages'), last.uniquePages);
      assert.equal(m.value('shoal_collab_overlap_ratio'), last.overlap);
      assert.equal(last.overlap, 0, 'host-hash: no page downloaded twice');
      assert.equal(m.value('shoal_collab_diversity_ratio'), last.diversity);
      assert.equal(m.value('shoal_collab_load_max_over_mean'), last.loadMaxOverMean);
      assert.equal(m.value('shoal_collab_urls_per_page'), last.urlsPerPage);
      assert.ok((last.urlsPerPage ?? 0) > 0);
    },
  );
});
