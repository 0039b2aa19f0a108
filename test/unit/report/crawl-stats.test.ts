/**
 * The crawl-log figures of a crawl report (src/report/crawl-stats.ts), on small logs written out
 * here: bucket widths, throughput per bucket and node, outcome and status-class counts,
 * nearest-rank percentiles, the latency histogram, who found each node's URLs, and coverage over time.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  bucketWidthMs,
  coverageOverTime,
  discoveryPairs,
  latencyHistogram,
  latencySummary,
  outcomeCounts,
  percentile,
  requestDurations,
  statusClassCounts,
  statusClassOf,
  throughput,
  type ReportFetch,
} from '../../../src/report/crawl-stats.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** A line: node, end time in ms after T0, URL, and what else the test needs. */
function line(node: number, atMs: number, url: string, more: Partial<ReportFetch> = {}): ReportFetch {
  return {
    node,
    endMs: T0 + atMs,
    url,
    discoveredFrom: null,
    status: 200,
    outcome: 'ok',
    bytes: 1000,
    durationMs: 10,
    hasRequest: true,
    ...more,
  };
}

describe('bucketWidthMs', () => {
  it('takes the least step giving no more than the wanted buckets', () => {
    assert.equal(bucketWidthMs(0), 100);
    assert.equal(bucketWidthMs(6000), 100);
    assert.equal(bucketWidthMs(6001), 200);
    assert.equal(bucketWidthMs(60_000), 1000);
    assert.equal(bucketWidthMs(3 * 86_400_000), 7_200_000);
    assert.equal(bucketWidthMs(100 * 86_400_000), 2 * 86_400_000, 'whole days past the list');
    assert.equal(bucketWidthMs(10_000, 10), 1000);
  });
});

describe('throughput', () => {
  it('counts pages and bytes by when each fetch ended, from the start of the first fetch, per node', () => {
    const fetches = [
      line(0, 10, 'a', { durationMs: 10 }), // started at T0: time 0
      line(0, 150, 'b', { bytes: 500 }),
      line(1, 250, 'c', { bytes: 2000 }),
      line(1, 260, 'd', { status: 0, outcome: 'timeout', bytes: 0 }),
      line(0, 5999, 'e'),
    ];
    const t = throughput(fetches, ['n0', 'n1']);
    assert.equal(t.startMs, T0);
    assert.equal(t.bucketMs, 100);
    assert.equal(t.buckets, 60);
    const [n0, n1] = t.nodes as [(typeof t.nodes)[number], (typeof t.nodes)[number]];
    assert.deepEqual([n0.pages[0], n0.pages[1], n0.pages[59]], [1, 1, 1]);
    assert.deepEqual([n0.bytes[0], n0.bytes[1]], [1000, 500]);
    assert.equal(n1.pages[2], 1, 'the line without a response is no page');
    assert.equal(n1.bytes[2], 2000);
    assert.equal(
      t.nodes.reduce((s, n) => s + n.pages.reduce((a, b) => a + b, 0), 0),
      4,
    );
  });

  it('has no bucket for an empty log', () => {
    const t = throughput([], ['n0']);
    assert.equal(t.startMs, null);
    assert.equal(t.buckets, 0);
    assert.deepEqual(t.nodes[0]?.pages, []);
  });
});

describe('outcomes and status classes', () => {
  it('counts lines per outcome, most first, and per class in a fixed order', () => {
    const fetches = [
      line(0, 1, 'a'),
      line(0, 2, 'b', { status: 404, outcome: 'http-error' }),
      line(0, 3, 'c', { status: 301, outcome: 'redirect' }),
      line(0, 4, 'd', { status: 0, outcome: 'robots-denied', hasRequest: false }),
      line(0, 5, 'e'),
      line(0, 6, 'f', { status: 503, outcome: 'http-error' }),
    ];
    assert.deepEqual(outcomeCounts(fetches), [
      { label: 'http-error', count: 2 },
      { label: 'ok', count: 2 },
      { label: 'redirect', count: 1 },
      { label: 'robots-denied', count: 1 },
    ]);
    assert.deepEqual(
      statusClassCounts(fetches).map((c) => `${c.label} ${c.count}`),
      ['2xx 2', '3xx 1', '4xx 1', '5xx 1', 'none 1'],
    );
    assert.deepEqual([0, 99, 100, 200, 599, 600].map(statusClassOf), ['none', 'other', '1xx', '2xx', '5xx', 'other']);
  });
});

