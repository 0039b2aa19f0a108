/** The reusable batch of priority changes (src/order/change-buffer.ts): one entry per id, the last value. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeBuffer, KEEP_ENTRIES } from '../../../src/order/change-buffer.js';

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

  test('a closing run updates the entries set before it and appends the rest, then refuses set until reset', () => {
    const c = new ChangeBuffer();
    c.set(4, 1);
    c.set(8, 2);
    c.reserve(3);
    c.setClosing(3, 10);
    c.setClosing(8, 20);
    c.setClosing(-2, 5);
    c.setClosing(9, Number.NaN);
    c.setClosing(6, 30);
    assert.deepEqual(
      [c.length, [...c.ids.subarray(0, c.length)], [...c.priorities.subarray(0, c.length)]],
      [4, [4, 8, 3, 6], [1, 20, 10, 30]],
    );
    assert.throws(() => c.set(5, 1), /closing run/);
    c.reset();
    c.set(3, 7);
    c.set(4, 8);
    c.set(3, 9);
    assert.deepEqual([c.length, [...c.ids.subarray(0, 2)], [...c.priorities.subarray(0, 2)]], [2, [3, 4], [9, 8]]);
  });

  test('a closing run on an empty batch, and reserve sizes the arrays exactly', () => {
    const c = new ChangeBuffer();
    c.reserve(100);
    assert.equal(c.ids.length, 100);
    for (let id = 0; id < 100; id++) c.setClosing(id, id + 0.5);
    assert.equal(c.ids.length, 100);
    assert.deepEqual([c.length, c.ids[99], c.priorities[0]], [100, 99, 0.5]);
  });

  test('arrays grown past KEEP_ENTRIES are given back at reset; smaller ones are kept', () => {
    const c = new ChangeBuffer();
    for (let id = 0; id < 1000; id++) c.set(id, 1);
    const kept = c.ids;
    c.reset();
    assert.equal(c.ids, kept);
    c.reserve(KEEP_ENTRIES + 1);
    for (let id = 0; id <= KEEP_ENTRIES; id++) c.setClosing(id, 1);
    c.reset();
    assert.ok(c.ids.length < KEEP_ENTRIES && c.priorities.length < KEEP_ENTRIES);
    c.set(KEEP_ENTRIES, 2);
    assert.deepEqual([c.length, c.ids[0], c.priorities[0]], [1, KEEP_ENTRIES, 2]);
  });
});
