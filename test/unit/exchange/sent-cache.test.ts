/**
 * The cache of URLs sent lately (src/exchange/sent-cache.ts): a URL sent once is not sent again
 * while remembered; popular URLs outlive one-off ones in their set; size 0 remembers nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SentCache } from '../../../src/exchange/sent-cache.js';

describe('SentCache', () => {
  test('a fingerprint is a miss the first time, a hit after', () => {
    const c = new SentCache(1024);
    assert.equal(c.testAndAdd(1, 2), false);
    assert.equal(c.testAndAdd(1, 2), true);
    assert.equal(c.testAndAdd(1, 3), false);
    assert.equal(c.testAndAdd(2, 2), false);
    assert.deepEqual([c.hits, c.misses], [1, 3]);
  });

  test('signed words (32-bit arithmetic results) are the same fingerprints as their unsigned forms', () => {
    const c = new SentCache(1024);
    assert.equal(c.testAndAdd(-5, -7), false);
    assert.equal(c.testAndAdd(-5, -7), true);
    assert.equal(c.testAndAdd(-5 >>> 0, -7 >>> 0), true);
  });

  test('size 0 remembers nothing', () => {
    const c = new SentCache(0);
    assert.equal(c.testAndAdd(1, 2), false);
    assert.equal(c.testAndAdd(1, 2), false);
    assert.deepEqual([c.hits, c.misses], [0, 2]);
  });

  test('in a set of two slots, a popular URL survives one-off URLs that a plain LRU would let evict it', () => {
    const c = new SentCache(2); // one set: every fingerprint competes for the same two slots
    for (let i = 0; i < 8; i++) c.testAndAdd(7, 7); // popular: count 8
    c.testAndAdd(100, 1); // one-offs take the other slot, and age the popular one (8 -> 4 -> 2 -> 1)
    c.testAndAdd(100, 2);
    c.testAndAdd(100, 3);
    assert.equal(c.testAndAdd(7, 7), true, 'still remembered after three one-offs');
    assert.equal(c.testAndAdd(100, 3), true, 'the latest one-off holds the other slot');
    assert.equal(c.testAndAdd(100, 1), false, 'earlier one-offs replaced each other');
  });

  test('a URL nobody links any more ages out', () => {
    const c = new SentCache(2);
    c.testAndAdd(7, 7);
    c.testAndAdd(7, 7);
    for (let i = 0; i < 6; i++) c.testAndAdd(200, i);
    assert.equal(c.testAndAdd(7, 7), false);
  });

  test('the all-zero fingerprint is never remembered', () => {
    const c = new SentCache(16);
    assert.equal(c.testAndAdd(0, 0), false);
    assert.equal(c.testAndAdd(0, 0), false);
  });
});
