/**
 * The crawl's Prometheus registry (src/obs/metrics/crawl-metrics.ts), fed by hand-made messages on
 * the crawl's own diagnostics channels: each metric's value after a known sequence of fetch records
 * and progress events, read both from the snapshot and from the text format as Prometheus parses it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register as globalRegistry } from 'prom-client';
import { diagnosticsEvents, type CrawlProgress } from '../../../../src/obs/events.js';
import { CrawlMetrics } from '../../../../src/obs/metrics/crawl-metrics.js';
import { sampleValue } from '../../../../src/obs/metrics/snapshot.js';
import type { CrawlLogRecord, CrawlOutcomeKind } from '../../../../src/store/records.js';
import { crawlRecord, progressEvent } from '../../../helpers/crawl-events.js';
import { parseScrape } from '../../../helpers/prometheus.js';

/** A record with nothing fetched yet, unless `fields` say otherwise. */
const record = (node: string, kind: CrawlOutcomeKind, fields: Partial<CrawlLogRecord> = {}): CrawlLogRecord =>
  crawlRecord(node, 'http://h.test/', {
    timeMs: 0,
    depth: 0,
    kind,
    status: null,
    contentType: null,
    bytes: 0,
    durationMs: 0,
    ip: null,
    attempts: 0,
    ...fields,
  });

const fetched = (node: string, kind: CrawlOutcomeKind, status: number | null, bytes: number, durationMs: number): CrawlLogRecord =>
  record(node, kind, { status, bytes, durationMs, attempts: 1 });

/** A progress event with every count at zero, unless `fields` say otherwise. */
const progress = (node: string, fields: Partial<CrawlProgress> = {}): CrawlProgress =>
  progressEvent(node, {
    frontier: { queued: 0, inFlight: 0, activeHosts: 0, parked: 0, readyHosts: 0, waitingHosts: 0, backoffs: 0 },
    robots: { requests: 0, bytes: 0, results: {} },
    hosts: 0,
    ...fields,
  });

const exchange = (urlsSent: number, partitions: readonly number[]): NonNullable<CrawlProgress['exchange']> => ({
  urlsSent,
  urlsReceived: 2 * urlsSent,
  pagesSent: 1,
  pagesReceived: 0,
  bytesSent: 1000,
  bytesReceived: 2000,
  unconfirmed: 3,
  batchedUrls: 7,
  partitions,
});

const collab = (overlap: number, topicLocality: number | null): NonNullable<CrawlProgress['collab']> => ({
  downloads: 10,
  uniquePages: 8,
  overlap,
  diversity: 0.4,
  loadMaxOverMean: 1.25,
  urlsPerPage: 3.5,
  topicLocality,
  geoCoverage: null,
  geoFocus: null,
  community: { cohesion: 0.5, precision: 0.75, recall: 0.25 },
});

