/**
 * The Crawl & Stop, Crawl & Stop with Threshold and weighted-coverage curves (SPEC §3), their random
 * and ideal baselines, sampling and the edge cases, on one 10-page example worked out by hand:
 *
 *   page       0   1   2   3   4   5   6   7   8   9          T = 10
 *   I(P)      50   3  20   7   7   1  12   0   7  30
 *   rank r     0   7   2   4   4   8   3   9   4   1          r(P) = pages with a larger I
 *
 *   visit order: 3 0 5 9 1 2 8 7 6 4
 *   I by visit:  7 50 1 30 3 20 7 0 12 7
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Importance } from '../../../src/eval/importance.js';
import {
  checkVisitOrder,
  firstVisits,
  orderingCurves,
  pcsBaseline,
  pcsCurve,
  pstBaseline,
  pstCurve,
  resolveHot,
  sampleCounts,
  summarizeCurve,
  weightedCoverageBaseline,
  weightedCoverageCurve,
  weightedCoverageOverTime,
  type Curve,
} from '../../../src/eval/ordering-models.js';

const IMPORTANCE: Importance = { spec: { id: 'backlinks', params: {} }, values: Float64Array.of(50, 3, 20, 7, 7, 1, 12, 0, 7, 30) };
const ORDER = Uint32Array.of(3, 0, 5, 9, 1, 2, 8, 7, 6, 4);
const TEN = { points: 10 } as const;
const G7 = { kind: 'threshold', importance: IMPORTANCE, threshold: 7 } as const;

function close(actual: ArrayLike<number>, expected: readonly number[], epsilon = 1e-9): void {
  assert.equal(actual.length, expected.length, `length ${actual.length} != ${expected.length}`);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number;
    const e = expected[i] as number;
    assert.ok(Number.isNaN(e) ? Number.isNaN(a) : Math.abs(a - e) <= epsilon, `[${i}] ${a} != ${e}`);
  }
}

const percentOf = (counts: readonly number[], of: number): number[] => counts.map((c) => (100 * c) / of);

/** PCS by its definition, one sort per K, independent of the histogram in the implementation. */
function naivePcs(order: Uint32Array, values: Float64Array, k: number): number {
  if (k === 0) return NaN;
  const threshold = [...values].sort((a, b) => b - a)[k - 1] as number;
  let m = 0;
  for (let i = 0; i < k; i++) if ((values[order[i] as number] as number) >= threshold) m++;
  return (100 * m) / k;
}

