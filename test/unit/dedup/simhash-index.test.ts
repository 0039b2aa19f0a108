/**
 * The SimHash index: every fingerprint within k bits is found (the pigeonhole guarantee of the
 * permuted tables), checked against a brute-force scan over random fingerprints and near copies of
 * them, for the band scheme (m = k + 1) and for more blocks; the FIFO bound (the oldest forgotten,
 * and never found again even when its slot is reused); exact membership (`holds`); and the table counts the memory figures
 * rest on. Cases come from a seeded PRNG, so they are the same on every run.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SIMHASH_TABLES, SimHashIndex, simhashTableCount } from '../../../src/dedup/simhash-index.js';
import { hammingDistanceWords } from '../../../src/dedup/simhash.js';
import { Rng } from '../../../src/core/prng.js';

const rng = new Rng(23, 4, 1);
const word = (): number => (rng.int(0x10000) * 0x10000 + rng.int(0x10000)) >>> 0;

/** (hi, lo) with `flips` distinct bits of (hi, lo) flipped. */
function flipped(hi: number, lo: number, flips: number): [number, number] {
  const bits = new Set<number>();
  while (bits.size < flips) bits.add(rng.int(64));
  for (const b of bits) {
    if (b < 32) lo ^= 1 << b;
    else hi ^= 1 << (b - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

/** The brute-force answer: nearest within k, oldest first among ties, of the live entries. */
function bruteNearest(
  live: readonly [number, number, number][],
  hi: number,
  lo: number,
  k: number,
): { value: number; distance: number } | null {
  const q = new Uint32Array([hi, lo]);
  let best: { value: number; distance: number } | null = null;
  for (const [h, l, value] of live) {
    const d = hammingDistanceWords(q, 0, new Uint32Array([h, l]), 0);
    if (d <= k && (best === null || d < best.distance)) best = { value, distance: d };
  }
  return best;
}

describe('SimHashIndex', () => {
  for (const { k, blocks } of [
    { k: 0, blocks: undefined },
    { k: 3, blocks: undefined },
    { k: 6, blocks: undefined },
    { k: 6, blocks: 8 },
    { k: 10, blocks: undefined },
    { k: 3, blocks: 6 },
  ]) {
    test(`finds what a brute-force scan finds (k = ${k}, ${blocks ?? k + 1} blocks)`, () => {
      const capacity = 700;
      const index = new SimHashIndex<number>({ maxDistance: k, capacity, ...(blocks === undefined ? {} : { blocks }) });
      const all: [number, number, number][] = [];
      let found = 0;
      for (let i = 0; i < 1500; i++) {
        // Half the queries are near copies of a stored fingerprint, at distances around k.
        let hi = word();
        let lo = word();
        if (all.length > 0 && rng.chance(0.5)) {
          const [h, l] = all[all.length - 1 - rng.int(Math.min(all.length, capacity + 100))] as [number, number, number];
          [hi, lo] = flipped(h, l, rng.int(k + 3));
        }
        const live = all.slice(-capacity);
        const expected = bruteNearest(live, hi, lo, k);
        const got = index.nearest(hi, lo);
        assert.equal(got?.distance ?? null, expected?.distance ?? null, `query ${i}`);
        if (got !== null) {
          // The value returned is one of the live entries at that distance.
          const entry = live.find(([, , v]) => v === got.value);
          assert.ok(entry !== undefined, `query ${i} returned a forgotten value`);
          assert.equal(hammingDistanceWords(new Uint32Array([hi, lo]), 0, new Uint32Array([entry[0], entry[1]]), 0), got.distance);
          found++;
        }
        index.add(hi, lo, i);
        all.push([hi, lo, i]);
      }
      assert.equal(index.size, capacity);
      // The set-up exercises the match path, not only misses.
      assert.ok(found > 200, `only ${found} matches`);
    });
  }

  test('ties go to the oldest, and accept() filters values', () => {
    const index = new SimHashIndex<string>({ maxDistance: 3, capacity: 10 });
    index.add(1, 0, 'first');
    index.add(1, 0, 'second');
    index.add(1, 3, 'far');
    assert.deepEqual(index.nearest(1, 0), { value: 'first', distance: 0 });
    assert.deepEqual(
      index.nearest(1, 0, (v) => v !== 'first'),
      { value: 'second', distance: 0 },
    );
    assert.deepEqual(
      index.nearest(1, 1, (v) => v === 'far'),
      { value: 'far', distance: 1 },
    );
    assert.equal(
      index.nearest(1, 0, () => false),
      null,
    );
  });

  test('forgets the oldest past its capacity, and a reused slot does not bring it back', () => {
    const index = new SimHashIndex<number>({ maxDistance: 2, capacity: 3 });
    index.add(0, 0, 0);
    index.add(0xffffffff, 0, 1);
    index.add(0, 0xffffffff, 2);
    assert.equal(index.nearest(0, 1)?.value, 0);
    // Slot 0 is reused by a fingerprint far from 0: the query near 0 finds nothing.
    index.add(0xffffffff, 0xffffffff, 3);
    assert.equal(index.size, 3);
    assert.equal(index.nearest(0, 1), null);
    assert.equal(index.nearest(0xffffffff, 0xfffffffe)?.value, 3);
    assert.equal(index.nearest(0xffffffff, 1)?.value, 1);
  });

  test('holds() finds exactly a stored (fingerprint, value) pair, in the tables and in the tail', () => {
    const index = new SimHashIndex<number>({ maxDistance: 3, capacity: 300 });
    const stored: [number, number][] = [];
    for (let i = 0; i < 400; i++) {
      const fp: [number, number] = [word(), word()];
      stored.push(fp);
      index.add(fp[0], fp[1], i);
    }
    // The oldest 100 were forgotten; the rest are found whether the tables or the tail hold them.
    stored.forEach(([hi, lo], i) => assert.equal(index.holds(hi, lo, i), i >= 100, `fingerprint ${i}`));
    const [hi, lo] = stored[250] as [number, number];
    assert.equal(index.holds(hi, lo, 251), false, 'another value');
    assert.equal(index.holds(hi, (lo ^ 1) >>> 0, 250), false, 'a fingerprint one bit away');
  });

  test('has C(m, k) tables and refuses impossible shapes', () => {
    assert.equal(simhashTableCount(3), 4);
    assert.equal(simhashTableCount(6, 8), 28);
    assert.equal(simhashTableCount(0, 1), 1);
    assert.equal(new SimHashIndex({ maxDistance: 6, blocks: 8, capacity: 1 }).tables, 28);
    assert.throws(() => new SimHashIndex({ maxDistance: 4, blocks: 4, capacity: 1 }), RangeError);
    assert.throws(() => new SimHashIndex({ maxDistance: 33, capacity: 1 }), RangeError);
    assert.throws(() => new SimHashIndex({ maxDistance: 3, capacity: 0 }), RangeError);
    assert.ok(simhashTableCount(8, 16) > MAX_SIMHASH_TABLES);
    assert.throws(() => new SimHashIndex({ maxDistance: 8, blocks: 16, capacity: 1 }), /tables/);
  });

  test('its arrays grow with what it holds, up to the capacity', () => {
    const index = new SimHashIndex<number>({ maxDistance: 3, capacity: 100_000 });
    const small = index.arrayBytes;
    for (let i = 0; i < 5000; i++) index.add(word(), word(), i);
    assert.ok(index.arrayBytes > small);
    // Per fingerprint: 8 bytes in the ring (which grows by doubling) and a reference, 12 bytes per table
    // with a quarter of slack, and bucket offsets (at most 2 per fingerprint and table) and scratch.
    assert.ok(index.arrayBytes <= 5000 * (2 * 16 + 4 * (15 + 8) + 5), `${index.arrayBytes} bytes`);
  });
});
