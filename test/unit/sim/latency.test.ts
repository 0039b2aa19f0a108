import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostLatencies } from '../../../src/sim/latency.js';

describe('hostLatencies', () => {
  it('gives every host the constant, 0 included', () => {
    assert.deepEqual(Array.from(hostLatencies({ model: 'constant', ms: 0, spread: 0.5, seed: 1 }, 3)), [0, 0, 0]);
    assert.deepEqual(Array.from(hostLatencies({ model: 'constant', ms: 120, spread: 0.5, seed: 1 }, 2)), [120, 120]);
  });

  it('draws uniform latencies within ms·(1 ± spread), the same for the same seed', () => {
    const a = hostLatencies({ model: 'uniform', ms: 100, spread: 0.5, seed: 7 }, 1000);
    const b = hostLatencies({ model: 'uniform', ms: 100, spread: 0.5, seed: 7 }, 1000);
    const c = hostLatencies({ model: 'uniform', ms: 100, spread: 0.5, seed: 8 }, 1000);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    for (const v of a) assert.ok(v >= 50 && v <= 150, `${v} outside [50, 150]`);
    const mean = a.reduce((s, v) => s + v, 0) / a.length;
    assert.ok(Math.abs(mean - 100) < 5, `mean ${mean}`);
  });

  it('draws lognormal latencies around the median ms', () => {
    const v = Array.from(hostLatencies({ model: 'lognormal', ms: 200, spread: 1, seed: 3 }, 2001)).sort((x, y) => x - y);
    const median = v[1000] as number;
    assert.ok(median > 170 && median < 230, `median ${median}`);
    assert.ok((v[2000] as number) > 1000, 'a long tail of slow hosts');
    for (const x of v) assert.ok(x > 0);
  });

  it('uses measured times, and ms for hosts never measured', () => {
    assert.deepEqual(
      Array.from(hostLatencies({ model: 'measured', ms: 50, spread: 0, seed: 1 }, 3, Float64Array.of(12, Number.NaN, 30))),
      [12, 50, 30],
    );
    assert.throws(() => hostLatencies({ model: 'measured', ms: 50, spread: 0, seed: 1 }, 3, null), /measured by a real crawl/);
  });
});
