/**
 * PageRank (SPEC §3) on hand-drawn graphs, checked against a naive dense iteration written here
 * independently of src/eval/pagerank.ts, and against a value worked out by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges, inDegrees, transpose } from '../../../src/eval/csr.js';
import { pageRank, pageRankDetailed } from '../../../src/eval/pagerank.js';

/** Dense textbook iteration: IR(P) = (1-d) + d Σ IR(T)/c(T), dangling T linking to every page. */
function naivePageRank(n: number, edges: readonly (readonly [number, number])[], d: number, rounds: number): number[] {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of edges) out[u]?.push(v);
  let ir = Array.from({ length: n }, () => 1);
  for (let r = 0; r < rounds; r++) {
    const next: number[] = [];
    for (let p = 0; p < n; p++) {
      let s = 0;
      for (let t = 0; t < n; t++) {
        const links = out[t] as number[];
        if (links.length === 0) s += (ir[t] as number) / n;
        else s += ((ir[t] as number) * links.filter((x) => x === p).length) / links.length;
      }
      next.push(1 - d + d * s);
    }
    ir = next;
  }
  return ir;
}

function csrOf(n: number, edges: readonly (readonly [number, number])[]) {
  return csrFromEdges(
    n,
    Uint32Array.from(edges, (e) => e[0]),
    Uint32Array.from(edges, (e) => e[1]),
  );
}

describe('pageRank', () => {
  //   0 ──▶ 1 ──▶ 2
  //   ▲ ╲         │
  //   │  ╲        ▼
  //   │   ╰─────▶ 3 ──▶ 4      (4 has no out-links: dangling)
  //   └───────────┘            (3 links back to 0)
  const edges: [number, number][] = [
    [0, 1],
    [0, 3],
    [1, 2],
    [2, 3],
    [3, 0],
    [3, 4],
  ];
  const graph = csrOf(5, edges);

  it('matches a naive dense iteration, dangling node included', () => {
    const expected = naivePageRank(5, edges, 0.9, 2000);
    const got = pageRank(graph, { tolerance: 1e-14, maxIterations: 5000 });
    assert.equal(got.length, 5);
    for (let i = 0; i < 5; i++)
      assert.ok(Math.abs((got[i] as number) - (expected[i] as number)) < 1e-9, `node ${i}: ${got[i]} vs ${expected[i]}`);
  });

  it('keeps the sum at n and favours the page everybody reaches', () => {
    const ir = pageRank(graph, { tolerance: 1e-13, maxIterations: 5000 });
    const sum = ir.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 5) < 1e-9, `sum ${sum}`);
    // 3 is linked from 0 and 2 and is on the only cycle through the dangling page: it ranks first.
    const top = [...ir.keys()].sort((a, b) => (ir[b] as number) - (ir[a] as number))[0];
    assert.equal(top, 3);
  });

  it('gives the value worked out by hand on a 2-cycle plus a dangling page', () => {
    // 0 ⇄ 1, 2 dangling. By symmetry x = IR(0) = IR(1), y = IR(2), 2x + y = 3 and
    // y = 0.1 + 0.9·y/3 ⇒ y = 0.1 / 0.7 = 1/7, x = (3 − 1/7)/2 = 10/7.
    const ir = pageRank(
      csrOf(3, [
        [0, 1],
        [1, 0],
      ]),
      { tolerance: 1e-15, maxIterations: 10_000 },
    );
    assert.ok(Math.abs((ir[2] as number) - 1 / 7) < 1e-10, `IR(2) = ${ir[2]}`);
    assert.ok(Math.abs((ir[0] as number) - 10 / 7) < 1e-10, `IR(0) = ${ir[0]}`);
  });

  it('gives every page rank 1 when no page links anywhere', () => {
    const ir = pageRank(csrOf(4, []));
    assert.deepEqual([...ir], [1, 1, 1, 1]);
  });

  it('counts duplicate edges as given (the caller deduplicates)', () => {
    const once = pageRank(
      csrOf(3, [
        [0, 1],
        [0, 2],
        [1, 0],
        [2, 0],
      ]),
      { tolerance: 1e-14, maxIterations: 5000 },
    );
    const twice = pageRank(
      csrOf(3, [
        [0, 1],
        [0, 1],
        [0, 2],
        [1, 0],
        [2, 0],
      ]),
      { tolerance: 1e-14, maxIterations: 5000 },
    );
    assert.ok(Math.abs((once[1] as number) - (once[2] as number)) < 1e-9);
    assert.ok((twice[1] as number) > (twice[2] as number) + 0.1);
  });

  it('stops at the tolerance or the cap and says which', () => {
    const capped = pageRankDetailed(graph, { maxIterations: 3 });
    assert.equal(capped.iterations, 3);
    assert.equal(capped.converged, false);
    const done = pageRankDetailed(graph, { tolerance: 1e-6, maxIterations: 1000 });
    assert.equal(done.converged, true);
    assert.ok(done.iterations < 1000 && done.residual < 1e-6);
  });

  it('rejects bad options', () => {
    assert.throws(() => pageRank(graph, { damping: 1 }), RangeError);
    assert.throws(() => pageRank(graph, { maxIterations: 0 }), RangeError);
    assert.throws(() => pageRank(graph, { tolerance: -1 }), RangeError);
  });

  it('handles the empty graph', () => {
    assert.equal(pageRank(csrOf(0, [])).length, 0);
  });
});

describe('csr helpers', () => {
  it('groups edges by source stably and counts in-degrees', () => {
    const g = csrOf(4, [
      [2, 1],
      [0, 3],
      [2, 0],
      [0, 1],
      [3, 3],
    ]);
    assert.deepEqual([...g.offsets], [0, 2, 2, 4, 5]);
    assert.deepEqual([...g.targets], [3, 1, 1, 0, 3]);
    assert.deepEqual([...inDegrees(g)], [1, 2, 0, 2]);
    const r = transpose(g);
    assert.deepEqual([...r.offsets], [0, 1, 3, 3, 5]);
    assert.deepEqual([...r.targets], [2, 0, 2, 0, 3]);
  });

  it('rejects ids out of range', () => {
    assert.throws(() => csrOf(2, [[0, 2]]), RangeError);
  });
});
