/**
 * Membership m_k and spreading (src/order/community/membership.ts), by hand on a tiny graph and
 * against the view's own s(p, q) on the paper's graph.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CommunityMembership } from '../../../../src/order/community/membership.js';
import { ringCommunityGraph } from '../../../../src/eval/community-metrics.js';
import { Rng } from '../../../../src/core/prng.js';

// R = {0, 1, 4}: 0 → 1, 2, 3   1 → 0, 2, 3   4 → 2, 3
// s(0, 1) = 1 + 2 + 0 = 3   s(0, 4) = 0 + 2 + 0 = 2   s(1, 4) = 0 + 2 + 0 = 2
// page 2 (not fetched): s(2, 0) = 1/2 + 0 + |{0,1,4} ∩ {1}| = 1.5, s(2, 1) = 1.5, s(2, 4) = 0.5
function tiny(options = {}): CommunityMembership {
  const m = new CommunityMembership({ k: 2, ...options });
  m.add(0, [1, 2, 3]);
  m.add(1, [0, 2, 3]);
  m.add(4, [2, 3]);
  return m;
}

describe('CommunityMembership', () => {
  it('keeps the similarities to members by hand', () => {
    const m = tiny();
    assert.deepEqual([...m.similarities(0)].sort(), [
      [1, 3],
      [4, 2],
    ]);
    assert.deepEqual([...m.similarities(2)].sort(), [
      [0, 1.5],
      [1, 1.5],
      [4, 0.5],
    ]);
    assert.deepEqual(m.members(), [0, 1, 4]);
  });

  it('m_k is the sum of the k largest similarities over k', () => {
    const m = tiny();
    assert.equal(m.membership(0), (3 + 2) / 2);
    assert.equal(m.membership(4), (2 + 2) / 2);
    assert.equal(m.membership(2), (1.5 + 1.5) / 2);
    assert.equal(m.membership(99), 0);
    assert.equal(tiny({ k: 1 }).membership(2), 1.5);
    // k larger than the row: the missing ones count 0
    assert.equal(tiny({ k: 4 }).membership(0), (3 + 2) / 4);
  });

  it('spreads from representatives, discounted by distance, times the own membership', () => {
    // one representative: 0 (m = 2.5, ties with 1, joined first). Distance 1 (either direction):
    // 1, 2, 3 receive 2.5 · 1/2; distance 2: 4 receives 2.5 · 1/4; 0 receives nothing.
    const m = tiny({ spreading: { representatives: 1, refreshEvery: 1 } });
    assert.deepEqual(m.representatives(), [0]);
    assert.equal(m.score(1), 2.5 * 1.25);
    assert.equal(m.score(2), 1.5 * 1.25);
    assert.equal(m.score(4), 2 * 0.625);
    assert.equal(m.score(0), 0);
    const off = tiny();
    assert.equal(off.score(1), off.membership(1));
    assert.deepEqual(off.representatives(), []);
  });

  it('maxDistance 1 stops the spread after one link', () => {
    const m = tiny({ spreading: { representatives: 1, maxDistance: 1, refreshEvery: 1 } });
    assert.equal(m.score(4), 0);
    assert.equal(m.score(1), 2.5 * 1.25);
  });

  it('rows stay equal to s(p, q) of the view as pages arrive in any order', () => {
    const { graph } = ringCommunityGraph({ communities: 5, size: 40, k: 8, o: 2, seed: 3 });
    const m = new CommunityMembership({ k: 4, weights: { alpha: 1, beta: 2, gamma: 3 } });
    const rng = new Rng(7, 1, 0);
    const order = Array.from({ length: graph.nodeCount }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const p of order.slice(0, 120)) m.add(p, graph.targets.subarray(graph.offsets[p], graph.offsets[p + 1]));
    let compared = 0;
    for (let u = 0; u < graph.nodeCount; u++) {
      const row = m.similarities(u);
      for (const q of m.members()) {
        if (q === u) continue;
        const exact = m.view.similarity(u, q, m.weights);
        assert.equal(row.get(q) ?? 0, exact, `s(${u}, ${q})`);
        if (exact > 0) compared++;
      }
    }
    assert.ok(compared > 1000, `compared ${compared} non-zero pairs`);
  });

  it('rejects bad parameters', () => {
    assert.throws(() => new CommunityMembership({ k: 0 }), RangeError);
    assert.throws(() => new CommunityMembership({ spreading: { discount: 0 } }), RangeError);
  });
});