describe('pcsCurve (Crawl & Stop)', () => {
  it('matches the hand count, ties at I(R_K) counting as hot', () => {
    // K  I(R_K)  visits with I >= I(R_K)                        M
    // 1   50     –                                               0
    // 2   30     0                                               1
    // 3   20     0                                               1
    // 4   12     0 9                                             2
    // 5    7     3 0 9          (3, 4, 8 tie at 7: all hot)      3
    // 6    7     3 0 9 2                                         4
    // 7    7     3 0 9 2 8                                       5
    // 8    3     3 0 9 1 2 8    (1 has I = 3 = I(R_8))           6
    // 9    1     all but 7                                       8
    // 10   0     all                                            10
    const curve = pcsCurve(ORDER, IMPORTANCE, { ...TEN, policy: { id: 'backlink', params: { every: 1 } } });
    close(curve.x, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    close(curve.y, [NaN, 0, 50, 100 / 3, 50, 60, 400 / 6, 500 / 7, 75, 800 / 9, 100]);
    assert.equal(curve.spec.id, 'pcs');
    assert.deepEqual(curve.spec.crawler, { kind: 'crawl', policy: { id: 'backlink', params: { every: 1 } } });
    assert.equal(curve.spec.label, 'backlink');
    assert.deepEqual(curve.spec.importance, IMPORTANCE.spec);
    assert.equal(curve.spec.params['pages'], 10);
  });

  it('agrees with the definition on random orders full of ties', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 20; round++) {
      const n = 1 + Math.floor(next() * 40);
      const values = Float64Array.from({ length: n }, () => Math.floor(next() * 5));
      const order = Uint32Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const visited = order.slice(0, Math.floor(next() * (n + 1)));
      const curve = pcsCurve(visited, values, { points: n });
      const ks = Array.from(curve.x, (x) => Math.round(x * n));
      close(
        curve.y,
        ks.map((k) => naivePcs(visited, values, k)),
      );
    }
  });

  it('has the paper baselines: random 100·K/T, ideal 100', () => {
    close(pcsBaseline('random', IMPORTANCE, TEN).y, [NaN, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    close(pcsBaseline('ideal', IMPORTANCE, TEN).y, [NaN, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100]);
    assert.deepEqual(pcsBaseline('ideal', IMPORTANCE).spec.crawler, { kind: 'ideal' });
  });

  it('is 100 for the ideal order and accepts a bare importance array', () => {
    const ideal = Uint32Array.of(0, 9, 2, 6, 3, 4, 8, 1, 5, 7);
    const curve = pcsCurve(ideal, IMPORTANCE.values, TEN);
    close(
      curve.y.subarray(1),
      Array.from({ length: 10 }, () => 100),
    );
    assert.equal(curve.spec.importance.id, 'unspecified');
  });

  it('refuses NaN importance', () => {
    assert.throws(() => pcsCurve(Uint32Array.of(0), Float64Array.of(1, NaN)), /page 1 is NaN/);
  });
});

describe('pstCurve (Crawl & Stop with Threshold)', () => {
  // G = 7: hot = {0, 2, 3, 4, 6, 8, 9}, H = 7. Hot visits in order: 3 0 . 9 . 2 8 . 6 4
  // found after K visits: 0 1 2 2 3 3 4 5 5 6 7
  it('matches the hand count', () => {
    const curve = pstCurve(ORDER, G7, TEN);
    close(curve.y, percentOf([0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7], 7));
    assert.deepEqual(curve.spec.params, { pages: 10, visited: 10, hotPages: 7, threshold: 7 });
  });

  it('takes a hot mask (any nonzero is hot)', () => {
    // hot = {1, 7}: visited at positions 4 and 7 → found 0 0 0 0 0 1 1 1 2 2 2 of H = 2.
    const mask = new Uint8Array(10);
    mask[1] = 1;
    mask[7] = 255;
    const curve = pstCurve(ORDER, { kind: 'mask', mask }, TEN);
    close(curve.y, percentOf([0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2], 2));
    assert.equal(curve.spec.importance.id, 'unspecified');
  });

  it('has the baselines: random 100·K/T, ideal 100·min(K, H)/H', () => {
    close(pstBaseline('random', G7, TEN).y, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    close(pstBaseline('ideal', G7, TEN).y, percentOf([0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7], 7));
  });

  it('is undefined (NaN) everywhere when no page is hot', () => {
    const none = { kind: 'threshold', importance: IMPORTANCE, threshold: 51 } as const;
    const curve = pstCurve(ORDER, none, TEN);
    assert.equal(curve.spec.params['hotPages'], 0);
    assert.ok(Array.from(curve.y).every(Number.isNaN));
    assert.ok(Array.from(pstBaseline('ideal', none, TEN).y).every(Number.isNaN));
  });

  it('ends where a short crawl ends', () => {
    // Visits 3 0 5 9 of T = 10, points = 4: K = 0, round(2.5) = 3, (5 > 4 stops), then the last visit K = 4.
    const curve = pstCurve(ORDER.subarray(0, 4), G7, { points: 4 });
    close(curve.x, [0, 0.3, 0.4]);
    close(curve.y, percentOf([0, 2, 3], 7));
  });

  it('has a single point at x = 0 for an empty crawl, and no point for an empty graph', () => {
    const curve = pstCurve(new Uint32Array(0), G7, TEN);
    close(curve.x, [0]);
    close(curve.y, [0]);
    close(pcsCurve(new Uint32Array(0), IMPORTANCE, TEN).y, [NaN]);
    assert.equal(pstCurve(new Uint32Array(0), { kind: 'mask', mask: new Uint8Array(0) }).x.length, 0);
  });
});

describe('visit orders', () => {
  it('refuses repeated and out-of-range ids, naming the position', () => {
    assert.throws(() => pstCurve(Uint32Array.of(3, 0, 3), G7), /repeats page 3 at position 2 \(first visited at 0\)/);
    assert.throws(() => pcsCurve(Uint32Array.of(10), IMPORTANCE), /page 10 at position 0/);
    assert.throws(() => checkVisitOrder(new Uint32Array(11), 10), /11 visits/);
  });

  it('keeps first visits (and their fetch times) with firstVisits', () => {
    const got = firstVisits(Uint32Array.of(3, 0, 3, 5, 0), 10, Float64Array.of(1, 2, 3, 4, 5));
    assert.deepEqual(Array.from(got.visitOrder), [3, 0, 5]);
    assert.deepEqual(Array.from(got.fetchTimesMs ?? []), [1, 2, 4]);
    assert.throws(() => firstVisits(Uint32Array.of(10), 10), RangeError);
  });

  it('samples each K once, and explicit fractions as given', () => {
    // T = 4, 10 steps: K = round(0.4 i) = 0 0 1 1 2 2 2 3 3 4 4 → 0 1 2 3 4.
    assert.deepEqual(Array.from(sampleCounts(4, 4, { points: 10 })), [0, 1, 2, 3, 4]);
    assert.deepEqual(Array.from(sampleCounts(10, 10, { at: [0.1, 0.2, 0.4] })), [1, 2, 4]);
    assert.deepEqual(Array.from(sampleCounts(10, 3, { at: [0.1, 0.2, 0.4] })), [1, 2]);
    assert.equal(sampleCounts(200, 200).length, 101);
    assert.throws(() => sampleCounts(10, 10, { at: [0.5, 0.2] }), RangeError);
    assert.throws(() => sampleCounts(10, 10, { points: 0 }), RangeError);
  });
});

describe('weighted coverage', () => {
  // w = I, Σ w = 137. Cumulative by visit: 7 57 58 88 91 111 118 118 130 137.
  const CUMULATIVE = [0, 7, 57, 58, 88, 91, 111, 118, 118, 130, 137];

  it('sums the weights of the pages crawled, raw or as a percentage of the total', () => {
    close(weightedCoverageCurve(ORDER, IMPORTANCE, { ...TEN, normalized: false }).y, CUMULATIVE);
    const normalized = weightedCoverageCurve(ORDER, IMPORTANCE, TEN);
    close(normalized.y, percentOf(CUMULATIVE, 137));
    assert.equal(normalized.spec.yUnit, 'percent');
  });

  it('has the baselines: heaviest first (ideal), K/T of the total (random)', () => {
    // Sorted weights 50 30 20 12 7 7 7 3 1 0 → 50 80 100 112 119 126 133 136 137 137.
    close(
      weightedCoverageBaseline('ideal', IMPORTANCE, { ...TEN, normalized: false }).y,
      [0, 50, 80, 100, 112, 119, 126, 133, 136, 137, 137],
    );
    close(weightedCoverageBaseline('random', IMPORTANCE, TEN).y, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });

  it('runs against a time axis', () => {
    // fetch times (ms): 0 5 5 20 40 41 60 61 80 100; 4 steps over 0..100 ms:
    // t = 0 → page 3 (7); 25 → through the 4th visit (88); 50 → 111; 75 → 118; 100 → 137.
    const times = Float64Array.of(0, 5, 5, 20, 40, 41, 60, 61, 80, 100);
    const curve = weightedCoverageOverTime(ORDER, times, IMPORTANCE, { points: 4, normalized: false });
    close(curve.x, [0, 25, 50, 75, 100]);
    close(curve.y, [7, 88, 111, 118, 137]);
    assert.equal(curve.spec.xUnit, 'ms');
    // A start before the first fetch shifts the axis: at 10 ms after start = 1000, nothing yet.
    const shifted = weightedCoverageOverTime(
      ORDER,
      times.map((t) => t + 1010),
      IMPORTANCE,
      { atMs: [10, 15], startMs: 1000 },
    );
    close(shifted.y, [(100 * 7) / 137, (100 * 58) / 137]);
  });

  it('refuses bad weights and bad times, and is NaN when all weights are 0', () => {
    assert.throws(() => weightedCoverageCurve(ORDER, Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, -1)), /weights must be finite/);
    assert.throws(() => weightedCoverageOverTime(ORDER, new Float64Array(9), IMPORTANCE), /10 visits but 9 fetch times/);
    assert.throws(() => weightedCoverageOverTime(Uint32Array.of(1, 2), Float64Array.of(5, 4), IMPORTANCE), /non-decreasing/);
    assert.ok(Array.from(weightedCoverageCurve(ORDER, new Float64Array(10), TEN).y).every(Number.isNaN));
  });
});

describe('summarizeCurve', () => {
  it('reads y at given x, interpolating between samples, NaN outside', () => {
    const curve: Curve = pstCurve(ORDER, G7, TEN);
    // 0.1 → 1/7; 0.25 → between 2/7 and 2/7; 0.35 → halfway from 2/7 to 3/7; 0.4 → 3/7.
    close(summarizeCurve(curve, [0.1, 0.25, 0.35, 0.4]), percentOf([1, 2, 2.5, 3], 7));
    close(summarizeCurve(curve), percentOf([1, 2, 3], 7));
    const short = pstCurve(ORDER.subarray(0, 3), G7, TEN);
    close(summarizeCurve(short, [0.2, 0.4, -0.1]), [(100 * 2) / 7, NaN, NaN]);
  });
});

describe('orderingCurves', () => {
  it('gives PST, PCS and weighted coverage as the three curves alone, with a hot mask resolved once', () => {
    const hot = resolveHot(G7);
    assert.equal(hot.hotPages, 7);
    assert.equal(resolveHot(hot), hot, 'a resolved mask passes through');
    const options = { ...TEN, policy: { id: 'bfs', params: {} } };
    const [pst, pcs, wc] = orderingCurves(ORDER, { hot, importance: IMPORTANCE, weights: IMPORTANCE }, options);
    assert.deepEqual(pst, pstCurve(ORDER, G7, options));
    assert.deepEqual(pcs, pcsCurve(ORDER, IMPORTANCE, options));
    assert.deepEqual(wc, weightedCoverageCurve(ORDER, IMPORTANCE, options));
  });

  it('refuses targets of different sizes and a bad visit order', () => {
    const nine = Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    assert.throws(() => orderingCurves(ORDER, { hot: G7, importance: IMPORTANCE, weights: nine }), /cover 10, 10, 9 pages/);
    assert.throws(() => orderingCurves(Uint32Array.of(1, 1), { hot: G7, importance: IMPORTANCE, weights: IMPORTANCE }), /repeats page 1/);
  });
});
