/**
 * The live community scores (src/eval/live-community-scores.ts) against the batch scores of
 * community-metrics.ts: after every page added, on ring graphs and on a small graph with self-links,
 * repeated edges and pages of no community.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Rng } from '../../../src/core/prng.js';
import { communityScores, meanCommunityScores, ringCommunityGraph } from '../../../src/eval/community-metrics.js';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { LiveCommunityScores } from '../../../src/eval/live-community-scores.js';

function close(a: number, b: number, what: string): void {
  assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);
}

describe('LiveCommunityScores', () => {
  test('agrees with communityScores after every page, for three sets growing at random on a ring graph', () => {
    const { graph, community } = ringCommunityGraph({ communities: 5, size: 40, k: 8, o: 2, seed: 3 });
    const live = new LiveCommunityScores(graph, community, 3);
    const sets: number[][] = [[], [], []];
    const rng = new Rng(1, 2, 3);
    for (let step = 0; step < 300; step++) {
      const set = rng.int(3);
      const page = rng.int(graph.nodeCount);
      live.add(set, page);
      (sets[set] as number[]).push(page);
      if (step % 7 !== 0) continue;
      for (let i = 0; i < 3; i++) {
        const want = communityScores(graph, community, sets[i] as number[]);
        const got = live.scoresOf(i);
        assert.equal(got.size, want.size);
        assert.equal(got.majority, want.majority);
        close(got.cohesion, want.cohesion, 'cohesion');
        close(got.precision, want.precision, 'precision');
        close(got.recall, want.recall, 'recall');
      }
    }
    const mean = live.mean();
    const want = meanCommunityScores(sets.map((s) => communityScores(graph, community, s)).filter((s) => s.size > 0));
    close(mean.cohesion, want.cohesion, 'mean cohesion');
    close(mean.precision, want.precision, 'mean precision');
    assert.equal(mean.distinctMajorities, want.distinctMajorities);
  });

  test('self-links, repeated edges and pages of no community count as in the batch scores', () => {
    // 0 → 0, 0 → 1 twice, 1 → 2, 2 → 0, 3 → 1; page 3 has no community.
    const graph = csrFromEdges(4, Uint32Array.from([0, 0, 0, 1, 2, 3]), Uint32Array.from([0, 1, 1, 2, 0, 1]));
    const community = Int32Array.from([0, 0, 1, -1]);
    const live = new LiveCommunityScores(graph, community, 1);
    const order = [3, 0, 0, 1, 2];
    for (let i = 0; i < order.length; i++) {
      live.add(0, order[i] as number);
      const want = communityScores(graph, community, order.slice(0, i + 1));
      const got = live.scoresOf(0);
      assert.deepEqual({ ...got, cohesion: 0 }, { ...want, cohesion: 0 });
      close(got.cohesion, want.cohesion, `cohesion after ${order.slice(0, i + 1).join(',')}`);
    }
  });

  test('an empty set scores 0; pages outside the graph and sets out of range are ignored', () => {
    const { graph, community } = ringCommunityGraph({ communities: 2, size: 10, k: 4, o: 1, seed: 1 });
    const live = new LiveCommunityScores(graph, community, 2);
    live.add(0, -1);
    live.add(0, 999);
    live.add(5, 1);
    assert.deepEqual(live.scoresOf(0), { size: 0, cohesion: 0, majority: -1, precision: 0, recall: 0 });
    assert.deepEqual(live.mean(), { cohesion: 0, precision: 0, recall: 0, distinctMajorities: 0 });
    assert.throws(() => new LiveCommunityScores(graph, community.subarray(0, 5), 1), RangeError);
  });
});
