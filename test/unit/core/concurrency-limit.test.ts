import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConcurrencyLimit } from '../../../src/core/concurrency-limit.js';

/** A task that runs until `release` is called, recording when it started. */
function held(started: number[], id: number): { task: () => Promise<number>; release: () => void } {
  let release = (): void => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      started.push(id);
      await done;
      return id;
    },
    release: () => release(),
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimit', () => {
  test('runs at most max tasks at once, the others in the order they came', async () => {
    const limit = new ConcurrencyLimit(3);
    const started: number[] = [];
    const tasks = Array.from({ length: 10 }, (_, i) => held(started, i));
    const results = tasks.map((t) => limit.run(t.task));
    await turn();
    assert.deepEqual(started, [0, 1, 2]);
    assert.equal(limit.active, 3);
    assert.equal(limit.queued, 7);
    (tasks[1] as (typeof tasks)[number]).release();
    await turn();
    assert.deepEqual(started, [0, 1, 2, 3], 'one ended, one started');
    for (const t of tasks) t.release();
    assert.deepEqual(await Promise.all(results), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(limit.active, 0);
    assert.equal(limit.queued, 0);
  });

  test('a task that throws or rejects settles its caller and frees its turn', async () => {
    const limit = new ConcurrencyLimit(1);
    const thrown = limit.run(() => {
      throw new Error('at once');
    });
    const rejected = limit.run(() => Promise.reject(new Error('later')));
    const after = limit.run(async () => 'ran');
    await assert.rejects(thrown, /at once/);
    await assert.rejects(rejected, /later/);
    assert.equal(await after, 'ran');
    assert.equal(limit.active, 0);
  });

  test('cancelWaiting rejects the tasks waiting, never starts them, and lets the running ones finish', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: number[] = [];
    const tasks = Array.from({ length: 5 }, (_, i) => held(started, i));
    const results = tasks.map((t) => limit.run(t.task).then(String, (e: Error) => e.message));
    await turn();
    limit.cancelWaiting(new Error('closed'));
    assert.equal(limit.queued, 0);
    for (const t of tasks) t.release();
    assert.deepEqual(await Promise.all(results), ['0', '1', 'closed', 'closed', 'closed']);
    assert.deepEqual(started, [0, 1]);
    assert.equal(await limit.run(async () => 'still usable'), 'still usable');
  });

  test('many more tasks than the limit all run, a few at a time', async () => {
    const limit = new ConcurrencyLimit(4);
    let running = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 5_000 }, (_, i) =>
        limit.run(async () => {
          most = Math.max(most, ++running);
          await turn();
          running--;
          return i;
        }),
      ),
    );
    assert.equal(most, 4);
    assert.equal(results.length, 5_000);
    assert.equal(results[4_999], 4_999);
  });

  test('refuses a limit that is not a whole number of at least 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => new ConcurrencyLimit(bad), RangeError);
  });
});
