/**
 * The contract suite of the SeenSet extension point (src/seen/seen-set.ts), run by every set from
 * its own test file:
 *
 * ```ts
 * seenSetContract('memory', { make: async () => new MemorySeenSet() });
 * ```
 *
 * `make` gives a new, unstarted set with storage of its own. A durable set (`isDurable`) also gives
 * `reopen`: a new set on the same storage, as the next process would open it; the old one is left as
 * it was (a crashed process closes nothing). Every set is checked against a plain JavaScript `Set`
 * (test/helpers/seen.ts) over batches drawn from a seeded generator, so that small tables grow,
 * disk buffers fill and merge, and caches evict while the answers must stay exact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Rng } from '../../src/core/prng.js';
import type { SeenSet } from '../../src/seen/seen-set.js';
import { oracleAnswers } from '../helpers/seen.js';

/** How the suite builds the sets of one implementation. */
export interface SeenSetFactory {
  /** A new, unstarted set with storage of its own. */
  make(): Promise<SeenSet>;
  /** For a durable set: a new, unstarted set on the storage of `old`, which is abandoned as is. */
  reopen?(old: SeenSet): Promise<SeenSet>;
  /**
   * Waits until work the set does in the background is done (a merge), so the last test can close
   * cleanly; the contract itself never needs it.
   */
  settle?(set: SeenSet): Promise<void>;
}

const U64_MAX = (1n << 64n) - 1n;

/** `n` fingerprints: random ones, near-duplicates of the low words, and the edges 0 and 2^64 − 1. */
function batch(rng: Rng, n: number, pool: bigint[]): BigUint64Array {
  const out = new BigUint64Array(n);
  for (let i = 0; i < n; i++) {
    const u = rng.next();
    let f: bigint;
    if (u < 0.3 && pool.length > 0)
      f = pool[rng.int(pool.length)] as bigint; // seen before, or earlier in this batch
    else if (u < 0.35) f = rng.chance(0.5) ? 0n : U64_MAX;
    else if (u < 0.5)
      f = BigInt(rng.int(1000)); // low bits only
    else f = (BigInt(rng.nextU32()) << 32n) | BigInt(rng.nextU32());
    out[i] = f;
    pool.push(f);
  }
  return out;
}

