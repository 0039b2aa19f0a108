import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ShoalError } from '../../../src/core/errors.js';
import { DiskSeenSet } from '../../../src/seen/disk-seen-set.js';
import { fingerprintWords, WORD_OFFSET } from '../../../src/seen/seen-set.js';
import { hash32 } from '../../../src/core/prng.js';
import { oracleAnswers } from '../../helpers/seen.js';
import { withDir as withScratchDir } from '../../helpers/scratch.js';

const MAX = (1n << 64n) - 1n;

const withDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => withScratchDir('shoal-seen-test-', fn);

/**
 * `n` fingerprints from `seed`: about `repeatShare` of them repeat an element of `pool` (earlier
 * batches) or an earlier element of this batch, the rest are fresh 64-bit values.
 */
function batchWithRepeats(n: number, seed: number, repeatShare: number, pool: BigUint64Array = new BigUint64Array(0)): BigUint64Array {
  const out = new BigUint64Array(n);
  const w = fingerprintWords(out);
  for (let i = 0; i < n; i++) {
    const isRepeat = pool.length + i > 0 && hash32(seed, i, 3) / 2 ** 32 < repeatShare;
    if (isRepeat) {
      const j = hash32(seed, i, 4) % (pool.length + i);
      out[i] = j < pool.length ? pool[j]! : out[j - pool.length]!;
    } else {
      w[2 * i + WORD_OFFSET.hi] = hash32(seed, i, 1);
      w[2 * i + WORD_OFFSET.lo] = hash32(seed, i, 2);
    }
  }
  return out;
}

function concat(a: BigUint64Array, b: BigUint64Array): BigUint64Array {
  const out = new BigUint64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

test('new, then seen; duplicates within a batch; 0 and 2^64 - 1; has', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir, cacheEntries: 64 });
    await s.start();
    assert.deepEqual([...(await s.addBatch([5n, 6n, 5n, 0n, MAX, 0n, 6n]))], [1, 1, 0, 1, 1, 0, 0]);
    assert.deepEqual([...(await s.addBatch([MAX, 7n, 7n, 5n]))], [0, 1, 0, 0]);
    assert.deepEqual([...(await s.addBatch([]))], []);
    assert.equal(s.size, 5);
    assert.equal(await s.has(7n), true);
    assert.equal(await s.has(8n), false);
    assert.deepEqual([...(await s.hasBatch([8n, 0n, 8n, MAX, 6n]))], [0, 1, 0, 1, 1]);
    await assert.rejects(s.addBatch([-1n]), RangeError);
    assert.equal(s.spec.id, 'disk');
    assert.equal(s.isDurable, true);
    await s.close();
  }));

test('200,000 random fingerprints with 50% repeats match a JS Set oracle (cache, buffer, merges and the sorted run)', () =>
  withDir(async (dir) => {
    // A small cache and a small buffer, so that answers come from all three places and the buffer is
    // merged into the run several times, some batches while a merge is under way.
    const s = new DiskSeenSet({ dir, cacheEntries: 1024, bufferEntries: 20_000 });
    await s.start();
    const oracle = new Set<string>();
    const first = batchWithRepeats(200_000, 42, 0.5);
    assert.deepEqual(await s.addBatch(first), oracleAnswers(oracle, first));
    assert.equal(s.size, oracle.size);
    await s.settled();

    // Then batches of 10,000 that repeat fingerprints of every earlier batch, issued without waiting.
    let pool = first;
    const batches: BigUint64Array[] = [];
    for (let b = 0; b < 12; b++) {
      const batch = batchWithRepeats(10_000, 100 + b, 0.5, pool);
      batches.push(batch);
      pool = concat(pool, batch);
    }
    const answers = await Promise.all(batches.map((batch) => s.addBatch(batch)));
    batches.forEach((batch, b) => assert.deepEqual(answers[b], oracleAnswers(oracle, batch), `batch ${b}`));
    assert.equal(s.size, oracle.size);

    const st = s.stats();
    assert.ok(st.cacheHits > 0 && st.bufferHits > 0 && st.runHits > 0 && st.merges >= 2, JSON.stringify(st));
    await s.settled();
    assert.equal(s.size, oracle.size);

    const probe = concat(pool.subarray(0, 5000), batchWithRepeats(5000, 999, 0));
    const present = await s.hasBatch(probe);
    probe.forEach((f, i) => assert.equal(present[i], oracle.has(f.toString(16)) ? 1 : 0));
    await s.close();
  }));

