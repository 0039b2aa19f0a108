/**
 * Link locality p_l (SPEC §5, seed 000 §3) with both owner models, on graphs drawn by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { linkLocality, linkLocalityOfAssignment, linkPairsOfCsr } from '../../../src/eval/link-locality.js';

function pairs(edges: readonly (readonly [number, number])[]) {
  return { from: Uint32Array.from(edges, (e) => e[0]), to: Uint32Array.from(edges, (e) => e[1]) };
}

describe('linkLocalityOfAssignment', () => {
  // page:       0  1  2  3   4  5
  // partition:  0  0  1  1  −1  0
  const partition = Int32Array.from([0, 0, 1, 1, -1, 0]);
  //  0→1 local   0→2 remote   2→3 local   3→0 remote   1→4 unassigned (skipped)
  //  5→5 self-link (skipped)  5→1 local   0→1 again
  const links = pairs([
    [0, 1],
    [0, 2],
    [2, 3],
    [3, 0],
    [1, 4],
    [5, 5],
    [5, 1],
    [0, 1],
  ]);

  it('counts every pair as given by default', () => {
    // 8 links − 1 self − 1 unowned = 6 pairs; local: 0→1, 2→3, 5→1, 0→1 = 4 → p_l = 4/6.
    assert.deepEqual(linkLocalityOfAssignment(links, partition), {
      links: 8,
      selfLinks: 1,
      unowned: 1,
      duplicates: 0,
      pairs: 6,
      localPairs: 4,
      pl: 2 / 3,
    });
  });

  it('counts each distinct pair once with distinctPairs', () => {
    // The second 0→1 is a duplicate: 5 pairs, 3 local → 3/5.
    assert.deepEqual(linkLocalityOfAssignment(links, partition, { distinctPairs: true }), {
      links: 8,
      selfLinks: 1,
      unowned: 1,
      duplicates: 1,
      pairs: 5,
      localPairs: 3,
      pl: 0.6,
    });
  });

  it('gives exactly (k − 1)/(N − 1) on a complete graph split into equal parts', () => {
    // 12 pages, every ordered pair u ≠ v linked (132 pairs), partition p mod 3 (4 pages each).
    // Local pairs: 3 parts × 4 × 3 = 36 → p_l = 36/132 = 3/11, i.e. (4 − 1)/(12 − 1): the 1/n of a
    // uniform hash, less the self-link that would otherwise count (12 self-links given, all skipped).
    const edges: [number, number][] = [];
    for (let u = 0; u < 12; u++) for (let v = 0; v < 12; v++) edges.push([u, v]);
    const mod3 = Int32Array.from({ length: 12 }, (_, p) => p % 3);
    assert.deepEqual(linkLocalityOfAssignment(pairs(edges), mod3), {
      links: 144,
      selfLinks: 12,
      unowned: 0,
      duplicates: 0,
      pairs: 132,
      localPairs: 36,
      pl: 3 / 11,
    });
  });

  it('takes plain number arrays', () => {
    // 0→1 (both partition 2) local, 1→2 (2 vs 5) remote → 1/2.
    const got = linkLocalityOfAssignment({ from: [0, 1], to: [1, 2] }, [2, 2, 5]);
    assert.equal(got.pl, 0.5);
    assert.equal(got.pairs, 2);
  });

  it('is null when no pair counts', () => {
    // Only a self-link and a link to an unassigned page.
    assert.deepEqual(
      linkLocalityOfAssignment(
        pairs([
          [0, 0],
          [0, 1],
        ]),
        Int32Array.from([0, -1]),
      ),
      {
        links: 2,
        selfLinks: 1,
        unowned: 1,
        duplicates: 0,
        pairs: 0,
        localPairs: 0,
        pl: null,
      },
    );
    assert.deepEqual(linkLocalityOfAssignment(pairs([]), Int32Array.from([0]), { distinctPairs: true }), {
      links: 0,
      selfLinks: 0,
      unowned: 0,
      duplicates: 0,
      pairs: 0,
      localPairs: 0,
      pl: null,
    });
  });

  it('rejects mismatched arrays, ids without an entry and ids that are not integers', () => {
    assert.throws(() => linkLocalityOfAssignment({ from: [0, 1], to: [1] }, [0, 0]), RangeError);
    assert.throws(() => linkLocalityOfAssignment(pairs([[0, 2]]), Int32Array.from([0, 0])), RangeError);
    assert.throws(() => linkLocalityOfAssignment({ from: [0.5], to: [1] }, [0, 0]), RangeError);
    assert.throws(() => linkLocalityOfAssignment({ from: [-1], to: [1] }, [0, 0]), RangeError);
  });
});

describe('linkLocality (owner sets of a crawl)', () => {
  // page:    0     1        2     3    4
  // owners:  {0}   {0, 1}   {1}   {}   {2, 0}
  const owners: number[][] = [[0], [0, 1], [1], [], [2, 0]];
  const ownersOf = (p: number): readonly number[] => owners[p] ?? [];

  it('is local when the owner sets intersect, skipped when an end has no owner', () => {
    //  0→1 {0}∩{0,1} local   1→2 {0,1}∩{1} local   0→2 {0}∩{1} remote
    //  2→3 unowned           4→0 {2,0}∩{0} local   2→4 {1}∩{2,0} remote
    // 5 pairs, 3 local → 0.6.
    const links = pairs([
      [0, 1],
      [1, 2],
      [0, 2],
      [2, 3],
      [4, 0],
      [2, 4],
    ]);
    assert.deepEqual(linkLocality(links, ownersOf), {
      links: 6,
      selfLinks: 0,
      unowned: 1,
      duplicates: 0,
      pairs: 5,
      localPairs: 3,
      pl: 0.6,
    });
  });

  it('skips self-links before asking for owners, and duplicates with distinctPairs', () => {
    // 3→3 is a self-link even though 3 has no owner; 1→2 twice and 2→1 once:
    // distinct pairs 1→2 (local) and 2→1 (local), one duplicate → 2/2 = 1.
    const links = pairs([
      [3, 3],
      [1, 2],
      [2, 1],
      [1, 2],
    ]);
    assert.deepEqual(linkLocality(links, ownersOf, { distinctPairs: true }), {
      links: 4,
      selfLinks: 1,
      unowned: 0,
      duplicates: 1,
      pairs: 2,
      localPairs: 2,
      pl: 1,
    });
  });
});

describe('linkPairsOfCsr', () => {
  it('lists the edges of a CSR grouped by source', () => {
    // Edges 2→1, 0→1, 0→2: the CSR groups them by source, 0→1, 0→2, 2→1.
    const csr = csrFromEdges(3, Uint32Array.from([2, 0, 0]), Uint32Array.from([1, 1, 2]));
    const got = linkPairsOfCsr(csr);
    assert.deepEqual([...got.from], [0, 0, 2]);
    assert.deepEqual([...got.to], [1, 2, 1]);
  });
});
