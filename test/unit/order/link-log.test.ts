/** The out-link log of fetched pages (src/order/link-log.ts): a CSR in fetch order, found by key. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkLog } from '../../../src/order/link-log.js';

describe('LinkLog', () => {
  test('keeps pages in order and finds them by key', () => {
    const log = new LinkLog();
    log.append(7, [1, 2, 3], 2);
    log.append(2, [], 0);
    log.append(9, [4], 1);
    assert.equal(log.pageCount, 3);
    assert.equal(log.linkCount, 3);
    assert.deepEqual([log.pageOf(7), log.pageOf(2), log.pageOf(9), log.pageOf(3), log.pageOf(-1), log.pageOf(1e6)], [0, 1, 2, -1, -1, -1]);
    assert.deepEqual([...log.targets.subarray(log.start(0), log.end(0))], [1, 2]);
    assert.equal(log.end(1) - log.start(1), 0);
    assert.equal(log.keyOf(2), 9);
  });

  test('grows past its first buffers, earlier pages unchanged', () => {
    const log = new LinkLog();
    for (let key = 0; key < 300; key++)
      log.append(
        key,
        Array.from({ length: 10 }, (_, i) => key * 10 + i),
        10,
      );
    assert.equal(log.linkCount, 3000);
    for (const key of [0, 63, 64, 299]) {
      const k = log.pageOf(key);
      assert.deepEqual(
        [...log.targets.subarray(log.start(k), log.end(k))],
        Array.from({ length: 10 }, (_, i) => key * 10 + i),
        `page ${key}`,
      );
    }
  });
});
