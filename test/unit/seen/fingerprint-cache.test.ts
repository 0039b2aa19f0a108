import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FingerprintCache } from '../../../src/seen/fingerprint-cache.js';
import { hash32 } from '../../../src/core/prng.js';

/** Fingerprint number `i` of stream `seed`, as words. */
function fp(seed: number, i: number): [number, number] {
  return [hash32(seed, i, 1), hash32(seed, i, 2)];
}

test('holds what was added; a miss for anything else', () => {
  const c = new FingerprintCache({ maxEntries: 1024 });
  c.add(1, 2);
  c.add(0, 0);
  assert.equal(c.has(1, 2), true);
  assert.equal(c.has(0, 0), true);
  assert.equal(c.has(2, 1), false);
  assert.equal(c.has(0, 1), false, 'an empty slot (zero words) is not the fingerprint 0:1');
  assert.equal(c.size, 2);
  c.add(1, 2);
  assert.equal(c.size, 2, 'adding again does not take another entry');
});

test('capacity is a power of two no larger than maxEntries; bad sizes are refused', () => {
  assert.equal(new FingerprintCache({ maxEntries: 1000 }).capacity, 512);
  assert.equal(new FingerprintCache({ maxEntries: 1024 }).capacity, 1024);
  assert.equal(new FingerprintCache({ maxEntries: 4 }).capacity, 4);
  assert.equal(new FingerprintCache().capacity, 1 << 20);
  assert.throws(() => new FingerprintCache({ maxEntries: 3 }), RangeError);
  assert.throws(() => new FingerprintCache({ maxEntries: 1.5 }), RangeError);
});

test('never exceeds its bound, and never answers for a fingerprint it was not given', () => {
  const c = new FingerprintCache({ maxEntries: 4096 });
  const bytes = c.byteLength;
  const added = new Set<string>();
  for (let i = 0; i < 100_000; i++) {
    const [hi, lo] = fp(1, i);
    c.add(hi, lo);
    added.add(`${hi}:${lo}`);
    assert.ok(c.size <= c.capacity);
  }
  assert.equal(c.size, c.capacity, 'a cache fed far more than it holds ends full');
  assert.equal(c.byteLength, bytes, 'memory is fixed at construction');
  let hits = 0;
  for (let i = 0; i < 100_000; i++) {
    const [hi, lo] = fp(1, i);
    if (c.has(hi, lo)) hits++;
    const [xh, xl] = fp(2, i);
    assert.equal(c.has(xh, xl) && !added.has(`${xh}:${xl}`), false);
  }
  assert.ok(hits > 0 && hits <= c.capacity);
});

test('CLOCK within a set: a referenced entry survives the next eviction, a peeked one does not', () => {
  // Four entries = one set of four ways, so the order of eviction is fully determined.
  const c = new FingerprintCache({ maxEntries: 4 });
  for (const x of [1, 2, 3, 4]) c.add(x, x);
  assert.equal(c.has(1, 1), true);
  c.add(5, 5);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((x) => c.peek(x, x)),
    [true, false, true, true, true],
  );

  const d = new FingerprintCache({ maxEntries: 4 });
  for (const x of [1, 2, 3, 4]) d.add(x, x);
  assert.equal(d.peek(1, 1), true);
  d.add(5, 5);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((x) => d.peek(x, x)),
    [false, true, true, true, true],
  );
});

test('popular fingerprints stay cached through a long stream of one-time ones', () => {
  const c = new FingerprintCache({ maxEntries: 4096 });
  const popular = Array.from({ length: 400 }, (_, i) => fp(7, i));
  for (const [hi, lo] of popular) c.add(hi, lo);
  let oneTime = 0;
  let popularHits = 0;
  for (let round = 0; round < 50; round++) {
    // As the seen set uses it: a miss goes to disk, and what the disk had is cached again.
    for (const [hi, lo] of popular) {
      if (c.has(hi, lo)) popularHits++;
      else c.add(hi, lo);
    }
    for (let k = 0; k < 1000; k++) {
      const [hi, lo] = fp(8, oneTime++);
      c.add(hi, lo);
    }
  }
  const popularKept = popular.filter(([hi, lo]) => c.peek(hi, lo)).length;
  let recentKept = 0;
  for (let i = oneTime - 1000; i < oneTime; i++) if (c.peek(...fp(8, i))) recentKept++;
  let oldKept = 0;
  for (let i = 0; i < 10_000; i++) if (c.peek(...fp(8, i))) oldKept++;
  assert.ok(popularHits >= 0.95 * 50 * popular.length, `${popularHits} hits in ${50 * popular.length} popular lookups`);
  assert.ok(popularKept >= 0.9 * popular.length, `${popularKept} of ${popular.length} popular kept`);
  assert.ok(recentKept > 0.5 * 1000, `${recentKept} of the last 1000 one-time fingerprints kept`);
  assert.ok(oldKept < 0.05 * 10_000, `${oldKept} of the first 10,000 one-time fingerprints still kept`);
});

test('clear forgets everything and keeps the memory', () => {
  const c = new FingerprintCache({ maxEntries: 64 });
  for (let i = 0; i < 100; i++) c.add(...fp(3, i));
  const bytes = c.byteLength;
  c.clear();
  assert.equal(c.size, 0);
  assert.equal(c.byteLength, bytes);
  for (let i = 0; i < 100; i++) assert.equal(c.peek(...fp(3, i)), false);
});
