/**
 * FingerprintMap (src/core/fingerprint-map.ts) against a Map oracle, through several doublings,
 * with keys that differ in one word only (the case slotHash mixes for) and the key (0, 0), which
 * is held apart from the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FingerprintMap, NOT_FOUND } from '../../../src/core/fingerprint-map.js';
import { slotHash } from '../../../src/core/hash.js';
import { hash32 } from '../../../src/core/prng.js';

test('set and get agree with a Map through several doublings; (0, 0) and words past 2^31 included', () => {
  const map = new FingerprintMap(1);
  const oracle = new Map<string, number>();
  const keys: [number, number][] = [
    [0, 0],
    [0, 1],
    [1, 0],
    [0xffffffff, 0xffffffff],
    [0x80000000, 7],
  ];
  for (let i = 0; i < 3000; i++) keys.push(i % 3 === 0 ? [5, i] : i % 3 === 1 ? [i, 5] : [hash32(1, i, 1), hash32(1, i, 2)]);
  keys.forEach(([hi, lo], i) => {
    assert.equal(map.get(hi, lo), NOT_FOUND, `(${hi}, ${lo}) before it is set`);
    map.set(hi, lo, i);
    oracle.set(`${hi}:${lo}`, i);
  });
  assert.equal(map.size, oracle.size);
  for (const [hi, lo] of keys) assert.equal(map.get(hi, lo), oracle.get(`${hi}:${lo}`), `(${hi}, ${lo})`);
  // Signed inputs name the same key as their unsigned words.
  assert.equal(map.get(-1, -1), oracle.get(`${0xffffffff}:${0xffffffff}`));
  map.set(0, 0, -7);
  map.set(5, 9, 42);
  assert.deepEqual([map.get(0, 0), map.get(5, 9), map.size], [-7, 42, oracle.size], 'setting again replaces the value');
  assert.equal(map.get(6, 9), NOT_FOUND);
});

test('slotHash spreads keys that differ in their low word only', () => {
  const buckets = new Set<number>();
  for (let lo = 0; lo < 1024; lo++) buckets.add(slotHash(0, lo) & 1023);
  assert.ok(buckets.size > 600, `${buckets.size} of 1024 buckets used`);
  assert.notEqual(slotHash(1, 0), slotHash(0, 1));
});

test('a bad initial capacity throws', () => {
  assert.throws(() => new FingerprintMap(0), RangeError);
  assert.throws(() => new FingerprintMap(1.5), RangeError);
});
