/**
 * The Limited Buffer model (SPEC §3): the LimitedBuffer heap (eviction by the crawler's estimate,
 * ties, re-keying), checked against a sort-based reference, and the PBC curve on the 10-page example
 * of ordering-models.test.ts:
 *
 *   page       0   1   2   3   4   5   6   7   8   9          T = 10, G = 7 → H = 7
 *   I(P)      50   3  20   7   7   1  12   0   7  30          hot = {0, 2, 3, 4, 6, 8, 9}
 *
 *   visit order:             3  0  5  9  1  2  8  7  6  4
 *   estimate at the visit:   2  5  1  4  3  1  2  9  0  2     (the crawler's guess, not I)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Importance } from '../../../src/eval/importance.js';
import {
  BufferEventKind,
  BufferLogRecorder,
  LimitedBuffer,
  bufferLogFromVisits,
  pbcBaseline,
  pbcCurve,
} from '../../../src/eval/ordering-models.js';

const IMPORTANCE: Importance = { spec: { id: 'backlinks', params: {} }, values: Float64Array.of(50, 3, 20, 7, 7, 1, 12, 0, 7, 30) };
const ORDER = Uint32Array.of(3, 0, 5, 9, 1, 2, 8, 7, 6, 4);
const ESTIMATES = Float64Array.of(2, 5, 1, 4, 3, 1, 2, 9, 0, 2);
const G7 = { kind: 'threshold', importance: IMPORTANCE, threshold: 7 } as const;

function close(actual: ArrayLike<number>, expected: readonly number[], epsilon = 1e-9): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs((actual[i] as number) - (expected[i] as number)) <= epsilon, `[${i}] ${actual[i]} != ${expected[i]}`);
  }
}

const sorted = (ids: Uint32Array): number[] => Array.from(ids).sort((a, b) => a - b);

describe('LimitedBuffer', () => {
  it('keeps B pages and evicts the lowest estimate', () => {
    // B = 3. 3(2) 0(5) 5(1) fill it; 9(4) evicts 5(1); 1(3) evicts 3(2); 2(1) is lower than all: dropped.
    const buffer = new LimitedBuffer(3, 10);
    assert.equal(buffer.offer(3, 2), -1);
    assert.equal(buffer.offer(0, 5), -1);
    assert.equal(buffer.offer(5, 1), -1);
    assert.equal(buffer.offer(9, 4), 5);
    assert.equal(buffer.offer(1, 3), 3);
    assert.equal(buffer.offer(2, 1), 2);
    assert.deepEqual(sorted(buffer.keptIds()), [0, 1, 9]);
    assert.equal(buffer.size, 3);
    assert.equal(buffer.has(1), true);
    assert.equal(buffer.has(3), false);
    assert.equal(buffer.estimateOf(9), 4);
    assert.equal(buffer.estimateOf(3), undefined);
    // hot = I >= 7: 0 and 9 are hot, 1 is not → 2 of B = 3.
    const hot = Uint8Array.from(IMPORTANCE.values, (v) => (v >= 7 ? 1 : 0));
    assert.equal(buffer.hotCount(hot), 2);
    assert.equal(buffer.hotShare(hot), 2 / 3);
  });

  it('on equal estimates lets the page that entered last go first', () => {
    // B = 2: a(1) b(1) kept; c(1) ties with the lowest and arrived last → dropped.
    // d(2) evicts one of a, b: b entered after a, so b goes.
    const buffer = new LimitedBuffer(2, 4);
    buffer.offer(0, 1);
    buffer.offer(1, 1);
    assert.equal(buffer.offer(2, 1), 2);
    assert.equal(buffer.offer(3, 2), 1);
    assert.deepEqual(sorted(buffer.keptIds()), [0, 3]);
  });

  it('re-keys kept pages in both directions and ignores pages it does not keep', () => {
    const buffer = new LimitedBuffer(2, 5);
    buffer.offer(0, 1);
    buffer.offer(1, 2);
    assert.equal(buffer.rekey(0, 5), true); // 0 is now the safest
    assert.equal(buffer.offer(2, 3), 1); // so 1 (2) goes
    assert.equal(buffer.rekey(4, 100), false);
    assert.equal(buffer.rekey(0, 0), true); // 0 drops to the bottom
    assert.equal(buffer.offer(3, 1), 0);
    assert.deepEqual(sorted(buffer.keptIds()), [2, 3]);
  });

  it('refuses a page it already keeps, ids out of range, NaN estimates and a zero capacity', () => {
    const buffer = new LimitedBuffer(2, 3);
    buffer.offer(1, 1);
    assert.throws(() => buffer.offer(1, 2), /already kept; use rekey/);
    assert.throws(() => buffer.offer(3, 1), /page 3 is not < 3/);
    assert.throws(() => buffer.offer(0, NaN), /NaN/);
    assert.throws(() => buffer.rekey(1, NaN), /NaN/);
    assert.throws(() => new LimitedBuffer(0, 3), RangeError);
  });

  it('agrees with a sort-based reference on random offers and re-keys', () => {
    let seed = 99;
    const next = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 30; round++) {
      const n = 5 + Math.floor(next() * 60);
      const capacity = 1 + Math.floor(next() * 8);
      const buffer = new LimitedBuffer(capacity, n);
      // Reference: kept pages with estimate and arrival; evict the minimum by (estimate, −arrival).
      const kept = new Map<number, { estimate: number; arrival: number }>();
      let arrival = 0;
      const ids = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5);
      for (const id of ids) {
        const estimate = Math.floor(next() * 6);
        const entry = { estimate, arrival: arrival++ };
        let expected = -1;
        if (kept.size === capacity) {
          const [lowest, low] = [...kept].reduce((a, b) =>
            b[1].estimate < a[1].estimate || (b[1].estimate === a[1].estimate && b[1].arrival > a[1].arrival) ? b : a,
          );
          if (estimate <= low.estimate) expected = id;
          else {
            kept.delete(lowest);
            expected = lowest;
          }
        }
        if (expected !== id) kept.set(id, entry);
        assert.equal(buffer.offer(id, estimate), expected);
        if (next() < 0.5 && kept.size > 0) {
          const target = [...kept.keys()][Math.floor(next() * kept.size)] as number;
          const changed = Math.floor(next() * 6);
          (kept.get(target) as { estimate: number }).estimate = changed;
          assert.equal(buffer.rekey(target, changed), true);
        }
        assert.deepEqual(
          sorted(buffer.keptIds()),
          [...kept.keys()].sort((a, b) => a - b),
        );
      }
    }
  });
});

describe('pbcCurve', () => {
  it('matches the hand replay of the example with B = 3', () => {
    // K  offer       buffer after (estimate)          hot kept   PBC = 100·hot/3
    // 1  3 (2)       3                                 1          33.3
    // 2  0 (5)       3 0                               2          66.7
    // 3  5 (1)       3 0 5                             2          66.7
    // 4  9 (4)       3 0 9     (5 evicted)             3          100
    // 5  1 (3)       0 9 1     (3 evicted)             2          66.7
    // 6  2 (1)       dropped                           2
    // 7  8 (2)       dropped                           2
    // 8  7 (9)       0 9 7     (1 evicted; 7 is not hot) 2
    // 9  6 (0)       dropped                           2
    // 10 4 (2)       dropped                           2          66.7
    const curve = pbcCurve(bufferLogFromVisits(ORDER, ESTIMATES), G7, { capacity: 3, points: 10, policy: { id: 'backlink', params: {} } });
    close(
      curve.y,
      [0, 1, 2, 2, 3, 2, 2, 2, 2, 2, 2].map((h) => (100 * h) / 3),
    );
    assert.deepEqual(curve.spec.params, { pages: 10, visited: 10, capacity: 3, hotPages: 7, threshold: 7 });
    assert.equal(curve.spec.id, 'pbc');
  });

  it('with the true importance as estimate it keeps the top B (the ideal buffer for this order)', () => {
    const truth = Float64Array.from(ORDER, (p) => IMPORTANCE.values[p] as number);
    const curve = pbcCurve(bufferLogFromVisits(ORDER, truth), G7, { capacity: 3, points: 10 });
    assert.equal(curve.y[curve.y.length - 1], 100);
  });

  it('replays re-keys recorded between offers', () => {
    // B = 2, hot = {0}. offer 0 (1), offer 1 (2), rekey 0 → 5, offer 2 (3): 1 is now the lowest and goes,
    // so page 0 stays: PBC 50 at K = 1, 2, 3. Without the re-key 0 would go at K = 3 (PBC 0).
    const hot = { kind: 'mask', mask: Uint8Array.of(1, 0, 0, 0) } as const;
    const recorder = new BufferLogRecorder();
    recorder.offer(0, 1);
    recorder.offer(1, 2);
    recorder.rekey(0, 5);
    recorder.rekey(3, 7); // not kept: no effect
    recorder.offer(2, 3);
    const log = recorder.log();
    assert.deepEqual(Array.from(log.kinds), [0, 0, 1, 1, 0]);
    close(pbcCurve(log, hot, { capacity: 2, points: 4 }).y, [0, 50, 50, 50]);
    const withoutRekey = bufferLogFromVisits(Uint32Array.of(0, 1, 2), Float64Array.of(1, 2, 3));
    close(pbcCurve(withoutRekey, hot, { capacity: 2, points: 4 }).y, [0, 50, 50, 0]);
  });

  it('grows its recorder past the first allocation', () => {
    const recorder = new BufferLogRecorder();
    for (let i = 0; i < 3000; i++) recorder.offer(i, i % 7);
    const log = recorder.log();
    assert.equal(log.ids.length, 3000);
    assert.equal(log.ids[2999], 2999);
    assert.equal(log.estimates[2999], 2999 % 7);
  });

  it('refuses repeated offers and unknown event kinds', () => {
    assert.throws(() => pbcCurve(bufferLogFromVisits(Uint32Array.of(1, 1), Float64Array.of(1, 1)), G7, { capacity: 2 }), /repeats page 1/);
    const bad = { kinds: Uint8Array.of(BufferEventKind.offer, 7), ids: Uint32Array.of(0, 1), estimates: Float64Array.of(1, 1) };
    assert.throws(() => pbcCurve(bad, G7, { capacity: 2 }), /unknown event kind 7/);
  });

  it('has the baselines: random 100·(min(K, B)/B)·(H/T), ideal 100·min(K, H, B)/B', () => {
    // B = 3, H = 7, T = 10.
    close(pbcBaseline('random', G7, 3, { points: 10 }).y, [0, 70 / 3, 140 / 3, 70, 70, 70, 70, 70, 70, 70, 70]);
    close(pbcBaseline('ideal', G7, 3, { points: 10 }).y, [0, 100 / 3, 200 / 3, 100, 100, 100, 100, 100, 100, 100, 100]);
    assert.throws(() => pbcBaseline('ideal', G7, 0), RangeError);
  });
});
