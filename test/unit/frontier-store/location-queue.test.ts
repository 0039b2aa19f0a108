/** LocationQueue (src/frontier-store/location-queue.ts) against an array, through growth, wrap-around and shrinking. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocationQueue } from '../../../src/frontier-store/location-queue.js';
import { Rng } from '../../../src/core/prng.js';

test('LocationQueue: push, shift, at and set agree with an array over seeded random runs', () => {
  for (const seed of [1, 2, 3]) {
    const rng = new Rng(seed, 51, 1);
    const q = new LocationQueue();
    const model: number[] = [];
    let shifted = 0;
    for (let step = 0; step < 20_000; step++) {
      const u = rng.next();
      // Phases of growth and of draining, so the ring doubles, wraps and halves many times.
      const isGrowing = Math.floor(step / 2000) % 2 === 0;
      if (u < (isGrowing ? 0.6 : 0.3)) {
        const location = rng.int(1000) * 2 ** 32 + rng.int(2 ** 32);
        q.push(location);
        model.push(location);
      } else if (u < 0.9) {
        if (model.length === 0) {
          assert.throws(() => q.shift(), RangeError);
          continue;
        }
        assert.equal(q.shift(), model.shift());
        shifted++;
      } else if (model.length > 0) {
        const i = rng.int(model.length);
        const location = rng.int(2 ** 40);
        q.set(i, location);
        model[i] = location;
      }
      assert.equal(q.size, model.length);
      assert.equal(q.headIndex, shifted);
    }
    assert.deepEqual(
      Array.from({ length: q.size }, (_, i) => q.at(i)),
      model,
      `seed ${seed}`,
    );
    assert.throws(() => q.at(q.size), RangeError);
    assert.throws(() => q.set(-1, 0), RangeError);
  }
});