test('calls take effect in call order, whether or not earlier ones were awaited', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir, cacheEntries: 16 });
    await s.start();
    const order: string[] = [];
    const a = s.addBatch([1n, 2n]).then((r) => {
      order.push('a');
      return r;
    });
    const h = s.has(2n).then((r) => {
      order.push('h');
      return r;
    });
    const b = s.addBatch([2n, 3n]).then((r) => {
      order.push('b');
      return r;
    });
    assert.deepEqual([...(await a)], [1, 1]);
    assert.equal(await h, true);
    assert.deepEqual([...(await b)], [0, 1]);
    assert.deepEqual(order, ['a', 'h', 'b']);
    await s.close();
  }));

test('the caller may reuse its array as soon as addBatch returns', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir });
    await s.start();
    const buf = BigUint64Array.of(10n, 11n);
    const first = s.addBatch(buf);
    buf[0] = 12n;
    buf[1] = 13n;
    const second = s.addBatch(buf);
    assert.deepEqual([...(await first)], [1, 1]);
    assert.deepEqual([...(await second)], [1, 1]);
    assert.equal(await s.has(10n), true);
    await s.close();
  }));

test('reopened after close, it keeps every flushed fingerprint and its size (run and journal)', () =>
  withDir(async (dir) => {
    const path = join(dir, 'seen.v1');
    const batch = batchWithRepeats(30_000, 7, 0.2);
    const distinct = new Set(batch).size;
    const s = new DiskSeenSet({ dir: path, cacheEntries: 256, bufferEntries: 10_000 });
    await s.start();
    await s.addBatch(batch);
    await s.flush();
    await s.addBatch([MAX]);
    await s.close();

    const again = new DiskSeenSet({ dir: path, cacheEntries: 256, bufferEntries: 10_000 });
    await again.start();
    assert.equal(again.size, distinct + 1);
    assert.ok(again.stats().runSize > 0 && again.stats().buffered > 0, JSON.stringify(again.stats()));
    assert.equal(
      (await again.addBatch(batch)).reduce((x, y) => x + y, 0),
      0,
    );
    assert.equal(await again.has(MAX), true, 'close() flushes too');
    assert.equal(again.size, distinct + 1);
    await again.close();
  }));

test('after a crash (SIGKILL), every fingerprint flushed before it is still seen and nothing else appears', () =>
  withDir(async (dir) => {
    const moduleUrl = new URL('../../../src/seen/disk-seen-set.js', import.meta.url).href;
    const child = `
    const [moduleUrl, dir] = process.argv.slice(1);
    const { DiskSeenSet } = await import(moduleUrl);
    const s = new DiskSeenSet({ dir, bufferEntries: 3000 });
    await s.start();
    await s.addBatch(Array.from({ length: 5000 }, (_, i) => BigInt(i) * 7919n + 1n));
    await s.flush();
    await s.addBatch(Array.from({ length: 5000 }, (_, i) => BigInt(i) * 7919n + 2n));
    process.stdout.write('flushed\\n', () => process.kill(process.pid, 'SIGKILL'));
  `;
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, moduleUrl, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => proc.on('close', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL');
    assert.equal(out, 'flushed\n');

    const s = new DiskSeenSet({ dir });
    await s.start();
    const flushed = Array.from({ length: 5000 }, (_, i) => BigInt(i) * 7919n + 1n);
    assert.ok(
      (await s.hasBatch(flushed)).every((x) => x === 1),
      'every flushed fingerprint survives',
    );
    // The unflushed batch may or may not have survived; nothing outside the two batches may appear.
    assert.ok(s.size >= 5000 && s.size <= 10_000, `size ${s.size}`);
    const never = Array.from({ length: 5000 }, (_, i) => BigInt(i) * 7919n + 3n);
    assert.ok((await s.hasBatch(never)).every((x) => x === 0));
    await s.close();
  }));

test('close is idempotent; calls after close, or before start, reject with a clear error', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir });
    await assert.rejects(s.addBatch([1n]), /DiskSeenSet\.addBatch\(\): the seen set is not started; call and await start\(\) first/);
    await s.start();
    await s.start();
    const pending = s.addBatch([1n, 2n]);
    await Promise.all([s.close(), s.close()]);
    assert.deepEqual([...(await pending)], [1, 1], 'a call made before close() completes');
    await s.close();
    await assert.rejects(s.addBatch([1n]), /DiskSeenSet\.addBatch\(\): the seen set is closed; it cannot be used after close\(\)/);
    await assert.rejects(s.has(1n), /DiskSeenSet\.has\(\): the seen set is closed/);
    await assert.rejects(s.hasBatch([1n]), /closed/);
    await assert.rejects(s.flush(), /closed/);
    await assert.rejects(s.start(), /closed/);
  }));

