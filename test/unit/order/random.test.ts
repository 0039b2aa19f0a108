/**
 * Random ordering (src/order/random.ts): seeded draws in [0, 1), the same for the same seed and call
 * order, and a crawl order that is a reproducible shuffle.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderParamError } from '../../../src/order/order-params.js';
import { RandomPolicy } from '../../../src/order/random.js';
import { crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

const draws = (policy: RandomPolicy, n: number): number[] =>
  Array.from({ length: n }, (_, i) => policy.prioritize({ id: -1, url: `http://a.test/${i}`, depth: 1 }));

describe('RandomPolicy', () => {
  test('spec names the seed; reads nothing', () => {
    assert.deepEqual(new RandomPolicy().spec, { id: 'random', params: { seed: 1 } });
    assert.deepEqual(new RandomPolicy({ seed: 42 }).spec.params, { seed: 42 });
    assert.deepEqual(new RandomPolicy().needs, { ids: false, urls: false, anchors: false, text: false });
  });

  test('draws are in [0, 1), distinct, spread, and depend only on seed and call order', () => {
    const a = draws(new RandomPolicy({ seed: 7 }), 2000);
    assert.deepEqual(draws(new RandomPolicy({ seed: 7 }), 2000), a);
    assert.notDeepEqual(draws(new RandomPolicy({ seed: 8 }), 2000), a);
    assert.ok(a.every((x) => x >= 0 && x < 1));
    assert.equal(new Set(a).size, a.length);
    const mean = a.reduce((s, x) => s + x, 0) / a.length;
    assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
    const low = a.filter((x) => x < 0.1).length;
    assert.ok(low > 140 && low < 260, `${low} draws below 0.1`);
  });

  test('never re-prioritizes', () => {
    assert.equal(new RandomPolicy().observe({ id: 0, url: '', depth: 0, outIds: [1, 2] }).length, 0);
  });

  test('rejects a seed that is not a 32-bit unsigned integer', () => {
    for (const seed of [-1, 1.5, 2 ** 32, Number.NaN]) assert.throws(() => new RandomPolicy({ seed }), OrderParamError);
  });

  test('crawl order: a reproducible shuffle of the reachable pages, not discovery order', () => {
    //   /  ──▶ /1 … /12          every page is found by the first fetch
    const s = 'http://s.test';
    const pages = Array.from({ length: 12 }, (_, i) => `${s}/${i + 1}`);
    const web: Web = { [`${s}/`]: pages };
    const run = (seed: number): string[] => crawlFixture(web, [`${s}/`], new RandomPolicy({ seed }));
    const order = run(3);
    assert.deepEqual(run(3), order);
    assert.equal(order[0], `${s}/`);
    assert.deepEqual([...order.slice(1)].sort(), [...pages].sort());
    assert.notDeepEqual(order.slice(1), pages);
    assert.notDeepEqual(run(4), order);
  });
});
