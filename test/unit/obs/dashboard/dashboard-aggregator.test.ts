/**
 * The dashboard's state (src/obs/dashboard/dashboard-aggregator.ts), fed events by hand: a crawl of
 * one node, an embedded crawl of two (with its crawl-wide events), a distributed one (members only),
 * and the bounded parts (series, hosts, discoveries).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DashboardAggregator } from '../../../../src/obs/dashboard/dashboard-aggregator.js';
import { BoundedSeries } from '../../../../src/obs/dashboard/bounded-series.js';
import { HostDurations } from '../../../../src/obs/dashboard/host-durations.js';
import { DiscoveryMatrix } from '../../../../src/obs/dashboard/discovery-matrix.js';
import type { CrawlProgress } from '../../../../src/obs/events.js';
import { crawlRecord, progressEvent } from '../../../helpers/crawl-events.js';

/** A progress event: `pages` pages and `bytes` bytes after `elapsedMs`. */
function progress(node: string, elapsedMs: number, pages: number, bytes: number, more: Partial<CrawlProgress> = {}): CrawlProgress {
  return progressEvent(node, {
    elapsedMs,
    urls: pages,
    pages,
    pagesPerSecond: (pages * 1000) / elapsedMs,
    bytes,
    bytesPerSecond: (bytes * 1000) / elapsedMs,
    ...more,
  });
}

const record = crawlRecord;

const T0 = 1_700_000_000_000;