test('a directory that cannot be opened is an IO error', () =>
  withDir(async (dir) => {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    const s = new DiskSeenSet({ dir: join(file, 'seen') });
    await assert.rejects(
      s.start(),
      (err: unknown) => err instanceof ShoalError && err.code === 'IO' && /DiskSeenSet in .*not-a-dir/.test(err.message),
    );
    await s.close();
  }));

test('a journal torn at every byte keeps exactly the blocks wholly before the cut', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir, bufferEntries: 1000 });
    await s.start();
    const merged = Array.from({ length: 1500 }, (_, i) => BigInt(i) * 31n + 5n);
    await s.addBatch(merged);
    await s.settled();
    await s.flush();
    // Three blocks in journal 2, one per flush: 2, 3 and 1 fingerprints.
    const blocks = [[10n ** 12n, 10n ** 12n + 1n], [2n ** 40n, 2n ** 40n + 3n, MAX - 1n], [2n ** 63n + 9n]];
    for (const block of blocks) {
      await s.addBatch(block);
      await s.flush();
    }
    await s.close();
    const journal = join(dir, 'journal-000002.log');
    const whole = await readFile(journal);
    const ends: number[] = [];
    for (const block of blocks) ends.push((ends.at(-1) ?? 0) + 8 + 8 * block.length);
    assert.equal(ends.at(-1), whole.length, 'the journal holds the three blocks and nothing else');
    for (let cut = 0; cut <= whole.length; cut++) {
      await writeFile(journal, whole.subarray(0, cut));
      const again = new DiskSeenSet({ dir, bufferEntries: 1000 });
      await again.start();
      assert.ok(
        (await again.hasBatch(merged)).every((x) => x === 1),
        `cut ${cut}: the merged run is intact`,
      );
      const kept = ends.filter((end) => end <= cut).length;
      for (const [i, block] of blocks.entries()) {
        const expected = i < kept ? 1 : 0;
        assert.deepEqual(
          [...(await again.hasBatch(block))],
          block.map(() => expected),
          `cut ${cut}: block ${i} ${i < kept ? 'kept' : 'gone'}`,
        );
      }
      assert.equal(await again.has(7n), false);
      await again.close();
      assert.equal((await readFile(journal)).length, kept === 0 ? 0 : ends[kept - 1], `cut ${cut}: cut back to the last whole block`);
    }
  }));

test('a crash during a merge (its .tmp files left behind) loses nothing', () =>
  withDir(async (dir) => {
    const s = new DiskSeenSet({ dir, bufferEntries: 1_000_000 });
    await s.start();
    const fps = Array.from({ length: 4000 }, (_, i) => BigInt(i) * 1_000_003n + 9n);
    await s.addBatch(fps);
    await s.close();
    await writeFile(join(dir, 'run-000002.fps.tmp'), Buffer.alloc(800));
    const again = new DiskSeenSet({ dir, bufferEntries: 1000 });
    await again.start();
    assert.equal(again.size, 4000);
    assert.ok((await again.hasBatch(fps)).every((x) => x === 1));
    assert.deepEqual([...(await again.addBatch([fps[0] as bigint, 1n]))], [0, 1], 'a merge starts after this batch');
    await again.settled();
    assert.equal(again.stats().runSize, 4001);
    await again.close();
    const third = new DiskSeenSet({ dir });
    await third.start();
    assert.equal(third.size, 4001);
    assert.ok((await third.hasBatch(fps)).every((x) => x === 1));
    await third.close();
  }));
