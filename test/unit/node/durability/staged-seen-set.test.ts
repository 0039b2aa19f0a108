/**
 * The staged URL-seen test: new fingerprints answer "seen" at once, but reach the durable set only
 * when a checkpoint promotes them, after the frontier has made their URLs durable. What is staged
 * when the process ends is not on disk (the frontier may not hold those URLs either).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { StagedSeenSet } from '../../../../src/node/durability/staged-seen-set.js';
import { DiskSeenSet } from '../../../../src/seen/disk-seen-set.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-staged-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('StagedSeenSet', () => {
  test('stages, seals, promotes: only promoted fingerprints survive a reopen', async () => {
    const dir = join(root, 'a');
    const durable = new DiskSeenSet({ dir, cacheEntries: 1024 });
    const seen = new StagedSeenSet(durable);
    await seen.start();
    assert.deepEqual([...(await seen.addBatch([1n, 2n, 2n]))], [1, 1, 0]);
    seen.seal();
    assert.deepEqual([...(await seen.addBatch([2n, 3n]))], [0, 1], 'sealed fingerprints still answer seen');
    assert.equal(seen.stagedCount, 3);
    assert.equal(await durable.has(1n), false, 'nothing on disk before the promotion');
    await seen.promote();
    assert.equal(seen.stagedCount, 1);
    assert.deepEqual([await durable.has(1n), await durable.has(2n), await durable.has(3n)], [true, true, false]);
    assert.equal(await seen.has(3n), true);
    await seen.close();

    const again = new StagedSeenSet(new DiskSeenSet({ dir, cacheEntries: 1024 }));
    await again.start();
    assert.deepEqual([...(await again.addBatch([1n, 2n, 3n]))], [0, 0, 1], '3 was staged only, so it is new again');
    await again.close();
  });

  test('a checkpoint that failed before promoting hands its fingerprints to the next one', async () => {
    const durable = new DiskSeenSet({ dir: join(root, 'b'), cacheEntries: 1024 });
    const seen = new StagedSeenSet(durable);
    await seen.start();
    await seen.addBatch([10n]);
    seen.seal();
    await seen.addBatch([11n]);
    seen.seal();
    await seen.promote();
    assert.deepEqual([await durable.has(10n), await durable.has(11n)], [true, true]);
    await seen.close();
  });
});
