/** The recent fetch durations behind the progress line's percentiles (src/obs/metrics/recent-latencies.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentLatencies } from '../../../../src/obs/metrics/recent-latencies.js';

describe('RecentLatencies', () => {
  it('gives nearest-rank p50 and p95 of the values held, none before the first', () => {
    const r = new RecentLatencies(100);
    assert.equal(r.percentiles(), null);
    // 1..100 ms in a shuffled order: the 50th and 95th values.
    for (let i = 0; i < 100; i++) r.add(((i * 37) % 100) + 1);
    assert.deepEqual(r.percentiles(), { p50Ms: 50, p95Ms: 95, count: 100 });
    const one = new RecentLatencies(8);
    one.add(12.5);
    assert.deepEqual(one.percentiles(), { p50Ms: 12.5, p95Ms: 12.5, count: 1 });
  });

  it('keeps the last values only: the oldest go first', () => {
    const r = new RecentLatencies(4);
    for (const ms of [1000, 1000, 1000, 1000, 1, 2, 3]) r.add(ms);
    // Held: 1000, 1, 2, 3.
    assert.deepEqual(r.percentiles(), { p50Ms: 2, p95Ms: 1000, count: 4 });
    r.add(4);
    assert.deepEqual(r.percentiles(), { p50Ms: 2, p95Ms: 4, count: 4 });
  });

  it('refuses a capacity that holds nothing', () => {
    assert.throws(() => new RecentLatencies(0), RangeError);
    assert.throws(() => new RecentLatencies(1.5), RangeError);
  });
});