describe('DashboardAggregator', () => {
  test('a crawl of one node: its events are the totals and its only node; rates from the last interval', () => {
    const a = new DashboardAggregator({ crawlId: 'c', source: 'local', crawlNode: 'shoal' });
    assert.equal(a.snapshot(T0).nodes.length, 0);
    a.sample(T0);
    assert.deepEqual(a.snapshot(T0).series.t, [], 'no point before any figure');
    a.progress(progress('shoal', 1_000, 10, 10_000), T0 + 1_000);
    a.sample(T0 + 1_000);
    a.progress(progress('shoal', 2_000, 40, 16_000, { urls: 45, errors: { 'http-error': 4, redirect: 1 } }), T0 + 2_000);
    a.sample(T0 + 2_000);
    const s = a.snapshot(T0 + 2_000);
    assert.deepEqual(
      s.nodes.map((n) => n.id),
      ['shoal'],
    );
    assert.equal(s.totals.pages, 40);
    // 30 pages and 6,000 bytes in the last second.
    assert.equal(s.totals.pagesPerSecond, 30);
    assert.equal(s.totals.bytesPerSecond, 6_000);
    assert.deepEqual(s.totals.outcomes, { ok: 40, 'http-error': 4, redirect: 1 });
    assert.deepEqual(s.series.t, [T0 + 1_000, T0 + 2_000]);
    assert.deepEqual(s.series.columns['pps:shoal'], [10, 30]);
    assert.deepEqual(s.series.columns['bps:shoal'], [10_000, 6_000]);
    assert.deepEqual(s.series.columns.pages, [10, 40]);
    assert.equal(s.partition, null, 'one node: nothing partitioned');
    assert.equal(s.crawl.stopReason, null);
    a.progress(progress('shoal', 2_500, 41, 16_100, { stopReason: 'max-pages' }), T0 + 2_500);
    const end = a.snapshot(T0 + 2_500);
    assert.equal(end.crawl.stopReason, 'max-pages');
    assert.equal(end.totals.pagesPerSecond, 0, 'a stopped node crawls nothing');
  });

  test('an embedded crawl: members per node, the crawl-wide event for totals and partition metrics', () => {
    const a = new DashboardAggregator({ crawlId: 'c', source: 'local', crawlNode: 'c' });
    const exchange = {
      urlsSent: 30,
      urlsReceived: 20,
      pagesSent: 0,
      pagesReceived: 0,
      bytesSent: 900,
      bytesReceived: 600,
      unconfirmed: 0,
      batchedUrls: 0,
      partitions: [],
    };
    a.progress(progress('c-1', 1_000, 20, 2_000, { exchange }), T0);
    a.progress(progress('c-0', 1_000, 10, 1_000, { exchange: { ...exchange, urlsSent: 20, urlsReceived: 30 } }), T0);
    const collab = {
      downloads: 30,
      uniquePages: 29,
      overlap: 1 / 30,
      diversity: 0.2,
      loadMaxOverMean: 20 / 15,
      urlsPerPage: 50 / 30,
      topicLocality: null,
      geoCoverage: null,
      geoFocus: null,
      community: { cohesion: 0.5, precision: 0.8, recall: 0.3 },
    };
    a.progress(progress('c', 1_000, 30, 3_000, { collab }), T0);
    a.sample(T0);
    const s = a.snapshot(T0);
    assert.deepEqual(
      s.nodes.map((n) => n.id),
      ['c-0', 'c-1'],
    );
    assert.equal(s.totals.pages, 30);
    assert.deepEqual(s.partition, { from: 'crawl', ...collab });
    assert.deepEqual(
      s.exchange.nodes.map((x) => [x.id, x.urlsSent, x.urlsReceived]),
      [
        ['c-0', 20, 30],
        ['c-1', 30, 20],
      ],
    );
    assert.deepEqual(s.series.columns.precision, [0.8]);
    assert.deepEqual(s.series.columns['pps:c-1'], [20]);
  });

  test('fetch records: pairs of nodes, slowest hosts, recent errors, coverage against a truth', () => {
    const reachable = new Map([
      ['http://a.test/', 0],
      ['http://a.test/1', 1],
      ['http://b.test/', 2],
      ['http://b.test/2', 3],
      ['http://c.test/', 4],
    ]);
    const a = new DashboardAggregator({
      crawlId: 'c',
      source: 'local',
      crawlNode: 'c',
      recentErrors: 2,
      truth: {
        reachable: 5,
        reachableWeight: 6,
        reachablePageOf: (url) => reachable.get(url) ?? -1,
        weightOf: (page) => (page === 0 ? 2 : 1),
      },
    });
    a.fetch(record('n0', 'http://a.test/', { durationMs: 30 }));
    a.fetch(record('n1', 'http://b.test/', { durationMs: 200, fromUrl: 'http://a.test/' }));
    a.fetch(record('n1', 'http://b.test/2', { durationMs: 400, fromUrl: 'http://b.test/' }));
    a.fetch(record('n0', 'http://a.test/1', { durationMs: 50, fromUrl: 'http://b.test/2' }));
    a.fetch(record('n0', 'http://a.test/x', { kind: 'http-error', status: 404, fromUrl: 'http://b.test/2' }));
    a.fetch(record('n0', 'http://a.test/r', { kind: 'redirect', status: 301 }));
    a.fetch(record('n0', 'http://a.test/t', { kind: 'timeout', status: null, reason: 'headers', durationMs: 5_000 }));
    a.fetch(record('n0', 'http://c.test/d', { kind: 'robots-denied', status: null, attempts: 0, durationMs: 0 }));
    a.fetch(record('n1', 'http://b.test/', { durationMs: 200, fromUrl: 'http://a.test/1' }));
    // n0's record of a page n1 fetched and forwarded to it: n1's own record counted it already.
    a.fetch(record('n1', 'http://b.test/2', { durationMs: 9_000, fromUrl: 'http://a.test/', isReceived: true }));
    const s = a.snapshot(T0);
    // n0 → n1: b.test/ (found on a.test/, twice: once from a.test/1); n1 → n0: a.test/1 and the 404.
    assert.deepEqual(s.exchange.matrix, {
      nodes: ['n0', 'n1'],
      counts: [
        [0, 2],
        [2, 0],
      ],
    });
    assert.deepEqual(
      s.slowHosts.map((h) => h.host),
      ['a.test', 'b.test'],
      'a.test has the longest mean (one timeout of 5 s); the robots decision made no request',
    );
    assert.equal(s.slowHosts[0]?.fetches, 5);
    assert.equal(s.slowHosts[0]?.maxMs, 5_000);
    assert.deepEqual(
      s.recentErrors.map((e) => [e.kind, e.url]),
      [
        ['timeout', 'http://a.test/t'],
        ['http-error', 'http://a.test/x'],
      ],
      'newest first, at most 2; redirects and robots decisions are no error',
    );
    // a.test/, a.test/1, b.test/, b.test/2 of the 5 reachable pages; weights 2 + 1 + 1 + 1 of 6.
    assert.deepEqual(s.truth, { reachable: 5, downloaded: 4, coverage: 4 / 5, weightedCoverage: 5 / 6 });
  });

  test('a distributed crawl: members added up, load balance and URLs per page from their counts', () => {
    const a = new DashboardAggregator({ crawlId: 'd', source: 'nats' });
    const ex = (urlsSent: number) => ({
      urlsSent,
      urlsReceived: 0,
      pagesSent: 0,
      pagesReceived: 0,
      bytesSent: 0,
      bytesReceived: 0,
      unconfirmed: 0,
      batchedUrls: 0,
      partitions: [],
    });
    a.progress(progress('n2', 1_000, 30, 3_000, { exchange: ex(40) }), T0);
    a.progress(progress('n10', 1_000, 10, 1_000, { exchange: ex(20) }), T0);
    a.nodeState('n2', { partitions: [0], isIdle: false });
    a.nodeState('n10', { partitions: [1], isIdle: true });
    const s = a.snapshot(T0);
    assert.deepEqual(
      s.nodes.map((n) => [n.id, n.partitions, n.isIdle]),
      [
        ['n2', [0], false],
        ['n10', [1], true],
      ],
      'in numeric order',
    );
    assert.equal(s.totals.pages, 40);
    assert.equal(s.totals.bytes, 4_000);
    assert.equal(s.totals.frontier.queued, 20);
    assert.equal(s.partition?.from, 'nodes');
    assert.equal(s.partition?.loadMaxOverMean, 30 / 20);
    assert.equal(s.partition?.urlsPerPage, 60 / 40);
    assert.equal(s.partition?.overlap, null);
    assert.equal(s.crawl.stopReason, null);
    a.progress(progress('n2', 2_000, 31, 3_100, { stopReason: 'exhausted' }), T0 + 1_000);
    assert.equal(a.snapshot(T0).crawl.stopReason, null, 'until every node has stopped');
    a.progress(progress('n10', 2_000, 11, 1_100, { stopReason: 'exhausted' }), T0 + 1_000);
    assert.equal(a.snapshot(T0).crawl.stopReason, 'exhausted');
  });

  test('a repeated event (the same statistics read again) changes nothing', () => {
    const a = new DashboardAggregator({ crawlId: 'd', source: 'nats' });
    a.progress(progress('n', 1_000, 10, 1_000), T0);
    a.progress(progress('n', 2_000, 30, 5_000), T0 + 1_000);
    a.progress(progress('n', 2_000, 30, 5_000), T0 + 2_000);
    const [n] = a.snapshot(T0).nodes;
    assert.equal(n?.pagesPerSecond, 20);
    assert.equal(n?.updatedAtMs, T0 + 1_000);
  });
});

