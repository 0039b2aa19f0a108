/** The Float64Array of a recurring hot loop whose memory is given back at once (src/core/releasable-array.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReleasableArray } from '../../../src/core/releasable-array.js';

describe('ReleasableArray', () => {
  test('acquire gives a zeroed array of the length asked, release gives its bytes back', () => {
    const a = new ReleasableArray(Float64Array);
    const first = a.acquire(1000);
    assert.equal(first.length, 1000);
    first.fill(7);
    assert.equal(a.bytes, 8000);
    a.release();
    assert.equal(a.bytes, 0);
    assert.equal(first.length, 0);
    const second = a.acquire(500);
    assert.deepEqual([second.length, second[0], second[499]], [500, 0, 0]);
  });

  test('a second acquire without a release starts zeroed too, and a length past the reservation is served', () => {
    const a = new ReleasableArray(Float64Array);
    a.acquire(10).fill(3);
    const again = a.acquire(10);
    assert.equal(again[9], 0);
    const big = a.acquire(3 * 2 ** 20);
    big[big.length - 1] = 1;
    assert.deepEqual([big.length, big[0], a.bytes], [3 * 2 ** 20, 0, 3 * 2 ** 23]);
    a.release();
    assert.equal(a.bytes, 0);
  });
});
