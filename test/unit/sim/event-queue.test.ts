import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventQueue, SimEventKind } from '../../../src/sim/event-queue.js';

describe('EventQueue', () => {
  it('serves events by time, and in scheduling order at equal times', () => {
    const q = new EventQueue();
    const pushed: [number, number][] = [];
    // 600 events at 7 distinct times, scheduled in a scrambled order: grows past the initial capacity.
    for (let i = 0; i < 600; i++) {
      const t = ((i * 37) % 7) * 10;
      pushed.push([t, i]);
      q.push(t, SimEventKind.fetchDone, i % 3, i);
    }
    const expected = [...pushed].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const got: [number, number][] = [];
    while (q.pop()) got.push([q.popped.timeMs, q.popped.ref]);
    assert.deepEqual(got, expected);
    assert.equal(q.size, 0);
    assert.equal(q.firstTime, Number.POSITIVE_INFINITY);
  });

  it('keeps the fields of each event', () => {
    const q = new EventQueue();
    q.push(5, SimEventKind.urls, 2, 41);
    q.push(1, SimEventKind.wake, 7, 0);
    assert.equal(q.firstTime, 1);
    assert.ok(q.pop());
    assert.deepEqual({ ...q.popped }, { timeMs: 1, kind: SimEventKind.wake, node: 7, ref: 0 });
    assert.ok(q.pop());
    assert.deepEqual({ ...q.popped }, { timeMs: 5, kind: SimEventKind.urls, node: 2, ref: 41 });
    assert.equal(q.pop(), false);
  });
});