describe('BoundedSeries', () => {
  test('merges neighbours when full: the whole run in at most `capacity` points', () => {
    const s = new BoundedSeries(4);
    for (let i = 1; i <= 9; i++) s.add(i * 1_000, { x: i, ...(i >= 3 ? { late: i * 10 } : {}) });
    // 1..4 fill it, merged to [1.5 @2, 3.5 @4]; then pairs: 5,6 → 5.5 @6; 7,8 → 7.5 @8 fill it again,
    // merged to [2.5 @4, 6.5 @8] (stride 4); 9 waits for its three neighbours.
    const v = s.view();
    assert.equal(s.samplesPerPoint, 4);
    assert.deepEqual(v.t, [4_000, 8_000]);
    assert.deepEqual(v.columns.x, [2.5, 6.5]);
    // late: null, null, 30, 40 → [null, 35] → [35]; 50..80 → 65.
    assert.deepEqual(v.columns.late, [35, 65]);
  });

  test('a column that appears late holds null before', () => {
    const s = new BoundedSeries(8);
    s.add(1, { a: 1 });
    s.add(2, { a: 2, b: 5 });
    assert.deepEqual(s.view().columns, { a: [1, 2], b: [null, 5] });
  });
});

describe('HostDurations', () => {
  test('keeps the hosts heard of most recently', () => {
    const h = new HostDurations(2);
    h.add({ host: 'a', durationMs: 900, attempts: 1, node: 'n' });
    h.add({ host: 'b', durationMs: 100, attempts: 1, node: 'n' });
    h.add({ host: 'c', durationMs: 300, attempts: 1, node: 'n' });
    assert.deepEqual(
      h.slowest(5).map((x) => x.host),
      ['c', 'b'],
    );
  });
});

describe('DiscoveryMatrix', () => {
  test('forgets the oldest URLs beyond its window', () => {
    const m = new DiscoveryMatrix(2);
    m.add({ node: 'a', url: 'u1', fromUrl: null, status: 200 });
    m.add({ node: 'a', url: 'u2', fromUrl: null, status: 200 });
    m.add({ node: 'a', url: 'u3', fromUrl: null, status: 200 });
    // u1 has left the window: its discovery is not counted; u3's is.
    m.add({ node: 'b', url: 'u4', fromUrl: 'u1', status: 200 });
    m.add({ node: 'b', url: 'u5', fromUrl: 'u3', status: 200 });
    m.add({ node: 'b', url: 'u6', fromUrl: 'u3', status: null });
    assert.deepEqual(m.view(), {
      nodes: ['a', 'b'],
      counts: [
        [0, 1],
        [0, 0],
      ],
    });
  });
});