describe('CrawlMetrics', () => {
  it('counts URLs, pages and bytes by outcome, and fetch durations, from the fetch channel', async () => {
    const metrics = new CrawlMetrics().listen();
    try {
      diagnosticsEvents.fetch(fetched('a', 'ok', 200, 1000, 20));
      diagnosticsEvents.fetch(fetched('a', 'ok', 200, 3000, 200));
      diagnosticsEvents.fetch(fetched('b', 'http-error', 404, 50, 4));
      // A timeout after the head has a status but is no page; robots.txt denied the next: no request, no duration.
      diagnosticsEvents.fetch(fetched('b', 'timeout', 200, 0, 30_000));
      diagnosticsEvents.fetch(record('b', 'robots-denied'));
      // The copy a node writes of a page another node fetched and forwarded counts where it was fetched (a's record above).
      diagnosticsEvents.fetch({ ...fetched('a', 'ok', 200, 1000, 20), isReceived: true });
      const s = await metrics.snapshot();
      assert.equal(sampleValue(s, 'shoal_urls_total'), 5);
      assert.equal(sampleValue(s, 'shoal_urls_total', { node: 'b', outcome: 'robots-denied' }), 1);
      assert.equal(sampleValue(s, 'shoal_pages_total'), 3);
      assert.equal(sampleValue(s, 'shoal_pages_total', { outcome: 'ok' }), 2);
      assert.equal(sampleValue(s, 'shoal_pages_total', { outcome: 'timeout' }), 0);
      assert.equal(sampleValue(s, 'shoal_page_bytes_total', { node: 'a' }), 4000);
      assert.equal(sampleValue(s, 'shoal_page_bytes_total', { node: 'b' }), 50);
      assert.equal(sampleValue(s, 'shoal_fetch_duration_seconds_count'), 4);
      assert.equal(sampleValue(s, 'shoal_fetch_duration_seconds_count', { node: 'a' }), 2);
      assert.ok(Math.abs(sampleValue(s, 'shoal_fetch_duration_seconds_sum', { node: 'a' }) - 0.22) < 1e-9);
      // Cumulative buckets: 20 ms is within 25 ms, 200 ms within 250 ms.
      assert.equal(sampleValue(s, 'shoal_fetch_duration_seconds_bucket', { node: 'a', le: '0.01' }), 0);
      assert.equal(sampleValue(s, 'shoal_fetch_duration_seconds_bucket', { node: 'a', le: '0.025' }), 1);
      assert.equal(sampleValue(s, 'shoal_fetch_duration_seconds_bucket', { node: 'a', le: '0.25' }), 2);
      // Nearest rank over 4, 20, 200, 30,000 ms: p50 the 2nd, p95 the 4th.
      assert.deepEqual(metrics.recentLatency(), { p50Ms: 20, p95Ms: 30_000, count: 4 });
    } finally {
      metrics.close();
    }
  });

  it('turns the totals of progress events into counters, per node, and sets the gauges', async () => {
    const metrics = new CrawlMetrics().listen();
    try {
      const frontier = { queued: 500, inFlight: 4, activeHosts: 9, parked: 120, readyHosts: 2, waitingHosts: 6, backoffs: 3 };
      const robots = { requests: 5, bytes: 900, results: { parsed: 4, 'client-error': 1 } };
      diagnosticsEvents.progress(progress('a', { bytes: 10_000, frontier, hosts: 12, robots, exchange: exchange(40, [0, 2]) }));
      diagnosticsEvents.progress(
        progress('a', {
          bytes: 25_000,
          frontier: { ...frontier, backoffs: 5, heldBack: 7 },
          hosts: 14,
          robots: { ...robots, requests: 6, results: { parsed: 5, 'client-error': 1 } },
          unreachable: { failing: 1, givenUp: 2, hosts: ['x.test: connection refused'] },
          exchange: exchange(100, [0, 2]),
        }),
      );
      diagnosticsEvents.progress(progress('b', { bytes: 7_000, exchange: exchange(10, [1]) }));
      const s = await metrics.snapshot();
      assert.equal(sampleValue(s, 'shoal_downloaded_bytes_total', { node: 'a' }), 25_000);
      assert.equal(sampleValue(s, 'shoal_downloaded_bytes_total'), 32_000);
      assert.equal(sampleValue(s, 'shoal_politeness_backoffs_total', { node: 'a' }), 5);
      assert.equal(sampleValue(s, 'shoal_politeness_held_back_total', { node: 'a' }), 7);
      assert.equal(sampleValue(s, 'shoal_politeness_held_back_total', { node: 'b' }), 0);
      assert.equal(sampleValue(s, 'shoal_robots_requests_total', { node: 'a' }), 6);
      assert.equal(sampleValue(s, 'shoal_robots_bytes_total', { node: 'a' }), 900);
      assert.equal(sampleValue(s, 'shoal_robots_fetches_total', { node: 'a', result: 'parsed' }), 5);
      assert.equal(sampleValue(s, 'shoal_robots_fetches_total', { node: 'a', result: 'client-error' }), 1);
      assert.equal(sampleValue(s, 'shoal_frontier_urls', { node: 'a', where: 'memory' }), 380);
      assert.equal(sampleValue(s, 'shoal_frontier_urls', { node: 'a', where: 'disk' }), 120);
      assert.equal(sampleValue(s, 'shoal_fetches_in_flight', { node: 'a' }), 4);
      assert.equal(sampleValue(s, 'shoal_hosts_active', { node: 'a' }), 9);
      assert.equal(sampleValue(s, 'shoal_hosts_ready', { node: 'a' }), 2);
      assert.equal(sampleValue(s, 'shoal_hosts_waiting', { node: 'a' }), 6);
      assert.equal(sampleValue(s, 'shoal_hosts_contacted', { node: 'a' }), 14);
      assert.equal(sampleValue(s, 'shoal_hosts_unreachable', { node: 'a', state: 'failing' }), 1);
      assert.equal(sampleValue(s, 'shoal_hosts_unreachable', { node: 'a', state: 'given-up' }), 2);
      assert.equal(sampleValue(s, 'shoal_exchange_urls_total', { node: 'a', direction: 'sent' }), 100);
      assert.equal(sampleValue(s, 'shoal_exchange_urls_total', { node: 'a', direction: 'received' }), 200);
      assert.equal(sampleValue(s, 'shoal_exchange_urls_total', { direction: 'sent' }), 110);
      assert.equal(sampleValue(s, 'shoal_exchange_pages_total', { node: 'a', direction: 'sent' }), 1);
      assert.equal(sampleValue(s, 'shoal_exchange_bytes_total', { node: 'b', direction: 'received' }), 2000);
      assert.equal(sampleValue(s, 'shoal_exchange_outbox_messages', { node: 'a' }), 3);
      assert.equal(sampleValue(s, 'shoal_exchange_batched_urls', { node: 'b' }), 7);
      assert.equal(sampleValue(s, 'shoal_partition_info', { node: 'a', partition: '2' }), 1);
      assert.equal(sampleValue(s, 'shoal_partition_info', { node: 'a' }), 2);
      assert.equal(sampleValue(s, 'shoal_partition_info', { partition: '1' }), 1);
    } finally {
      metrics.close();
    }
  });

  it('keeps counters rising when a node runs again from zero, and follows a node’s partitions', async () => {
    const metrics = new CrawlMetrics();
    metrics.observeProgress(progress('a', { bytes: 800, exchange: exchange(10, [0]) }));
    // The same node id in a new run of this process: its totals start again.
    metrics.observeProgress(progress('a', { bytes: 300, exchange: exchange(10, [0, 3]) }));
    const s = await metrics.snapshot();
    assert.equal(sampleValue(s, 'shoal_downloaded_bytes_total', { node: 'a' }), 1100);
    assert.equal(sampleValue(s, 'shoal_exchange_urls_total', { node: 'a', direction: 'sent' }), 10);
    assert.equal(sampleValue(s, 'shoal_partition_info', { node: 'a' }), 2);
    metrics.observeProgress(progress('a', { bytes: 300, exchange: exchange(10, [3]) }));
    const later = await metrics.snapshot();
    assert.equal(sampleValue(later, 'shoal_partition_info', { node: 'a', partition: '0' }), 0, 'a partition taken over is gone');
    assert.equal(sampleValue(later, 'shoal_partition_info', { node: 'a', partition: '3' }), 1);
  });

  it('sets the collaboration gauges from crawl-wide events alone, leaving the per-node figures to the nodes', async () => {
    const metrics = new CrawlMetrics();
    metrics.observeProgress(progress('n-0', { bytes: 100 }));
    metrics.observeProgress(progress('n-1', { bytes: 200 }));
    // The crawl-wide event adds its nodes up: counting it too would count every byte twice.
    metrics.observeProgress(progress('n', { bytes: 300, collab: collab(0.2, 0.8) }));
    const s = await metrics.snapshot();
    assert.equal(sampleValue(s, 'shoal_downloaded_bytes_total'), 300);
    assert.equal(sampleValue(s, 'shoal_downloaded_bytes_total', { node: 'n' }), 0);
    assert.equal(sampleValue(s, 'shoal_collab_downloaded_pages', { node: 'n' }), 10);
    assert.equal(sampleValue(s, 'shoal_collab_unique_pages'), 8);
    assert.equal(sampleValue(s, 'shoal_collab_overlap_ratio'), 0.2);
    assert.equal(sampleValue(s, 'shoal_collab_diversity_ratio'), 0.4);
    assert.equal(sampleValue(s, 'shoal_collab_load_max_over_mean'), 1.25);
    assert.equal(sampleValue(s, 'shoal_collab_urls_per_page'), 3.5);
    assert.equal(sampleValue(s, 'shoal_collab_topic_locality_ratio'), 0.8);
    assert.equal(sampleValue(s, 'shoal_collab_community_cohesion_ratio'), 0.5);
    assert.equal(sampleValue(s, 'shoal_collab_community_precision_ratio'), 0.75);
    assert.equal(sampleValue(s, 'shoal_collab_community_recall_ratio'), 0.25);
    const geo = s.find((f) => f.name === 'shoal_collab_geo_coverage_ratio');
    assert.deepEqual(geo?.samples, [], 'a figure the crawl does not have is no sample, not a zero');
    // A figure that stops being known (never in practice, but the gauge must not lie) goes away.
    metrics.observeProgress(progress('n', { collab: collab(0.25, null) }));
    const later = await metrics.snapshot();
    assert.equal(later.find((f) => f.name === 'shoal_collab_topic_locality_ratio')?.samples.length, 0);
    assert.equal(sampleValue(later, 'shoal_collab_overlap_ratio'), 0.25);
  });

  it('writes the text format Prometheus parses, in a registry of its own', async () => {
    const metrics = new CrawlMetrics();
    metrics.observeFetch(fetched('a', 'ok', 200, 1234, 40));
    metrics.observeFetch(fetched('b', 'ok', 200, 10, 400));
    metrics.observeFetch(fetched('b', 'ok', 200, 10, 4));
    metrics.observeProgress(progress('a', { bytes: 1234, frontier: { ...progress('a').frontier, queued: 5 } }));
    assert.equal(metrics.contentType, 'text/plain; version=0.0.4; charset=utf-8');
    const scrape = parseScrape(await metrics.text());
    const family = (name: string) => scrape.families.find((f) => f.name === name);
    assert.equal(family('shoal_page_bytes_total')?.type, 'COUNTER');
    assert.equal(family('shoal_frontier_urls')?.type, 'GAUGE');
    assert.equal(family('shoal_fetch_duration_seconds')?.type, 'HISTOGRAM');
    assert.equal(scrape.value('shoal_page_bytes_total', { node: 'a', outcome: 'ok' }), 1234);
    assert.equal(scrape.value('shoal_frontier_urls', { node: 'a', where: 'memory' }), 5);
    assert.equal(scrape.value('shoal_fetch_duration_seconds_count', { node: 'b' }), 2);
    assert.equal(scrape.value('shoal_fetch_duration_seconds_bucket', { node: 'b', le: '0.005' }), 1);
    assert.equal(scrape.value('shoal_fetch_duration_seconds_bucket', { node: 'b', le: '+Inf' }), 2);
    assert.deepEqual(scrape.labelValues('shoal_fetch_duration_seconds_sum', 'node'), ['a', 'b']);
    assert.ok(
      scrape.families.every((f) => f.name.startsWith('shoal_')),
      scrape.families.map((f) => f.name).join(),
    );
    // Nothing went to prom-client's global registry, and a second registry starts from zero.
    assert.equal((await globalRegistry.getMetricsAsJSON()).length, 0);
    assert.equal(sampleValue(await new CrawlMetrics().snapshot(), 'shoal_page_bytes_total'), 0);
  });

  it('stops counting once closed, and keeps what it counted', async () => {
    const metrics = new CrawlMetrics().listen().listen();
    diagnosticsEvents.fetch(fetched('a', 'ok', 200, 10, 5));
    metrics.close();
    metrics.close();
    diagnosticsEvents.fetch(fetched('a', 'ok', 200, 10, 5));
    assert.equal(sampleValue(await metrics.snapshot(), 'shoal_urls_total'), 1);
  });
});
