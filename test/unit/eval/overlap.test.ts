/**
 * Overlap (N − I)/N and the overlap histogram (SPEC §5) on small crawls counted by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { overlap, overlapHistogram } from '../../../src/eval/overlap.js';

/** A node that downloaded these URLs (host and size do not matter to overlap). */
function node(...urls: string[]) {
  return { downloads: urls.map((url) => ({ url, host: 'h', bytes: 1 })) };
}

describe('overlap', () => {
  it('counts repeats across and within nodes', () => {
    // A: a b c   B: c d   C: c c e
    // N = 3 + 2 + 3 = 8, I = |{a, b, c, d, e}| = 5, overlap = (8 − 5)/8 = 3/8.
    const nodes = [node('a', 'b', 'c'), node('c', 'd'), node('c', 'c', 'e')];
    assert.deepEqual(overlap(nodes), { downloads: 8, uniquePages: 5, overlap: 3 / 8 });
  });

  it('is 0 for a partition without repeats (what a hash partition gives)', () => {
    // A: a b   B: c   C: d e f → N = I = 6.
    assert.deepEqual(overlap([node('a', 'b'), node('c'), node('d', 'e', 'f')]), { downloads: 6, uniquePages: 6, overlap: 0 });
  });

  it('counts a URL downloaded twice by one node twice', () => {
    // One node: x x y → N = 3, I = 2, overlap = 1/3.
    assert.deepEqual(overlap([node('x', 'x', 'y')]), { downloads: 3, uniquePages: 2, overlap: 1 / 3 });
  });

  it('is 0 when nothing was downloaded, and with no nodes at all', () => {
    assert.deepEqual(overlap([node(), node()]), { downloads: 0, uniquePages: 0, overlap: 0 });
    assert.deepEqual(overlap([]), { downloads: 0, uniquePages: 0, overlap: 0 });
  });
});

describe('overlapHistogram', () => {
  it('counts URLs by how many distinct nodes fetched them', () => {
    // A: a b c   B: c d   C: c c e
    // c by A, B, C (3 nodes; C's second fetch counts once); a, b, d, e by one node each.
    // h = [_, 4, 0, 1], entries summing to I = 5.
    const h = overlapHistogram([node('a', 'b', 'c'), node('c', 'd'), node('c', 'c', 'e')]);
    assert.deepEqual(h, [0, 4, 0, 1]);
  });

  it('puts a URL fetched twice by one node at i = 1', () => {
    // One node: x x y → both distinct URLs by exactly one node: h = [_, 2].
    assert.deepEqual(overlapHistogram([node('x', 'x', 'y')]), [0, 2]);
  });

  it('separates two and three nodes', () => {
    // A: a b   B: b a c   C: c a
    // a by A, B, C (3); b by A, B (2); c by B, C (2) → h = [_, 0, 2, 1].
    assert.deepEqual(overlapHistogram([node('a', 'b'), node('b', 'a', 'c'), node('c', 'a')]), [0, 0, 2, 1]);
  });

  it('has n + 1 zero entries when nothing was downloaded', () => {
    assert.deepEqual(overlapHistogram([node(), node(), node()]), [0, 0, 0, 0]);
    assert.deepEqual(overlapHistogram([]), [0]);
  });
});
