/** The node's clocks and the shared wait of idle fetch slots (one timer, woken by time or by news). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock, SystemClock } from '../../../../src/core/clock.js';
import { Waker } from '../../../../src/node/stages/waker.js';

describe('ManualClock', () => {
  test('wakes sleepers in time order, each at its own time', async () => {
    const clock = new ManualClock(100);
    const woke: string[] = [];
    for (const [name, at] of [
      ['c', 300],
      ['a', 150],
      ['b', 200],
      ['past', 50],
    ] as const) {
      void clock.sleepUntil(at).then(() => woke.push(`${name}@${clock.nowMs()}`));
    }
    await new Promise((resolve) => setImmediate(resolve));
    await clock.advanceTo(250);
    assert.deepEqual(woke, ['past@100', 'a@150', 'b@200']);
    assert.equal(clock.nowMs(), 250);
    assert.equal(clock.nextTimerMs(), 300);
    assert.equal(clock.wallMs() - clock.nowMs(), Date.UTC(2024, 0, 1));
  });

  test('an abort ends a sleep at once and forgets its timer', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const slept = clock.sleepUntil(1000, controller.signal);
    assert.equal(clock.pending, 1);
    controller.abort();
    await slept;
    assert.equal(clock.pending, 0);
    assert.equal(clock.nowMs(), 0);
  });
});

describe('SystemClock', () => {
  test('resolves for a time already past, and at once when aborted', async () => {
    const clock = new SystemClock();
    await clock.sleepUntil(clock.nowMs() - 1);
    const controller = new AbortController();
    controller.abort();
    await clock.sleepUntil(clock.nowMs() + 3_600_000, controller.signal);
    assert.ok(clock.wallMs() > Date.UTC(2024, 0, 1));
  });
});

describe('Waker', () => {
  test('many waiters share one timer, set for the earliest deadline; it wakes one of them', async () => {
    const clock = new ManualClock();
    const waker = new Waker(clock);
    const woke: string[] = [];
    for (const at of [500, 300, 400]) void waker.wait(at).then(() => woke.push(`${at}@${clock.nowMs()}`));
    void waker.wait(Number.POSITIVE_INFINITY).then(() => woke.push(`never@${clock.nowMs()}`));
    assert.equal(clock.pending, 1, 'one timer: the first was cancelled when an earlier deadline came');
    assert.equal(clock.nextTimerMs(), 300);
    await clock.advanceTo(300);
    assert.deepEqual(woke, ['500@300'], 'the longest waiting wakes, and only it');
    assert.equal(waker.waiting, 3);
    assert.equal(clock.pending, 0, 'the timer is spent: the next slot that finds nothing arms it again');
    waker.notifyAll();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(woke, ['500@300', '300@300', '400@300', 'never@300']);
    assert.equal(waker.waiting, 0);
    waker.close();
  });

  test('notify wakes one waiter at a time, without any time passing; a notify with nobody waiting is not kept', async () => {
    const clock = new ManualClock();
    const waker = new Waker(clock);
    const woke: number[] = [];
    waker.notify();
    for (const i of [1, 2]) void waker.wait(Number.POSITIVE_INFINITY).then(() => woke.push(i));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(woke, []);
    waker.notify();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(woke, [1]);
    waker.notify();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(woke, [1, 2]);
    assert.equal(clock.nowMs(), 0);
  });
});
