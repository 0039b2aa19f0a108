/** MessageBatch (src/node/analysis/message-batch.ts): items of one turn go in one post; a long turn posts early; clear drops. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageBatch } from '../../../../src/node/analysis/message-batch.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('the items of one turn go in one post, with the buffers they move', async () => {
  const posts: [number[], number][] = [];
  const batch = new MessageBatch<number>((items, moved) => posts.push([items, moved.length]));
  batch.push(1, new ArrayBuffer(4));
  batch.push(2);
  batch.push(3, new ArrayBuffer(8));
  assert.deepEqual(posts, [], 'nothing goes before the turn ends');
  await nextTurn();
  assert.deepEqual(posts, [[[1, 2, 3], 2]]);
  batch.push(4);
  await nextTurn();
  assert.deepEqual(posts, [
    [[1, 2, 3], 2],
    [[4], 0],
  ]);
});

test('with maxWaitMs, a batch goes as soon as its oldest item is that old; clear drops what waits', async () => {
  const posts: number[][] = [];
  const batch = new MessageBatch<number>((items) => posts.push(items), 5);
  batch.push(1);
  const t0 = performance.now();
  while (performance.now() - t0 < 6); // a long turn
  batch.push(2);
  assert.deepEqual(posts, [[1, 2]], 'posted within the turn');
  batch.push(3);
  batch.clear();
  await nextTurn();
  assert.deepEqual(posts, [[1, 2]], 'the cleared item never goes');
});
