/**
 * The sliced IR′ iteration (src/order/rank-job.ts) and the typed-array pieces the policies share:
 * the link log, out-link deduplication and the change buffer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { pageRankDetailed } from '../../../src/eval/pagerank.js';
import { ChangeBuffer } from '../../../src/order/change-buffer.js';
import { DistinctLinks } from '../../../src/order/distinct-links.js';
import { grown } from '../../../src/core/grown.js';
import { IdFlags, IdNumbers, isUrlId } from '../../../src/order/id-arrays.js';
import { LinkLog } from '../../../src/order/link-log.js';
import { RankJob } from '../../../src/order/rank-job.js';

//   0 → 1, 2      1 → 2      2 → 0      3 (no links)      4 (never fetched)
const LINKS: readonly (readonly number[])[] = [[1, 2], [2], [0], []];

function logOf(pages: readonly (readonly number[])[]): LinkLog {
  const log = new LinkLog();
  pages.forEach((out, key) => log.append(key, out, out.length));
  return log;
}

function job(budgetPerStep: number, maxIterations: number): { job: RankJob; steps: number } {
  const warm = new Float64Array(5).fill(1);
  const j = new RankJob(logOf(LINKS), LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), { damping: 0.9, tolerance: 0, maxIterations });
  let steps = 1;
  while (!j.step(budgetPerStep)) steps++;
  return { job: j, steps };
}

describe('RankJob', () => {
  test('from IR = 1 it follows src/eval/pagerank.ts iteration by iteration', () => {
    const edges = LINKS.flatMap((out, u) => out.map((v) => [u, v] as const));
    const csr = csrFromEdges(5, Uint32Array.from(edges, (e) => e[0]), Uint32Array.from(edges, (e) => e[1]));
    for (const iterations of [1, 2, 7, 60]) {
      const expected = pageRankDetailed(csr, { tolerance: 0, maxIterations: iterations });
      const { job: j } = job(0, iterations);
      assert.equal(j.iterations, iterations);
      for (let v = 0; v < 5; v++) assert.ok(Math.abs((j.ranks[v] as number) - (expected.ranks[v] as number)) < 1e-12, `${iterations} iterations, node ${v}`);
      assert.ok(Math.abs(j.residual - expected.residual) < 1e-12);
    }
  });

  test('the same ranks whatever the slice size; small slices take more steps', () => {
    const whole = job(0, 30);
    assert.equal(whole.steps, 1);
    for (const budget of [1, 2, 3, 7, 100]) {
      const sliced = job(budget, 30);
      assert.deepEqual([...sliced.job.ranks], [...whole.job.ranks], `budget ${budget}`);
      if (budget < 10) assert.ok(sliced.steps > 30, `budget ${budget}: ${sliced.steps} steps`);
    }
  });

  test('stops at the tolerance; base is what a node without in-links gets', () => {
    const warm = new Float64Array(5).fill(1);
    const j = new RankJob(logOf(LINKS), LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), { damping: 0.9, tolerance: 1e-10, maxIterations: 10_000 });
    j.step(0);
    assert.ok(j.isDone && j.residual < 1e-10 && j.iterations < 10_000);
    // 3 and 4 have no in-links: IR = (1 − d) + d · dangling / n = base.
    assert.ok(Math.abs((j.ranks[3] as number) - j.base) < 1e-9);
    assert.ok(Math.abs((j.ranks[4] as number) - j.base) < 1e-9);
  });

  test('reads only its snapshot of the log', () => {
    const log = logOf(LINKS);
    const warm = new Float64Array(5).fill(1);
    const j = new RankJob(log, LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), { damping: 0.9, tolerance: 0, maxIterations: 5 });
    j.step(3);
    log.append(4, [3, 3, 3], 3);
    j.step(0);
    assert.deepEqual([...j.ranks], [...job(0, 5).job.ranks]);
  });

  test('an empty graph is done at once', () => {
    const j = new RankJob(new LinkLog(), 0, 0, new Float64Array(0), new Float64Array(0), new Float64Array(0), { damping: 0.9, tolerance: 0, maxIterations: 5 });
    assert.ok(j.isDone);
    assert.equal(j.step(1), true);
  });
});

describe('shared pieces', () => {
  test('LinkLog keeps pages in order and finds them by key', () => {
    const log = new LinkLog();
    log.append(7, [1, 2, 3], 2);
    log.append(2, [], 0);
    log.append(9, [4], 1);
    assert.equal(log.pageCount, 3);
    assert.equal(log.linkCount, 3);
    assert.deepEqual([log.pageOf(7), log.pageOf(2), log.pageOf(9), log.pageOf(3), log.pageOf(-1), log.pageOf(1e6)], [0, 1, 2, -1, -1, -1]);
    assert.deepEqual([...log.targets.subarray(log.start(0), log.end(0))], [1, 2]);
    assert.equal(log.end(1) - log.start(1), 0);
    assert.equal(log.keyOf(2), 9);
  });

  test('DistinctLinks keeps first occurrences of valid ids other than the page itself, call after call', () => {
    const d = new DistinctLinks();
    assert.equal(d.of([3, 1, 3, -1, 2.5, 1, 0, Number.NaN, 7], 7), 3);
    assert.deepEqual([...d.targets.subarray(0, d.count)], [3, 1, 0]);
    assert.equal(d.of([3, 3], 9), 1);
    assert.deepEqual([...d.targets.subarray(0, d.count)], [3]);
    assert.equal(d.of([], 0), 0);
    assert.equal(d.of([4, 4], 4), 0, 'a self-link is no link');
  });

  test('ChangeBuffer keeps one entry per id, the last value, and skips what cannot be applied', () => {
    const c = new ChangeBuffer();
    c.set(5, 1);
    c.set(2, 3);
    c.set(5, 4);
    c.set(-1, 1);
    c.set(7, Number.POSITIVE_INFINITY);
    assert.equal(c.length, 2);
    assert.deepEqual([[...c.ids.subarray(0, 2)], [...c.priorities.subarray(0, 2)]], [[5, 2], [4, 3]]);
    c.reset();
    assert.equal(c.length, 0);
    c.set(2, 9);
    assert.deepEqual([c.length, c.ids[0], c.priorities[0]], [1, 2, 9]);
  });

  test('id arrays: valid ids, growth with fill, flags and numbers that never throw', () => {
    assert.deepEqual([0, 5, -1, 1.5, Number.NaN, 2 ** 31].map(isUrlId), [true, true, false, false, false, false]);
    const a = grown(new Int32Array([1, 2]), 100, -1);
    assert.ok(a.length >= 100);
    assert.deepEqual([a[0], a[1], a[2], a[99]], [1, 2, -1, -1]);
    const flags = new IdFlags();
    flags.set(3, true);
    flags.set(-1, true);
    flags.set(1e6, false);
    assert.deepEqual([flags.has(3), flags.has(2), flags.has(-1), flags.has(1e6)], [true, false, false, false]);
    const numbers = new IdNumbers(7);
    numbers.set(2, 1.5);
    assert.deepEqual([numbers.get(2), numbers.get(1), numbers.get(50), numbers.get(-3)], [1.5, 7, 7, 7]);
  });
});
