/** The reusable batch of priority changes (src/order/change-buffer.ts): one entry per id, the last value. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeBuffer } from '../../../src/order/change-buffer.js';

describe('ChangeBuffer', () => {
  test('keeps one entry per id, the last value, and skips what cannot be applied', () => {
    const c = new ChangeBuffer();
    c.set(5, 1);
    c.set(2, 3);
    c.set(5, 4);
    c.set(-1, 1);
    c.set(7, Number.POSITIVE_INFINITY);
    assert.equal(c.length, 2);
    assert.deepEqual(
      [[...c.ids.subarray(0, 2)], [...c.priorities.subarray(0, 2)]],
      [
        [5, 2],
        [4, 3],
      ],
    );
    c.reset();
    assert.equal(c.length, 0);
    c.set(2, 9);
    assert.deepEqual([c.length, c.ids[0], c.priorities[0]], [1, 2, 9]);
  });

  test('after a reset, an id of the earlier batch is a new entry again', () => {
    const c = new ChangeBuffer();
    for (let id = 0; id < 100; id++) c.set(id, id);
    c.reset();
    c.set(99, 1);
    c.set(50, 2);
    c.set(99, 3);
    assert.deepEqual([c.length, [...c.ids.subarray(0, 2)], [...c.priorities.subarray(0, 2)]], [2, [99, 50], [3, 2]]);
  });
});
