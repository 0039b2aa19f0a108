import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kendallTauB } from '../../../src/eval/kendall-tau.js';
import { Rng } from '../../../src/core/prng.js';

/** τ-b by its definition, over every pair: O(n²). */
function bruteForce(x: readonly number[], y: readonly number[]): number | null {
  let c = 0;
  let d = 0;
  let tx = 0;
  let ty = 0;
  const n = x.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = Math.sign((x[i] as number) - (x[j] as number));
      const b = Math.sign((y[i] as number) - (y[j] as number));
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  }
  const den = Math.sqrt((c + d + tx) * (c + d + ty));
  return den > 0 ? (c - d) / den : null;
}

describe('kendallTauB', () => {
  test('is 1 for the same order, -1 for the reverse, 0 for an order unrelated by symmetry', () => {
    assert.equal(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40]).tau, 1);
    assert.equal(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1]).tau, -1);
    assert.equal(kendallTauB([1, 2, 3, 4], [1, 4, 2, 3]).tau, (4 - 2) / 6);
  });

  test('handles ties as τ-b does: 4 concordant, one tie in x, one in y gives 4/5', () => {
    const r = kendallTauB([1, 1, 2, 3], [1, 2, 2, 3]);
    assert.ok(Math.abs((r.tau as number) - 0.8) < 1e-12, String(r.tau));
    assert.equal(r.tiesX, 1);
    assert.equal(r.tiesY, 1);
    assert.equal(r.tiesXY, 0);
  });

  test('agrees with the brute-force definition on 300 random inputs, with and without ties', () => {
    const rng = new Rng(5, 1, 1);
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + rng.int(60);
      const levels = [2, 5, 1000][trial % 3] as number;
      const x = Array.from({ length: n }, () => rng.int(levels));
      const y = Array.from({ length: n }, (_, i) => (trial % 2 === 0 ? rng.int(levels) : (x[i] as number) + rng.int(3)));
      const fast = kendallTauB(x, y).tau;
      const slow = bruteForce(x, y);
      if (slow === null) assert.equal(fast, null, `trial ${trial}`);
      else assert.ok(fast !== null && Math.abs(fast - slow) < 1e-12, `trial ${trial}: ${fast} vs ${slow}`);
    }
  });

  test('is null when undefined: fewer than two items, or one side all equal', () => {
    assert.equal(kendallTauB([], []).tau, null);
    assert.equal(kendallTauB([1], [2]).tau, null);
    assert.equal(kendallTauB([1, 1, 1], [1, 2, 3]).tau, null);
  });

  test('refuses unequal lengths and NaN', () => {
    assert.throws(() => kendallTauB([1, 2], [1]), RangeError);
    assert.throws(() => kendallTauB([1, Number.NaN], [1, 2]), /NaN at index 1/);
  });

  test('runs on 200,000 items (O(n log n)) and leaves its inputs alone', () => {
    const n = 200_000;
    const x = Float64Array.from({ length: n }, (_, i) => i % 1000);
    const y = Float64Array.from({ length: n }, (_, i) => (i * 7919) % n);
    const before = y.slice();
    const r = kendallTauB(x, y);
    assert.ok(r.tau !== null && Math.abs(r.tau) < 0.05);
    assert.deepEqual(y, before);
  });
});
