import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashGroups, meanTau, subcollectionTaus, topicLocality } from '../../../src/eval/topic-metrics.js';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { pageRank } from '../../../src/eval/pagerank.js';

describe('topicLocality', () => {
  const cat = ['A', 'A', 'B', null, 'B'];
  const truth = ['A', 'B', 'B', 'B', 'B'];
  test('counts distinct linked pairs, both ends categorised, self-links out', () => {
    // 0→1 same, 1→2 differ, 2→4 same, 2→4 again (repeat), 0→3 (3 has no category), 4→4 self.
    const r = topicLocality(
      { from: [0, 1, 2, 2, 0, 4], to: [1, 2, 4, 4, 3, 4] },
      (p) => cat[p] ?? null,
      (p) => truth[p] ?? null,
    );
    assert.equal(r.pairs, 3);
    assert.equal(r.samePairs, 2);
    assert.equal(r.locality, 2 / 3);
    assert.equal(r.skipped, 1);
    // True labels of the same three pairs: 0→1 differ, 1→2 same, 2→4 same.
    assert.equal(r.trueLocality, 2 / 3);
  });

  test('no pairs: null', () => {
    assert.equal(topicLocality({ from: [], to: [] }, () => 'A').locality, null);
  });
});

describe('subcollectionTaus', () => {
  // A chain 0→1→2→3 plus 3→0 and 1→3: ranks differ by page.
  const links = { from: [0, 1, 2, 3, 1], to: [1, 2, 3, 0, 3] };
  test('a group holding every page agrees perfectly with the global PageRank of the same graph', () => {
    const global = pageRank(csrFromEdges(4, Uint32Array.from(links.from), Uint32Array.from(links.to)));
    const all = subcollectionTaus(new Map([['all', [0, 1, 2, 3]]]), links, (p) => global[p] as number);
    assert.equal(all[0]?.links, 5);
    assert.equal(all[0]?.pages, 4);
    assert.ok(Math.abs((all[0]?.tau as number) - 1) < 1e-12, String(all[0]?.tau));
    const reversed = subcollectionTaus(new Map([['all', [0, 1, 2, 3]]]), links, (p) => -(global[p] as number));
    assert.ok(Math.abs((reversed[0]?.tau as number) + 1) < 1e-12);
  });

  test('uses only the links inside the group; a group of one page has no tau', () => {
    const r = subcollectionTaus(
      new Map([
        ['a', [0, 1]],
        ['b', [2]],
      ]),
      links,
      (p) => p,
    );
    assert.equal(r[0]?.links, 1);
    assert.equal(r[1]?.tau, null);
    assert.equal(meanTau(r), r[0]?.tau);
  });
});

describe('hashGroups', () => {
  test('deals every page to exactly one of n groups, deterministically', () => {
    const pages = Array.from({ length: 1000 }, (_, i) => i);
    const g = hashGroups(pages, 4, (p) => `http://h/${p}`);
    assert.equal(
      [...g.values()].reduce((a, b) => a + b.length, 0),
      1000,
    );
    for (const members of g.values()) assert.ok(members.length > 150, `${members.length}`);
    assert.deepEqual(
      hashGroups(pages, 4, (p) => `http://h/${p}`),
      g,
    );
  });
});