/** Runs the SeenSet contract against the sets `factory` builds; see the file comment. */
export function seenSetContract(name: string, factory: SeenSetFactory): void {
  /** Runs `body` on a started set, closed at the end. */
  async function withSet(body: (set: SeenSet) => Promise<void>): Promise<void> {
    const set = await factory.make();
    await set.start();
    try {
      await body(set);
    } finally {
      await factory.settle?.(set);
      await set.close();
    }
  }

  describe(`SeenSet contract: ${name}`, () => {
    test('identity: spec names the implementation with scalar parameters; isDurable is a boolean', async () => {
      const set = await factory.make();
      assert.equal(set.spec.id, name);
      for (const [key, value] of Object.entries(set.spec.params))
        assert.ok(['string', 'number', 'boolean'].includes(typeof value), `param ${key}`);
      assert.equal(typeof set.isDurable, 'boolean');
      assert.equal(set.isDurable, factory.reopen !== undefined, 'a durable set is tested across a reopen');
      await set.start();
      await set.close();
    });

    test('addBatch: 1 exactly for the first occurrence of a new fingerprint, in input order; size counts distinct ones', () =>
      withSet(async (set) => {
        assert.deepEqual(await set.addBatch(new BigUint64Array(0)), new Uint8Array(0));
        assert.deepEqual(await set.addBatch([]), new Uint8Array(0));
        assert.deepEqual(await set.addBatch([5n, 0n, 5n, U64_MAX, 0n, 7n]), Uint8Array.from([1, 1, 0, 1, 0, 1]));
        assert.deepEqual(await set.addBatch(BigUint64Array.from([7n, 8n, U64_MAX, 8n, 1n << 32n])), Uint8Array.from([0, 1, 0, 0, 1]));
        assert.equal(set.size, 6);
        for (const f of [0n, 5n, 7n, 8n, U64_MAX, 1n << 32n]) assert.equal(await set.has(f), true, `has(${f})`);
        for (const f of [1n, 6n, U64_MAX - 1n, 1n << 33n, 5n << 32n]) assert.equal(await set.has(f), false, `has(${f})`);
        assert.equal(set.size, 6, 'has changes nothing');
      }));

    test('exact: the answers of a plain set over 40,000 fingerprints in batches of every size', () =>
      withSet(async (set) => {
        const rng = new Rng(3, 77, 1);
        const oracle = new Set<string>();
        const pool: bigint[] = [];
        for (let round = 0; round < 120; round++) {
          const b = batch(rng, [0, 1, 2, 17, 300, 1000][round % 6] as number, pool);
          assert.deepEqual(await set.addBatch(b), oracleAnswers(oracle, b), `round ${round}`);
          assert.equal(set.size, oracle.size, `size after round ${round}`);
        }
        for (const f of pool.slice(-200)) assert.equal(await set.has(f), true);
        for (let i = 0; i < 200; i++) {
          const f = (BigInt(rng.nextU32()) << 32n) | BigInt(rng.nextU32());
          assert.equal(await set.has(f), oracle.has(f.toString(16)), `has(${f})`);
        }
      }));

    test('ordering: calls take effect and settle in call order, without waiting for one another', () =>
      withSet(async (set) => {
        const settled: string[] = [];
        const track = <T>(label: string, p: Promise<T>): Promise<T> =>
          p.then((v) => {
            settled.push(label);
            return v;
          });
        const calls = [
          track('has-1', set.has(11n)),
          track('add-1', set.addBatch([11n, 12n])),
          track('has-2', set.has(11n)),
          track('add-2', set.addBatch([12n, 13n])),
          track('has-3', set.has(13n)),
          track('add-3', set.addBatch([11n, 13n, 14n])),
          track('has-4', set.has(14n)),
        ];
        const answers = await Promise.all(calls);
        assert.deepEqual(
          answers.map((a) => (a instanceof Uint8Array ? [...a] : a)),
          [false, [1, 1], true, [0, 1], true, [0, 0, 1], true],
        );
        assert.deepEqual(settled, ['has-1', 'add-1', 'has-2', 'add-2', 'has-3', 'add-3', 'has-4']);
        assert.equal(set.size, 4);
      }));

    test('determinism: answers depend on the calls only, not on batch boundaries beyond first occurrence', async () => {
      const rng = new Rng(9, 77, 2);
      const all = batch(rng, 6000, []);
      const answersIn = async (sizes: readonly number[]): Promise<number[]> => {
        const out: number[] = [];
        await withSet(async (set) => {
          let at = 0;
          for (let i = 0; at < all.length; i++) {
            const size = sizes[i % sizes.length] as number;
            out.push(...(await set.addBatch(all.subarray(at, at + size))));
            at += size;
          }
        });
        return out;
      };
      const whole = await answersIn([all.length]);
      assert.deepEqual(await answersIn([1]), whole);
      assert.deepEqual(await answersIn([7, 500, 1, 3000]), whole);
    });

    test('a fingerprint out of range is a caller bug: the call fails and the set is unchanged', () =>
      withSet(async (set) => {
        await set.addBatch([1n]);
        for (const bad of [[-1n], [1n << 64n], [2n, -5n]]) await assert.rejects(async () => set.addBatch(bad), RangeError);
        await assert.rejects(async () => set.has(-1n), RangeError);
        assert.equal(set.size, 1);
        assert.equal(await set.has(2n), false);
      }));

    test('lifecycle: start is idempotent; close is idempotent (one promise) and every later call fails naming the set and the method', async () => {
      const set = await factory.make();
      await Promise.all([set.start(), set.start()]);
      await set.start();
      await set.addBatch([1n, 2n]);
      const closing = set.close();
      assert.equal(set.close(), closing, 'every close() returns the same promise');
      await closing;
      await set.close();
      for (const [method, call] of [
        ['addBatch', () => set.addBatch([3n])],
        ['has', () => set.has(1n)],
        ['flush', () => set.flush()],
      ] as const) {
        await assert.rejects(
          async () => call(),
          (err: unknown) => {
            assert.ok(err instanceof Error);
            assert.match(err.message, new RegExp(`${method}\\b`), `${method} after close: ${err.message}`);
            assert.match(err.message, /closed/);
            return true;
          },
        );
      }
    });

    test('close lets the calls already made finish', async () => {
      const set = await factory.make();
      await set.start();
      const added = set.addBatch([21n, 22n]);
      const asked = set.has(21n);
      const closed = set.close();
      assert.deepEqual([...(await added)], [1, 1]);
      assert.equal(await asked, true);
      await closed;
    });

    if (factory.reopen === undefined) {
      test('not durable: flush resolves at once and changes nothing', () =>
        withSet(async (set) => {
          await set.addBatch([1n]);
          await set.flush();
          assert.equal(set.size, 1);
        }));
      return;
    }
    const reopen = factory.reopen;

    describe('durability', () => {
      test('once flush resolves, every fingerprint added before it survives a crash; nothing never added appears', async () => {
        const rng = new Rng(5, 77, 3);
        const oracle = new Set<string>();
        const pool: bigint[] = [];
        const first = await factory.make();
        await first.start();
        const flushed: bigint[] = [];
        for (let round = 0; round < 12; round++) {
          const b = batch(rng, 700, pool);
          oracleAnswers(oracle, b);
          void first.addBatch(b);
          flushed.push(...b);
        }
        await first.flush();
        const late = BigUint64Array.from([1n << 50n, (1n << 50n) + 1n]);
        void first.addBatch(late); // after the flush: may be lost
        await factory.settle?.(first);
        const second = await reopen(first);
        await second.start();
        try {
          for (const f of flushed) assert.equal(await second.has(f), true, `flushed ${f} lost`);
          for (let i = 0; i < 500; i++) {
            const f = (BigInt(rng.nextU32()) << 32n) | BigInt(rng.nextU32());
            if (!oracle.has(f.toString(16))) assert.equal(await second.has(f), false, `${f} was never added`);
          }
          assert.ok(
            second.size >= oracle.size && second.size <= oracle.size + late.length,
            `size ${second.size} vs ${oracle.size} flushed`,
          );
          // Whatever survived of the late batch, the rest is new again, and answered so exactly once.
          const kept = await Promise.all([...late].map((f) => second.has(f)));
          assert.deepEqual(
            [...(await second.addBatch(late))],
            kept.map((isKept) => (isKept ? 0 : 1)),
          );
          assert.deepEqual([...(await second.addBatch(late))], [0, 0]);
        } finally {
          await factory.settle?.(second);
          await second.close();
        }
      });

      test('close flushes: a clean shutdown loses nothing', async () => {
        const first = await factory.make();
        await first.start();
        const fps = Array.from({ length: 3000 }, (_, i) => (BigInt(i) * 0x9e3779b97f4a7c15n) % U64_MAX);
        await first.addBatch(fps.slice(0, 1500));
        void first.addBatch(fps.slice(1500));
        await factory.settle?.(first);
        await first.close();
        const second = await reopen(first);
        await second.start();
        try {
          assert.equal(second.size, new Set(fps).size);
          assert.deepEqual(
            [...(await second.addBatch(fps))].filter((x) => x === 1),
            [],
            'every one was seen before',
          );
        } finally {
          await factory.settle?.(second);
          await second.close();
        }
      });
    });
  });
}
