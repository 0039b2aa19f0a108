/**
 * The byte keys of the frontier store (src/frontier-store/frontier-keys.ts): LMDB sorts keys as
 * bytes, so byte order must be the frontier's order — higher priority first, then add order — and
 * one host's keys must form one contiguous range.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeUrlKey, hostEnd, hostIndexKey, hostOfIndexKey, hostOfUrlKey, hostStart, keyAfter, rankOf, rankOfUrlKey, urlKey,
} from '../../../src/frontier-store/frontier-keys.js';
import { Rng } from '../../../src/web/prng.js';

/** The frontier's order on (priority, seq): true when a leaves before b. */
const before = (a: readonly [number, number], b: readonly [number, number]): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] < b[1]);

describe('frontier keys', () => {
  test('rank byte order is the frontier order: priority descending, then seq ascending', () => {
    const priorities = [-Infinity, -1e308, -3.5, -1, -Number.MIN_VALUE, 0, Number.MIN_VALUE, 1e-9, 0.5, 1, 2, 1e12, 1e308]
      .filter(Number.isFinite);
    const seqs = [0, 1, 2, 255, 256, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    const pairs = priorities.flatMap((p) => seqs.map((s) => [p, s] as const));
    for (const a of pairs) {
      for (const b of pairs) {
        const cmp = Buffer.compare(rankOf(a[0], a[1]), rankOf(b[0], b[1]));
        if (before(a, b)) assert.ok(cmp < 0, `${a} should sort before ${b}`);
        else if (before(b, a)) assert.ok(cmp > 0, `${b} should sort before ${a}`);
        else assert.equal(cmp, 0);
      }
    }
  });

  test('random priorities and seqs: sorting keys as bytes sorts them the frontier way', () => {
    const rng = new Rng(7, 1, 1);
    const pairs = Array.from({ length: 2000 }, () => [(rng.next() - 0.5) * 10 ** rng.range(-5, 5), rng.int(2 ** 50)] as const);
    const byBytes = [...pairs].sort((a, b) => Buffer.compare(urlKey('h.test', a[0], a[1]), urlKey('h.test', b[0], b[1])));
    const byRule = [...pairs].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    assert.deepEqual(byBytes, byRule);
  });

  test('-0 and +0 are one priority, as in the memory frontier', () => {
    assert.deepEqual(rankOf(-0, 5), rankOf(0, 5));
    assert.equal(Object.is(decodeUrlKey(urlKey('h.test', -0, 5)).priority, 0), true);
  });

  test('a URL key decodes to its host, priority and seq', () => {
    for (const [host, priority, seq] of [['a.test', 3.25, 17], ['b.test:8080', -7, 2 ** 45 + 3], ['xn--bcher-kva.test', 0, 0]] as const) {
      const key = urlKey(host, priority, seq);
      assert.deepEqual(decodeUrlKey(key), { host, priority, seq });
      assert.equal(hostOfUrlKey(key), host);
      assert.deepEqual(rankOfUrlKey(key), rankOf(priority, seq));
    }
  });

  test("a host's keys lie in [hostStart, hostEnd), even when another host's name extends it", () => {
    const inside = [urlKey('a.test', 1e300, 0), urlKey('a.test', -1e300, Number.MAX_SAFE_INTEGER)];
    const outside = [urlKey('a.tes', 0, 1), urlKey('a.test2', 1e300, 0), urlKey('a.test.', 0, 0), urlKey('a.tesu', 0, 0)];
    for (const key of inside) assert.ok(Buffer.compare(hostStart('a.test'), key) <= 0 && Buffer.compare(key, hostEnd('a.test')) < 0);
    for (const key of outside) assert.ok(Buffer.compare(key, hostStart('a.test')) < 0 || Buffer.compare(key, hostEnd('a.test')) >= 0, hostOfUrlKey(key));
  });

  test('keyAfter is above the key and below every larger key', () => {
    const a = urlKey('a.test', 1, 1);
    const b = urlKey('a.test', 1, 2);
    assert.ok(Buffer.compare(a, keyAfter(a)) < 0);
    assert.ok(Buffer.compare(keyAfter(a), b) < 0);
  });

  test('host index keys rank hosts by their best URL, then by name', () => {
    const keys = [hostIndexKey(rankOf(1, 9), 'z.test'), hostIndexKey(rankOf(2, 50), 'y.test'), hostIndexKey(rankOf(1, 3), 'x.test')];
    keys.sort(Buffer.compare);
    assert.deepEqual(keys.map(hostOfIndexKey), ['y.test', 'x.test', 'z.test']);
  });

  test('bad input throws RangeError', () => {
    assert.throws(() => urlKey('', 0, 0), RangeError);
    assert.throws(() => urlKey('a\u0000b', 0, 0), RangeError);
    assert.throws(() => rankOf(Number.NaN, 0), RangeError);
    assert.throws(() => rankOf(Infinity, 0), RangeError);
    assert.throws(() => rankOf(0, -1), RangeError);
    assert.throws(() => rankOf(0, 1.5), RangeError);
    assert.throws(() => rankOf(0, 2 ** 53), RangeError);
  });
});
