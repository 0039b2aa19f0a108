/**
 * Discrete power-law fitting (Clauset, Shalizi & Newman 2009) on samples drawn from a known zeta
 * distribution with a seeded generator.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fitPowerLaw, hurwitzZeta } from '../../../src/eval/power-law.js';
import { Rng } from '../../../src/core/prng.js';

/** Exact sampler of P(X = k) ∝ k^(−a), k >= 1 (Devroye 1986, X.6.1: rejection from a Pareto). */
function sampleZeta(rng: Rng, a: number): number {
  const b = Math.pow(2, a - 1);
  for (;;) {
    const u = 1 - rng.next();
    const v = rng.next();
    const x = Math.floor(Math.pow(u, -1 / (a - 1)));
    const t = Math.pow(1 + 1 / x, a - 1);
    if (x < 2 ** 31 && (v * x * (t - 1)) / (b - 1) <= t / b) return x;
  }
}

function samples(seed: number, a: number, n: number, offset = 0): Float64Array {
  const rng = new Rng(seed, 0, 0);
  return Float64Array.from({ length: n }, () => sampleZeta(rng, a) + offset);
}

describe('fitPowerLaw', () => {
  it('recovers exponent 2.5 with a chosen xmin', () => {
    const fit = fitPowerLaw(samples(42, 2.5, 20_000));
    assert.ok(Math.abs(fit.exponent - 2.5) <= 0.1, `exponent ${fit.exponent} (xmin ${fit.xmin})`);
    assert.ok(fit.tailCount >= 50);
    assert.ok(fit.ks < 0.05, `ks ${fit.ks}`);
  });

  it('recovers exponent 2.5 with xmin given', () => {
    const fit = fitPowerLaw(samples(7, 2.5, 20_000), { xmin: 3 });
    assert.equal(fit.xmin, 3);
    assert.ok(Math.abs(fit.exponent - 2.5) <= 0.1, `exponent ${fit.exponent}`);
  });

  it('offers the closed-form estimator of eq. 3.7, biased low at small xmin', () => {
    const data = samples(5, 2.5, 20_000);
    const low = fitPowerLaw(data, { xmin: 1, estimator: 'approximate' });
    assert.ok(low.exponent < 2.2, `approximate at xmin 1: ${low.exponent}`);
    const high = fitPowerLaw(data, { xmin: 8, estimator: 'approximate' });
    assert.ok(Math.abs(high.exponent - 2.5) <= 0.15, `approximate at xmin 8: ${high.exponent}`);
  });

  it('ignores zeros and finds the tail above a non-power-law body', () => {
    // Zeros plus a uniform lump on 1..20 in front of a 2.1 tail shifted to start at 21.
    const rng = new Rng(3, 0, 1);
    const tail = samples(9, 2.1, 20_000, 20);
    const body = Float64Array.from({ length: 20_000 }, () => 1 + rng.int(20));
    const all = Float64Array.from([...new Float64Array(5000), ...body, ...tail]);
    const fit = fitPowerLaw(all);
    assert.ok(fit.xmin >= 21, `xmin ${fit.xmin}`);
    assert.ok(fit.tailCount <= 20_000);
    // The shifted tail is a power law only asymptotically, so the exponent is looser here.
    assert.ok(Math.abs(fit.exponent - 2.1) <= 0.25, `exponent ${fit.exponent}`);
  });

  it('rejects too little data and bad values', () => {
    assert.throws(() => fitPowerLaw([1, 2, 3]), RangeError);
    assert.throws(() => fitPowerLaw([1, 2, -3]), RangeError);
    assert.throws(() => fitPowerLaw([1.5, 2]), RangeError);
  });
});

describe('hurwitzZeta', () => {
  it('agrees with known values', () => {
    assert.ok(Math.abs(hurwitzZeta(2, 1) - Math.PI ** 2 / 6) < 1e-12);
    assert.ok(Math.abs(hurwitzZeta(4, 1) - Math.PI ** 4 / 90) < 1e-12);
    assert.ok(Math.abs(hurwitzZeta(3, 3) - (1.2020569031595942 - 1 - 1 / 8)) < 1e-12);
  });
});
