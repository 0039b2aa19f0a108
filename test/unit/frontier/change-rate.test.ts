/**
 * The revisit interval rules (src/frontier/change-rate.ts): Cho & Garcia-Molina's estimator against
 * pages drawn with a known change rate, the bounds, the at-most-twofold growth, and halve-double.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Rng } from '../../../src/core/prng.js';
import {
  changeRatePerMs,
  firstVisit,
  MAX_HISTORY,
  nextIntervalMs,
  recordVisit,
  type ChangeHistory,
  type RevisitBounds,
} from '../../../src/frontier/change-rate.js';

const CHO: RevisitBounds = { estimator: 'cho', initialIntervalMs: 1000, minIntervalMs: 100, maxIntervalMs: 100_000, tradeoffMs: 1000 };
const HALVE: RevisitBounds = { ...CHO, estimator: 'halve-double' };

/** n visits at a fixed interval to a page changing as a Poisson process of rate λ: the history. */
function observe(lambdaPerMs: number, intervalMs: number, n: number, rng: Rng): ChangeHistory {
  let h: ChangeHistory = { visits: 0, changes: 0, observedMs: 0, intervalMs };
  for (let i = 0; i < n; i++) {
    // P(at least one change in an interval) = 1 − e^(−λI).
    const isChanged = rng.next() < 1 - Math.exp(-lambdaPerMs * intervalMs);
    h = recordVisit(h, intervalMs, isChanged);
  }
  return h;
}

describe('change rate', () => {
  test('the estimator recovers λ where the naive ratio X / (nI) falls short', () => {
    const rng = new Rng(7, 1, 2, 3);
    const lambda = 1 / 800; // a change every 800 ms on average, visits every 1000 ms
    let sumCho = 0;
    let sumNaive = 0;
    const runs = 400;
    for (let r = 0; r < runs; r++) {
      const h = observe(lambda, 1000, MAX_HISTORY - 1, rng);
      sumCho += changeRatePerMs(h);
      sumNaive += h.changes / h.observedMs;
    }
    const cho = sumCho / runs;
    const naive = sumNaive / runs;
    assert.ok(Math.abs(cho - lambda) / lambda < 0.15, `Cho's estimate ${cho} within 15 % of ${lambda}`);
    assert.ok(naive < 0.75 * lambda, `the naive ratio ${naive} is biased low`);
  });

  test('no change seen: rate 0; every visit changed: a finite rate', () => {
    const none = observe(0, 1000, 10, new Rng(1, 1, 1));
    assert.equal(changeRatePerMs(none), 0);
    const all: ChangeHistory = { visits: 10, changes: 10, observedMs: 10_000, intervalMs: 1000 };
    assert.equal(changeRatePerMs(all), Math.log(10.5 / 0.5) / 1000);
  });

  test('the history is halved at MAX_HISTORY visits, keeping its ratio', () => {
    let h: ChangeHistory = { visits: MAX_HISTORY - 1, changes: 10, observedMs: 31_000, intervalMs: 1000 };
    h = recordVisit(h, 1000, true);
    assert.deepEqual(h, { visits: MAX_HISTORY / 2, changes: 5.5, observedMs: 16_000, intervalMs: 1000 });
  });
});

describe('next interval', () => {
  test('the first interval is the initial one, clamped to the bounds', () => {
    assert.equal(nextIntervalMs(firstVisit(CHO), false, CHO), 1000);
    assert.equal(firstVisit({ ...CHO, initialIntervalMs: 10 }).intervalMs, 100);
    assert.equal(firstVisit({ ...CHO, initialIntervalMs: 10 ** 9 }).intervalMs, 100_000);
  });

  test('cho: 1/λ̂, at most twice the last interval, within the bounds', () => {
    // 4 visits a second apart, 2 saw a change: r = −ln(2.5 / 4.5), λ = r / 1000.
    const h: ChangeHistory = { visits: 4, changes: 2, observedMs: 4000, intervalMs: 1000 };
    assert.equal(nextIntervalMs(h, true, CHO), Math.round(1000 / -Math.log(2.5 / 4.5)));
    // Never a change: doubling only.
    assert.equal(nextIntervalMs({ visits: 3, changes: 0, observedMs: 3000, intervalMs: 1000 }, false, CHO), 2000);
    assert.equal(nextIntervalMs({ visits: 30, changes: 0, observedMs: 3e6, intervalMs: 90_000 }, false, CHO), 100_000);
    // Changing every time, fast: the floor.
    assert.equal(nextIntervalMs({ visits: 30, changes: 30, observedMs: 3000, intervalMs: 100 }, true, CHO), 100);
  });

  test('cho: a page that changes more often is visited more often', () => {
    const rng = new Rng(11, 1, 1);
    const fast = observe(1 / 2000, 5000, 20, rng);
    const slow = observe(1 / 50_000, 5000, 20, rng);
    assert.ok(nextIntervalMs({ ...fast, intervalMs: 5000 }, true, CHO) < nextIntervalMs({ ...slow, intervalMs: 5000 }, false, CHO));
  });

  test('halve-double: halves on a change, doubles otherwise, within the bounds', () => {
    const h: ChangeHistory = { visits: 2, changes: 1, observedMs: 2000, intervalMs: 1000 };
    assert.equal(nextIntervalMs(h, true, HALVE), 500);
    assert.equal(nextIntervalMs(h, false, HALVE), 2000);
    assert.equal(nextIntervalMs({ ...h, intervalMs: 150 }, true, HALVE), 100);
    assert.equal(nextIntervalMs({ ...h, intervalMs: 80_000 }, false, HALVE), 100_000);
  });
});
