/**
 * The rate windows of a body (src/fetch/transfer-rate.ts) on plain numbers: every `nowMs` and byte
 * count below is chosen by the test. The rule: at least minBytesPerSecond × windowMs / 1000 bytes
 * in each window, the windows back to back from the head.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS, RateWindow } from '../../../src/fetch/transfer-rate.js';

describe('RateWindow', () => {
  test('the defaults: 1,000 B/s over 10 s, so 10,000 bytes a window', () => {
    assert.deepEqual([DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS], [1000, 10_000]);
    assert.equal(new RateWindow(DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS, 0).minWindowBytes, 10_000);
  });

  test('a drip of one byte a second falls short in its first window', () => {
    // Head at 500; 10 bytes by the end of the first window (10,500): 10 < 10,000.
    const rate = new RateWindow(1000, 10_000, 500);
    assert.deepEqual(rate.close(10_500, 10), { windowBytes: 10, windowMs: 10_000 });
  });

  test('exactly the bytes a window needs pass; one fewer does not', () => {
    assert.equal(new RateWindow(100, 2000, 0).close(2000, 200), null);
    assert.deepEqual(new RateWindow(100, 2000, 0).close(2000, 199), { windowBytes: 199, windowMs: 2000 });
  });

  test('windows follow one another: each counts only its own bytes', () => {
    // 100 B/s over 1 s: 100 bytes a window. 5,000 bytes in the first window, then 60 in the
    // second: the burst does not carry the slow window.
    const rate = new RateWindow(100, 1000, 0);
    assert.equal(rate.close(1000, 5000), null);
    assert.deepEqual(rate.close(2000, 5060), { windowBytes: 60, windowMs: 1000 });
  });

  test('a window that ran late is measured as it was, and needs no more bytes', () => {
    // The timer fired 300 ms late: the window lasted 1300 ms and still needs 100 bytes.
    const rate = new RateWindow(100, 1000, 0);
    assert.equal(rate.close(1300, 100), null);
    assert.deepEqual(rate.close(2600, 150), { windowBytes: 50, windowMs: 1300 });
  });

  test('bytes received before the first window do not count in it', () => {
    const rate = new RateWindow(100, 1000, 0, 1000);
    assert.deepEqual(rate.close(1000, 1050), { windowBytes: 50, windowMs: 1000 });
  });

  test('a rate or window that is not a positive number throws', () => {
    for (const [bps, ms] of [
      [0, 1000],
      [-1, 1000],
      [Number.NaN, 1000],
      [100, 0],
      [100, Number.POSITIVE_INFINITY],
    ] as const) {
      assert.throws(() => new RateWindow(bps, ms, 0), RangeError, `${bps} B/s over ${ms} ms`);
    }
  });
});
