/** A page's distinct out-links (src/order/distinct-links.ts): first occurrences, valid ids, no self-link. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DistinctLinks } from '../../../src/order/distinct-links.js';

describe('DistinctLinks', () => {
  test('keeps first occurrences of valid ids other than the page itself, call after call', () => {
    const d = new DistinctLinks();
    assert.equal(d.of([3, 1, 3, -1, 2.5, 1, 0, Number.NaN, 7], 7), 3);
    assert.deepEqual([...d.targets.subarray(0, d.count)], [3, 1, 0]);
    assert.equal(d.of([3, 3], 9), 1);
    assert.deepEqual([...d.targets.subarray(0, d.count)], [3]);
    assert.equal(d.of([], 0), 0);
    assert.equal(d.of([4, 4], 4), 0, 'a self-link is no link');
  });

  test('many distinct targets and large ids', () => {
    const d = new DistinctLinks();
    const ids = Array.from({ length: 500 }, (_, i) => (i * 7919) % 100_003);
    assert.equal(d.of([...ids, ...ids], -1), 500);
    assert.deepEqual([...d.targets.subarray(0, d.count)], ids);
  });
});
