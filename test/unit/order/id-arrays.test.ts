/** Per-URL typed arrays of the policies (src/order/id-arrays.ts): valid ids, growth, reads that never grow. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withRoomFor } from '../../../src/core/typed-arrays.js';
import { IdFlags, IdNumbers, isUrlId } from '../../../src/order/id-arrays.js';

describe('id arrays', () => {
  test('valid ids, growth with fill, flags and numbers that never throw', () => {
    assert.deepEqual([0, 5, -1, 1.5, Number.NaN, 2 ** 31].map(isUrlId), [true, true, false, false, false, false]);
    assert.deepEqual([2 ** 31 - 2, 2 ** 31 - 1].map(isUrlId), [true, false], 'ids stay Int32-safe');
    const a = withRoomFor(new Int32Array([1, 2]), 100, -1);
    assert.ok(a.length >= 100);
    assert.deepEqual([a[0], a[1], a[2], a[99]], [1, 2, -1, -1]);
    const flags = new IdFlags();
    flags.set(3, true);
    flags.set(-1, true);
    flags.set(1e6, false);
    assert.deepEqual([flags.has(3), flags.has(2), flags.has(-1), flags.has(1e6)], [true, false, false, false]);
    flags.set(3, false);
    assert.equal(flags.has(3), false);
    const numbers = new IdNumbers(7);
    numbers.set(2, 1.5);
    numbers.set(-4, 9);
    assert.deepEqual([numbers.get(2), numbers.get(1), numbers.get(50), numbers.get(-3), numbers.get(-4)], [1.5, 7, 7, 7, 7]);
  });
});
