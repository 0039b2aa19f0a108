/**
 * The sliced IR′ iteration (src/order/rank-job.ts): the same ranks as src/eval/pagerank.ts, whatever
 * the slicing, over a fixed snapshot of the link log.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { pageRankDetailed } from '../../../src/eval/pagerank.js';
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
  const j = new RankJob(logOf(LINKS), LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), {
    damping: 0.9,
    tolerance: 0,
    maxIterations,
  });
  let steps = 1;
  while (!j.step(budgetPerStep)) steps++;
  return { job: j, steps };
}

describe('RankJob', () => {
  test('from IR = 1 it follows src/eval/pagerank.ts iteration by iteration', () => {
    const edges = LINKS.flatMap((out, u) => out.map((v) => [u, v] as const));
    const csr = csrFromEdges(
      5,
      Uint32Array.from(edges, (e) => e[0]),
      Uint32Array.from(edges, (e) => e[1]),
    );
    for (const iterations of [1, 2, 7, 60]) {
      const expected = pageRankDetailed(csr, { tolerance: 0, maxIterations: iterations });
      const { job: j } = job(0, iterations);
      assert.equal(j.iterations, iterations);
      for (let v = 0; v < 5; v++)
        assert.ok(Math.abs((j.ranks[v] as number) - (expected.ranks[v] as number)) < 1e-12, `${iterations} iterations, node ${v}`);
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
    const j = new RankJob(logOf(LINKS), LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), {
      damping: 0.9,
      tolerance: 1e-10,
      maxIterations: 10_000,
    });
    j.step(0);
    assert.ok(j.isDone && j.residual < 1e-10 && j.iterations < 10_000);
    // 3 and 4 have no in-links: IR = (1 − d) + d · dangling / n = base.
    assert.ok(Math.abs((j.ranks[3] as number) - j.base) < 1e-9);
    assert.ok(Math.abs((j.ranks[4] as number) - j.base) < 1e-9);
  });

  test('reads only its snapshot of the log', () => {
    const log = logOf(LINKS);
    const warm = new Float64Array(5).fill(1);
    const j = new RankJob(log, LINKS.length, 5, warm, new Float64Array(5), new Float64Array(5), {
      damping: 0.9,
      tolerance: 0,
      maxIterations: 5,
    });
    j.step(3);
    log.append(4, [3, 3, 3], 3);
    j.step(0);
    assert.deepEqual([...j.ranks], [...job(0, 5).job.ranks]);
  });

  test('an empty graph is done at once', () => {
    const j = new RankJob(new LinkLog(), 0, 0, new Float64Array(0), new Float64Array(0), new Float64Array(0), {
      damping: 0.9,
      tolerance: 0,
      maxIterations: 5,
    });
    assert.ok(j.isDone);
    assert.equal(j.step(1), true);
  });
});
