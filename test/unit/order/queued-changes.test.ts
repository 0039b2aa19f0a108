/**
 * The changes buffer that knows which URLs are queued (src/order/queued-changes.ts): a change is
 * kept only for a URL prioritized and not observed since.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { QueuedChanges } from '../../../src/order/queued-changes.js';
import { changesOf } from '../../helpers/order.js';

describe('QueuedChanges', () => {
  test('keeps changes for queued URLs only; observing a page ends its queued state', () => {
    const c = new QueuedChanges();
    c.queue(3);
    c.queue(4);
    c.queue(-1);
    const batch = c.begin(4);
    assert.equal(batch, c);
    assert.deepEqual([c.isQueued(3), c.isQueued(4), c.isQueued(5), c.isQueued(-1)], [true, false, false, false]);
    c.setIfQueued(3, 2);
    c.setIfQueued(4, 7);
    c.setIfQueued(5, 1);
    assert.deepEqual(changesOf(c), { 3: 2 });
    c.begin(9);
    assert.deepEqual(changesOf(c), {}, 'begin empties the batch');
    c.setIfQueued(3, 5);
    assert.deepEqual(changesOf(c), { 3: 5 }, 'observing another page leaves 3 queued');
  });
});