describe('latency', () => {
  it('takes nearest-rank percentiles', () => {
    const ten = Float64Array.from({ length: 10 }, (_, i) => i + 1);
    assert.equal(percentile(ten, 50), 5);
    assert.equal(percentile(ten, 90), 9);
    assert.equal(percentile(ten, 95), 10);
    assert.equal(percentile(ten, 99), 10);
    assert.equal(percentile(ten, 10), 1);
    assert.equal(percentile(Float64Array.of(7), 50), 7);
    assert.ok(Number.isNaN(percentile(new Float64Array(0), 50)));
  });

  it('summarises the requests only, sorted', () => {
    const fetches = [
      line(0, 1, 'a', { durationMs: 30 }),
      line(0, 2, 'b', { durationMs: 10 }),
      line(1, 3, 'c', { durationMs: 20 }),
      line(1, 4, 'd', { durationMs: 0, hasRequest: false, status: 0, outcome: 'robots-denied' }),
    ];
    assert.deepEqual(Array.from(requestDurations(fetches)), [10, 20, 30]);
    assert.deepEqual(Array.from(requestDurations(fetches, 1)), [20]);
    const s = latencySummary(requestDurations(fetches));
    assert.deepEqual([s.count, s.meanMs, s.p50Ms, s.p99Ms, s.maxMs], [3, 20, 20, 30, 30]);
    assert.ok(Number.isNaN(latencySummary(new Float64Array(0)).meanMs));
  });

  it('bins durations in equal 1-2-5 bins up to past p99, the rest in the overflow', () => {
    const hundred = Float64Array.from({ length: 100 }, (_, i) => i);
    const h = latencyHistogram(hundred);
    // p99 = 98 (rank 99): bins of 5 ms (98 / 20 = 4.9), 20 of them, up to 100.
    assert.equal(h.edgesMs.length, 21);
    assert.equal(h.edgesMs[1], 5);
    assert.equal(h.edgesMs[20], 100);
    assert.deepEqual(h.counts, new Array(20).fill(5));
    assert.equal(h.overflow, 0);

    // 0..299 and two slow ones: p99 = 298 (rank 299 of 302), bins of 20 ms up to 300.
    const withSlow = Float64Array.from([...Array.from({ length: 300 }, (_, i) => i), 5000, 9000]).sort();
    const s = latencyHistogram(withSlow);
    assert.equal(s.edgesMs[s.edgesMs.length - 1], 300);
    assert.equal(s.overflow, 2, 'the two slow requests past the last edge');
    assert.equal(
      s.counts.reduce((a, b) => a + b, 0),
      300,
    );

    const zeros = latencyHistogram(Float64Array.of(0, 0, 0));
    assert.deepEqual([zeros.edgesMs, zeros.counts, zeros.overflow], [[0, 1], [3], 0]);
    assert.deepEqual(latencyHistogram(new Float64Array(0)).counts, [0]);
  });
});

describe('discoveryPairs', () => {
  // node 0 fetches the seed s and page a (found on s); node 1 fetches b (found on s: from node 0),
  // c (found on b: its own page), tries x twice (found on a: from node 0) and d (found on a page no
  // log has), and fetches e found on m, a page both nodes fetched (its own).
  const fetches = [
    line(0, 1, 's'),
    line(0, 2, 'a', { discoveredFrom: 's' }),
    line(0, 3, 'm', { discoveredFrom: 's' }),
    line(1, 4, 'b', { discoveredFrom: 's' }),
    line(1, 5, 'c', { discoveredFrom: 'b' }),
    line(1, 6, 'x', { discoveredFrom: 'a', status: 0, outcome: 'timeout' }),
    line(1, 7, 'x', { discoveredFrom: 'a', status: 0, outcome: 'timeout' }),
    line(1, 8, 'd', { discoveredFrom: 'elsewhere' }),
    line(1, 9, 'm', { discoveredFrom: 's' }),
    line(1, 10, 'e', { discoveredFrom: 'm' }),
  ];

  it('counts each URL once, in the row of the node that fetched the page it was found on', () => {
    const d = discoveryPairs(fetches, 2);
    assert.deepEqual(d.counts, [
      [2, 3],
      [0, 2],
    ]);
    assert.deepEqual(d.seeds, [1, 0]);
    assert.deepEqual(d.unknown, [0, 1]);
    const lines = d.counts.flat().reduce((a, b) => a + b, 0) + d.seeds[0]! + d.seeds[1]! + d.unknown[0]! + d.unknown[1]!;
    assert.equal(lines, 9, 'every distinct (node, URL) once');
  });

  it('counts target pages by the end of each bucket, cumulatively, each at its first download', () => {
    const target = new Set(['a', 'b', 'c', 'never']);
    const covered = coverageOverTime(fetches, (u) => u, target, { startMs: T0 - 10, bucketMs: 4, buckets: 5 });
    // a ends at 2 (bucket 3: (2 + 10) / 4), b at 4 (bucket 3), c at 5 (bucket 3).
    assert.deepEqual(covered, [0, 0, 0, 3, 3]);
  });
});
