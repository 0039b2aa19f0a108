/**
 * Cohesion, precision, recall (src/eval/community-metrics.ts) counted by hand, and the ring graph.
 *
 *     communities: 0 = {0, 1}, 1 = {2, 3}      edges: 0 → 1, 1 → 0, 1 → 2, 2 → 3, 3 → 0
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { communityScores, meanCommunityScores, ringCommunityGraph, setOverlap } from '../../../src/eval/community-metrics.js';
import { csrFromEdges } from '../../../src/eval/csr.js';

const graph = csrFromEdges(4, Uint32Array.from([0, 1, 1, 2, 3]), Uint32Array.from([1, 0, 2, 3, 0]));
const community = Int32Array.from([0, 0, 1, 1]);

describe('communityScores', () => {
  it('S = {0, 1}: 2 inside of 4 touching edges, all of community 0', () => {
    assert.deepEqual(communityScores(graph, community, [0, 1, 1]), { size: 2, cohesion: 0.5, majority: 0, precision: 1, recall: 1 });
  });

  it('S = {1, 2, 3}: 2 inside of 5, majority 1', () => {
    assert.deepEqual(communityScores(graph, community, [1, 2, 3]), { size: 3, cohesion: 0.4, majority: 1, precision: 2 / 3, recall: 1 });
  });

  it('a tie goes to the smaller community id', () => {
    assert.deepEqual(communityScores(graph, community, [2, 1]), { size: 2, cohesion: 0.25, majority: 0, precision: 0.5, recall: 0.5 });
  });

  it('an empty set scores 0, an unknown page throws', () => {
    assert.deepEqual(communityScores(graph, community, []), { size: 0, cohesion: 0, majority: -1, precision: 0, recall: 0 });
    assert.throws(() => communityScores(graph, community, [4]), RangeError);
  });

  it('means and overlap', () => {
    const a = communityScores(graph, community, [0, 1]);
    const b = communityScores(graph, community, [1, 2, 3]);
    const mean = meanCommunityScores([a, b]);
    assert.equal(mean.cohesion, 0.45);
    assert.equal(mean.recall, 1);
    assert.equal(mean.distinctMajorities, 2);
    // N = 5, I = 4 → 1/5
    assert.equal(
      setOverlap([
        [0, 1],
        [1, 2, 3],
      ]),
      0.2,
    );
  });
});

describe('ringCommunityGraph', () => {
  it('links each page to k ring neighbours and o pages of other communities', () => {
    const { graph: g, community: c } = ringCommunityGraph({ communities: 3, size: 10, k: 4, o: 1, seed: 5 });
    assert.equal(g.nodeCount, 30);
    // page 10 (community 1, i = 0): 18, 19, 11, 12, then one page outside 10..19
    const links = [...g.targets.subarray(g.offsets[10], g.offsets[11])];
    assert.deepEqual(links.slice(0, 4), [18, 19, 11, 12]);
    assert.notEqual(c[links[4] as number], 1);
    for (let p = 0; p < 30; p++) assert.equal(g.offsets[p + 1]! - g.offsets[p]!, 5);
    const again = ringCommunityGraph({ communities: 3, size: 10, k: 4, o: 1, seed: 5 });
    assert.deepEqual(again.graph.targets, g.targets);
  });
});
