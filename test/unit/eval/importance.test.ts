/**
 * Importance metrics I(P) (SPEC §3): IB with distinct sources, IR through ./pagerank.ts, the topic
 * test, TF-IDF cosine, topic ∧ backlinks and weighted sums, on small hand-computed examples.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { specLabel } from '../../../src/core/strings.js';
import { csrFromEdges, type Csr } from '../../../src/eval/csr.js';
import { pageRank } from '../../../src/eval/pagerank.js';
import {
  backlinkImportance,
  cosineSimilarity,
  distinctLinks,
  hotMask,
  inverseDocumentFrequency,
  pageRankImportance,
  similarityImportance,
  sparseVector,
  tfIdf,
  topicImportance,
  topicWithBacklinks,
  weightedSum,
  type Importance,
} from '../../../src/eval/importance.js';

function csrOf(n: number, edges: readonly (readonly [number, number])[]): Csr {
  return csrFromEdges(
    n,
    Uint32Array.from(edges, (e) => e[0]),
    Uint32Array.from(edges, (e) => e[1]),
  );
}

function close(actual: ArrayLike<number>, expected: readonly number[], epsilon = 1e-9): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs((actual[i] as number) - (expected[i] as number)) <= epsilon, `[${i}] ${actual[i]} != ${expected[i]}`);
  }
}

//   0 ══▶ 1 ◀── 2        0 links to 1 twice; 1 links to itself and to 2; 3 links to 0; 4 is alone
//   ▲     ↺ ╲
//   3        ▶ 2
const EDGES: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, 1],
  [2, 1],
  [1, 1],
  [1, 2],
  [3, 0],
];

describe('backlinkImportance (IB)', () => {
  it('counts distinct source pages, not links, and ignores self-links by default', () => {
    // IB(0) = {3} = 1; IB(1) = {0, 2} = 2 (0's second link and 1's self-link do not count);
    // IB(2) = {1} = 1; IB(3) = IB(4) = 0.
    const ib = backlinkImportance(csrOf(5, EDGES));
    assert.deepEqual(Array.from(ib.values), [1, 2, 1, 0, 0]);
    assert.deepEqual(ib.spec, { id: 'backlinks', params: { distinctSources: true, countSelfLinks: false } });
  });

  it('counts a self-link once when asked to', () => {
    assert.deepEqual(Array.from(backlinkImportance(csrOf(5, EDGES), { countSelfLinks: true }).values), [1, 3, 1, 0, 0]);
  });

  it('is all zeros on a graph without links and empty on an empty graph', () => {
    assert.deepEqual(Array.from(backlinkImportance(csrOf(3, [])).values), [0, 0, 0]);
    assert.equal(backlinkImportance(csrOf(0, [])).values.length, 0);
  });
});

describe('distinctLinks', () => {
  it('keeps each (u → v) once at its first position, self-links included', () => {
    const g = distinctLinks(
      csrOf(5, [
        [0, 2],
        [0, 1],
        [0, 2],
        [1, 1],
        [1, 1],
        [3, 0],
      ]),
    );
    assert.deepEqual(Array.from(g.offsets), [0, 2, 3, 3, 4, 4]);
    assert.deepEqual(Array.from(g.targets), [2, 1, 1, 0]);
  });
});

describe('pageRankImportance (IR)', () => {
  it('ranks the graph without repeated links by default, with d = 0.9', () => {
    const g = csrOf(5, EDGES);
    const ir = pageRankImportance(g);
    const withoutRepeats = csrOf(5, [
      [0, 1],
      [2, 1],
      [1, 1],
      [1, 2],
      [3, 0],
    ]);
    close(ir.values, Array.from(pageRank(withoutRepeats, { damping: 0.9 })));
    assert.equal(ir.spec.id, 'pagerank');
    assert.equal(ir.spec.params['damping'], 0.9);
    assert.equal(ir.spec.params['distinctLinks'], true);
  });

  it('ranks the graph as given with distinctLinks false, and records the options it was given', () => {
    const g = csrOf(5, EDGES);
    const ir = pageRankImportance(g, { distinctLinks: false, damping: 0.85 });
    close(ir.values, Array.from(pageRank(g, { damping: 0.85 })));
    assert.equal(ir.spec.params['damping'], 0.85);
    assert.equal(ir.spec.params['distinctLinks'], false);
    // 0 → 1 twice and 0 → 2 once: counted as given, 1 gets 2/3 of 0's rank instead of 1/2.
    const skewed = csrOf(3, [
      [0, 1],
      [0, 1],
      [0, 2],
      [1, 0],
      [2, 0],
    ]);
    const asGiven = pageRankImportance(skewed, { distinctLinks: false }).values;
    const distinct = pageRankImportance(skewed).values;
    assert.ok((asGiven[1] as number) > (asGiven[2] as number));
    close(distinct, [distinct[0] as number, distinct[1] as number, distinct[1] as number]);
  });

  it('has mean 1 over the pages, as the paper scales it', () => {
    // 0 ↔ 1: symmetric, so IR = 1 for both.
    close(
      pageRankImportance(
        csrOf(2, [
          [0, 1],
          [1, 0],
        ]),
      ).values,
      [1, 1],
    );
  });
});

describe('topicImportance (IS for a topic word)', () => {
  it('is 1 with >= 1 title mention or >= 10 body mentions', () => {
    // page:    0   1   2   3   4
    // title:   0   1   0   0   2
    // body:    9   0  10  11   0   → hot: no, yes (title), yes (10), yes (11), yes (title)
    const titles = Uint16Array.of(0, 1, 0, 0, 2);
    const bodies = Uint16Array.of(9, 0, 10, 11, 0);
    const is = topicImportance(titles, bodies, { topic: 'computer' });
    assert.deepEqual(Array.from(is.values), [0, 1, 1, 1, 1]);
    assert.deepEqual(is.spec, { id: 'topic', params: { topic: 'computer', minTitleCount: 1, minBodyCount: 10 } });
    // Thresholds 2 and 11: only page 3 (body 11) and page 4 (title 2).
    assert.deepEqual(
      Array.from(topicImportance(titles, bodies, { topic: 'computer', minTitleCount: 2, minBodyCount: 11 }).values),
      [0, 0, 0, 1, 1],
    );
  });

  it('refuses count arrays of different lengths', () => {
    assert.throws(() => topicImportance(Uint8Array.of(1), Uint8Array.of(1, 2), { topic: 'x' }), RangeError);
  });
});

describe('TF-IDF cosine (IS(P, Q))', () => {
  it('computes the cosine of sparse vectors by hand', () => {
    // a = (t1: 1, t3: 2), b = (t1: 2, t2: 2, t3: 1): a·b = 2 + 2 = 4, |a| = √5, |b| = 3 → 4 / (3√5).
    const a = sparseVector([
      [3, 2],
      [1, 1],
    ]);
    const b = sparseVector([
      [1, 2],
      [2, 2],
      [3, 1],
    ]);
    assert.ok(Math.abs(cosineSimilarity(a, b) - 4 / (3 * Math.sqrt(5))) < 1e-12);
    assert.ok(Math.abs(cosineSimilarity(a, a) - 1) < 1e-12);
    assert.equal(cosineSimilarity(a, sparseVector([])), 0);
  });

  it('builds sorted vectors, adding repeated terms and dropping zeros', () => {
    const v = sparseVector([
      [5, 1],
      [2, 3],
      [5, 2],
      [7, 0],
    ]);
    assert.deepEqual(Array.from(v.terms), [2, 5]);
    assert.deepEqual(Array.from(v.weights), [3, 3]);
  });

  it('refuses vectors whose terms are not ascending', () => {
    const bad = { terms: Uint32Array.of(3, 1), weights: Float64Array.of(1, 1) };
    assert.throws(() => cosineSimilarity(bad, sparseVector([[1, 1]])), RangeError);
  });

  it('weights by idf = ln(N / df), 0 for terms no page has', () => {
    // N = 4: df 2 → ln 2; df 4 → 0; df 0 → 0.
    close(inverseDocumentFrequency([2, 4, 0], 4), [Math.LN2, 0, 0]);
    const weighted = tfIdf(
      sparseVector([
        [0, 3],
        [1, 5],
      ]),
      [2, 0.5],
    );
    assert.deepEqual(Array.from(weighted.weights), [6, 2.5]);
    assert.throws(() => tfIdf(sparseVector([[4, 1]]), [1, 1]), RangeError);
  });

  it('gives every page its similarity to the query, with or without idf', () => {
    // query = (t0: 1). Page A = (t0: 1, t1: 1), page B = (t1: 3).
    // Plain tf: cos(A, Q) = 1/√2, cos(B, Q) = 0. With idf (ln 2, 0): A = (t0: ln 2), so cos = 1.
    const pages = [
      sparseVector([
        [0, 1],
        [1, 1],
      ]),
      sparseVector([[1, 3]]),
    ];
    const query = sparseVector([[0, 1]]);
    close(similarityImportance(pages, query, { query: 'computer' }).values, [Math.SQRT1_2, 0], 1e-12);
    const withIdf = similarityImportance(pages, query, { query: 'computer', idf: [Math.LN2, 0] });
    close(withIdf.values, [1, 0], 1e-12);
    assert.deepEqual(withIdf.spec, { id: 'similarity', params: { query: 'computer', idf: true } });
  });
});

describe('combined importance', () => {
  const topic: Importance = { spec: { id: 'topic', params: { topic: 'computer' } }, values: Float64Array.of(1, 1, 0, 1) };
  const ib: Importance = { spec: { id: 'backlinks', params: {} }, values: Float64Array.of(5, 4, 9, 7) };

  it('topic ∧ backlinks >= 5 is hot', () => {
    // page 0: topic, 5 backlinks → hot; 1: 4 backlinks → no; 2: off topic → no; 3: hot.
    const hot = topicWithBacklinks(topic, ib);
    assert.deepEqual(Array.from(hot.values), [1, 0, 0, 1]);
    assert.deepEqual(hot.spec, {
      id: 'topic-and-backlinks',
      params: { topic: 'topic(topic=computer)', minTopic: 1, backlinks: 'backlinks', minBacklinks: 5 },
    });
    assert.deepEqual(Array.from(topicWithBacklinks(topic, ib, { minBacklinks: 7 }).values), [0, 0, 0, 1]);
  });

  it('IC = k1·IS + k2·IB', () => {
    // k1 = 2, k2 = 0.5: [2 + 2.5, 2 + 2, 0 + 4.5, 2 + 3.5]
    const ic = weightedSum([
      { importance: topic, weight: 2 },
      { importance: ib, weight: 0.5 },
    ]);
    assert.deepEqual(Array.from(ic.values), [4.5, 4, 4.5, 5.5]);
    assert.deepEqual(ic.spec.params, { of: ['topic(topic=computer)', 'backlinks'], weights: [2, 0.5] });
  });

  it('refuses no terms and arrays of different lengths', () => {
    assert.throws(() => weightedSum([]), RangeError);
    const short: Importance = { spec: { id: 'x', params: {} }, values: Float64Array.of(1) };
    assert.throws(
      () =>
        weightedSum([
          { importance: topic, weight: 1 },
          { importance: short, weight: 1 },
        ]),
      /x has 1 pages, expected 4/,
    );
    assert.throws(() => topicWithBacklinks(topic, short), RangeError);
  });
});

describe('specLabel and hotMask', () => {
  it('formats parameters in key order, arrays in brackets', () => {
    assert.equal(specLabel({ id: 'pagerank', params: { tolerance: 1e-9, damping: 0.9 } }), 'pagerank(damping=0.9, tolerance=1e-9)');
    assert.equal(specLabel({ id: 'w', params: { of: ['a', 'b'] } }), 'w(of=[a,b])');
    assert.equal(specLabel({ id: 'bfs', params: {} }), 'bfs');
    assert.equal(specLabel({ id: 'x', params: { o: { a: 1 } } }), 'x(o={"a":1})');
  });

  it('marks I(P) >= G as hot and refuses NaN', () => {
    assert.deepEqual(Array.from(hotMask(Float64Array.of(3, 10, 9.99, 100), 10)), [0, 1, 0, 1]);
    assert.throws(() => hotMask(Float64Array.of(1, NaN), 1), /page 1 is NaN/);
  });
});
