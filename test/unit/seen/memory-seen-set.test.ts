import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemorySeenSet } from '../../../src/seen/memory-seen-set.js';
import { fingerprintWords, joinFingerprint, WORD_OFFSET } from '../../../src/seen/seen-set.js';
import { hash32 } from '../../../src/core/prng.js';
import { oracleAnswers } from '../../helpers/seen.js';

const MAX = (1n << 64n) - 1n;

/**
 * `n` fingerprints from `seed`: about `repeatShare` of them repeat an earlier element of the same
 * array, the rest are fresh 64-bit values.
 */
function batchWithRepeats(n: number, seed: number, repeatShare: number): BigUint64Array {
  const out = new BigUint64Array(n);
  const w = fingerprintWords(out);
  for (let i = 0; i < n; i++) {
    const from = i > 0 && hash32(seed, i, 3) / 2 ** 32 < repeatShare ? hash32(seed, i, 4) % i : -1;
    w[2 * i + WORD_OFFSET.hi] = from < 0 ? hash32(seed, i, 1) : w[2 * from + WORD_OFFSET.hi]!;
    w[2 * i + WORD_OFFSET.lo] = from < 0 ? hash32(seed, i, 2) : w[2 * from + WORD_OFFSET.lo]!;
  }
  return out;
}

test('new, then seen; duplicates within a batch: only the first occurrence is new', async () => {
  const s = new MemorySeenSet();
  assert.deepEqual([...(await s.addBatch([5n, 6n, 5n, 7n, 6n]))], [1, 1, 0, 1, 0]);
  assert.deepEqual([...(await s.addBatch([7n, 8n, 8n, 5n]))], [0, 1, 0, 0]);
  assert.equal(s.size, 4);
  assert.equal(await s.has(8n), true);
  assert.equal(await s.has(9n), false);
  assert.deepEqual([...(await s.addBatch([]))], []);
});

test('0 and 2^64 - 1 are ordinary fingerprints (0 is not taken for an empty slot)', async () => {
  const s = new MemorySeenSet();
  assert.equal(await s.has(0n), false);
  assert.deepEqual([...(await s.addBatch([0n, MAX, 0n, 1n << 32n, 1n]))], [1, 1, 0, 1, 1]);
  assert.equal(await s.has(0n), true);
  assert.equal(await s.has(MAX), true);
  assert.equal(s.size, 4);
});

test('BigUint64Array and bigint[] give the same answers; out-of-range bigints are refused', async () => {
  const batch = batchWithRepeats(1000, 3, 0.3);
  const a = new MemorySeenSet();
  const b = new MemorySeenSet();
  assert.deepEqual(await a.addBatch(batch), await b.addBatch([...batch]));
  await assert.rejects(a.addBatch([1n, -1n]), RangeError);
  await assert.rejects(a.addBatch([1n << 64n]), RangeError);
  await assert.rejects(a.has(-5n), RangeError);
});

test('grows past its initial capacity and keeps every fingerprint', async () => {
  const s = new MemorySeenSet({ initialCapacity: 4 });
  const before = s.byteLength;
  const batch = batchWithRepeats(50_000, 11, 0);
  const answers = s.addBatchSync(batch);
  assert.equal(
    answers.reduce((x, y) => x + y, 0),
    new Set(batch).size,
  );
  assert.equal(s.size, new Set(batch).size);
  assert.ok(s.byteLength > before);
  for (const f of batch) assert.equal(s.hasSync(f), true);
  assert.equal(
    s.addBatchSync(batch).reduce((x, y) => x + y, 0),
    0,
  );
});

test('200,000 random fingerprints with 50% repeats match a JS Set oracle, across batches', async () => {
  const s = new MemorySeenSet({ initialCapacity: 16 });
  const oracle = new Set<string>();
  const batch = batchWithRepeats(200_000, 42, 0.5);
  assert.deepEqual(await s.addBatch(batch), oracleAnswers(oracle, batch));
  // A second batch repeats half of the first and brings new ones.
  const next = batchWithRepeats(100_000, 43, 0);
  next.set(batch.subarray(0, 50_000), 50_000);
  assert.deepEqual(await s.addBatch(next), oracleAnswers(oracle, next));
  assert.equal(s.size, oracle.size);
});

test('word-level forms agree with the bigint forms', () => {
  const s = new MemorySeenSet();
  assert.equal(s.addWords(0xffffffff, 1), true);
  assert.equal(s.addWords(0xffffffff, 1), false);
  assert.equal(s.hasSync(joinFingerprint(0xffffffff, 1)), true);
  assert.equal(s.hasWords(1, 0xffffffff), false);
});

test('clear empties the set and shrinks it back', () => {
  const s = new MemorySeenSet({ initialCapacity: 8 });
  const small = s.byteLength;
  s.addBatchSync(batchWithRepeats(1000, 5, 0));
  s.addWords(0, 0);
  s.clear();
  assert.equal(s.size, 0);
  assert.equal(s.byteLength, small);
  assert.equal(s.hasWords(0, 0), false);
  assert.equal(s.addWords(0, 0), true);
});

test('close is idempotent; every call after it rejects with a clear error', async () => {
  const s = new MemorySeenSet();
  await s.addBatch([1n]);
  await Promise.all([s.close(), s.close()]);
  await s.close();
  await assert.rejects(s.addBatch([1n]), /MemorySeenSet\.addBatch\(\): the seen set is closed/);
  await assert.rejects(s.has(1n), /MemorySeenSet\.has\(\): the seen set is closed/);
  await assert.rejects(s.flush(), /closed/);
  await assert.rejects(s.start(), /closed/);
  assert.throws(() => s.addBatchSync([1n]), /closed/);
});

test('volatile: isDurable is false and flush resolves', async () => {
  const s = new MemorySeenSet();
  assert.equal(s.isDurable, false);
  assert.equal(s.spec.id, 'memory');
  await s.start();
  await s.flush();
});
