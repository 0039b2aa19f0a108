/** Positions of a batch's ids (src/order/batch-index.ts): found after growth, emptied in reverse, given back after a large batch. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchIndex } from '../../../src/order/batch-index.js';

/** Adds `ids` (distinct) as a batch; returns the batch array. */
function fill(index: BatchIndex, ids: readonly number[]): Uint32Array {
  const keys = new Uint32Array(ids.length);
  ids.forEach((id, i) => {
    keys[i] = id;
    index.add(i, keys);
  });
  return keys;
}

describe('BatchIndex', () => {
  test('finds every id of a batch at its position, through growth, and nothing else', () => {
    const index = new BatchIndex();
    // Ids sharing low bits and a run of neighbours: long probe paths.
    const ids = [...Array.from({ length: 300 }, (_, i) => i * 1024), ...Array.from({ length: 300 }, (_, i) => 5_000_000 + i)];
    const keys = fill(index, ids);
    ids.forEach((id, i) => assert.equal(index.find(id, keys), i));
    assert.equal(index.find(7, keys), -1);
    assert.equal(index.find(2 ** 31 - 2, keys), -1);
  });

  test('a cleared batch leaves nothing behind, whether emptied key by key, wholesale, or given back', () => {
    const index = new BatchIndex();
    for (const size of [3, 40, 5, 100_000, 2, 30]) {
      const ids = Array.from({ length: size }, (_, i) => (i * 2654435761) % 1_000_003);
      const unique = [...new Set(ids)];
      const keys = fill(index, unique);
      unique.forEach((id, i) => assert.equal(index.find(id, keys), i, `batch of ${size}`));
      index.clear(keys, unique.length);
      for (const id of unique.slice(0, 50)) assert.equal(index.find(id, keys), -1, `cleared after a batch of ${size}`);
    }
  });

  test('a small batch after a large one still finds its ids where the large one had others', () => {
    const index = new BatchIndex();
    const big = fill(
      index,
      Array.from({ length: 50 }, (_, i) => i),
    );
    index.clear(big, 50);
    const small = fill(index, [49, 3]);
    assert.deepEqual([index.find(49, small), index.find(3, small), index.find(0, small)], [0, 1, -1]);
  });
});
