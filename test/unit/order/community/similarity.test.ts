/**
 * The link-graph view and s(p, q) (src/order/community/similarity.ts), counted by hand on tiny graphs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commonCount, LinkGraphView } from '../../../../src/order/community/similarity.js';
import { ringCommunityGraph } from '../../../../src/eval/community-metrics.js';

describe('LinkGraphView', () => {
  // 0 → 1, 2, 3     1 → 0, 2, 3     4 → 2, 3     (5 not fetched)
  // s(0, 1): l = 1 (both ways), f = |{2, 3}| = 2, c = |P_0 ∩ P_1| = |{1} ∩ {0}| = 0 → 3
  // s(2, 3): l = 0, f = 0 (neither fetched), c = |{0, 1, 4}| = 3 → 3
  // s(0, 4): l = 0, f = |{2, 3}| = 2, c = 0 → 2;  s(1, 2): l = 1/2, f = 0, c = |{0}| = 1 → 1.5
  function tiny(): LinkGraphView {
    const view = new LinkGraphView();
    view.addPage(0, [1, 2, 3, 0, 2]);
    view.addPage(1, [3, 2, 0]);
    view.addPage(4, [2, 3]);
    return view;
  }

  it('keeps sorted out-links without repeats or self-links, and in-links from fetched pages only', () => {
    const view = tiny();
    assert.deepEqual(view.outLinks(0), [1, 2, 3]);
    assert.deepEqual(view.inLinks(2), [0, 1, 4]);
    assert.deepEqual(view.inLinks(4), []);
    assert.equal(view.pageCount, 3);
    assert.equal(view.isFetched(2), false);
    assert.equal(view.isKnown(2), true);
    assert.equal(view.isKnown(5), false);
  });

  it('computes s = l + f + c by hand', () => {
    const view = tiny();
    assert.equal(view.linkWeight(0, 1), 1);
    assert.equal(view.linkWeight(1, 2), 0.5);
    assert.equal(view.similarity(0, 1), 3);
    assert.equal(view.similarity(2, 3), 3);
    assert.equal(view.similarity(0, 4), 2);
    assert.equal(view.similarity(1, 2), 1.5);
    assert.equal(view.similarity(0, 0), 0);
  });

  it('weighs the three terms by α, β, γ', () => {
    const view = tiny();
    // s(1, 2) = 2 · 1/2 + 3 · 0 + 5 · 1 = 6
    assert.equal(view.similarity(1, 2, { alpha: 2, beta: 3, gamma: 5 }), 6);
  });

  it('refuses a page added twice', () => {
    const view = tiny();
    assert.throws(() => view.addPage(0, []), RangeError);
  });

  it('keeps the first maxNeighbours out-links and in-links only', () => {
    const view = new LinkGraphView({ maxNeighbours: 2 });
    assert.deepEqual(view.addPage(0, [9, 5, 7]), [5, 9]);
    view.addPage(1, [5, 9]);
    view.addPage(2, [5, 9]);
    assert.deepEqual(view.inLinks(5), [0, 1]);
    // exact c(1, 2) would be 0; f(1, 2) = 2 both ways. c(5, 9) = |{0, 1}| = 2 (2 dropped), exact 3.
    assert.equal(view.similarity(5, 9), 2);
    assert.equal(view.hasLink(0, 7), false);
  });

  it('commonCount merges sorted lists', () => {
    assert.equal(commonCount([1, 3, 5, 7], [2, 3, 7, 8]), 2);
    assert.equal(commonCount([], [1]), 0);
  });

  it('loses nothing on the paper graph at the default cap, and measurably at a tight one', () => {
    const { graph } = ringCommunityGraph({ communities: 17, size: 100, k: 32, o: 2, seed: 1 });
    const exact = new LinkGraphView({ maxNeighbours: 10_000 });
    const capped = new LinkGraphView();
    const tight = new LinkGraphView({ maxNeighbours: 16 });
    for (let p = 0; p < graph.nodeCount; p++) {
      const links = graph.targets.subarray(graph.offsets[p], graph.offsets[p + 1]);
      exact.addPage(p, links);
      capped.addPage(p, links);
      tight.addPage(p, links);
    }
    let total = 0;
    let lostDefault = 0;
    let lostTight = 0;
    for (let p = 0; p < 200; p++) {
      for (let q = p + 1; q < 200; q++) {
        const s = exact.similarity(p, q);
        total += s;
        lostDefault += s - capped.similarity(p, q);
        lostTight += s - tight.similarity(p, q);
        assert.ok(tight.similarity(p, q) <= s);
      }
    }
    assert.equal(lostDefault, 0);
    assert.ok(lostTight / total > 0.3, `a cap of 16 keeps about half of each list: lost ${lostTight / total}`);
  });
});
