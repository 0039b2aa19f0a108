/**
 * Weighted combinations (src/order/weighted.ts): the sum of the components' priorities, re-summed
 * when a component re-prioritizes a URL, optional abilities passed through, and a crawl whose order
 * differs from each component's own.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BacklinkPolicy } from '../../../src/order/backlink.js';
import { LocationPolicy } from '../../../src/order/location.js';
import { OrderParamError } from '../../../src/order/order-params.js';
import { canEstimateImportance, canObserveRemoteLinks } from '../../../src/order/policy.js';
import { RandomPolicy } from '../../../src/order/random.js';
import { SimilarityPolicy } from '../../../src/order/similarity.js';
import { WeightedPolicy } from '../../../src/order/weighted.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

/** IB′ + 10 · IL(u) with only the .com rule. */
const backlinkPlusLocation = (): WeightedPolicy =>
  new WeightedPolicy([
    { policy: new BacklinkPolicy(), weight: 1 },
    { policy: new LocationPolicy({ slashWeight: 0, suffixWeights: { com: 1 }, keywordWeights: {} }), weight: 10 },
  ]);

describe('WeightedPolicy', () => {
  test('spec lists each component with its weight; needs are the union', () => {
    const p = backlinkPlusLocation();
    assert.equal(p.spec.id, 'weighted');
    assert.deepEqual(
      (p.spec.params.components as readonly string[]).map((c) => JSON.parse(c) as unknown),
      [
        { weight: 1, id: 'backlink', params: {} },
        { weight: 10, id: 'location', params: { slashWeight: 0, suffixWeights: ['com=1'], keywordWeights: [] } },
      ],
    );
    assert.deepEqual(p.needs, { ids: true, urls: true, anchors: false, text: false });
    assert.deepEqual(new WeightedPolicy([{ policy: new RandomPolicy(), weight: 1 }]).needs, {
      ids: false,
      urls: false,
      anchors: false,
      text: false,
    });
  });

  test('a URL gets Σ weight · priority', () => {
    const p = backlinkPlusLocation();
    p.observe({ id: 0, url: 'http://a.org/', depth: 0, outIds: [1, 2] });
    assert.equal(p.prioritize({ id: 1, url: 'http://b.com/', depth: 1, fromId: 0 }), 1 + 10);
    assert.equal(p.prioritize({ id: 2, url: 'http://b.org/', depth: 1, fromId: 0 }), 1);
  });

  test('when a component re-prioritizes a queued URL, its whole sum is returned', () => {
    const p = backlinkPlusLocation();
    p.prioritize({ id: 1, url: 'http://b.com/', depth: 0 });
    p.prioritize({ id: 2, url: 'http://b.org/', depth: 0 });
    assert.deepEqual(changesOf(p.observe({ id: 0, url: 'http://a.org/', depth: 0, outIds: [1, 1, 3] })), { 1: 11 });
    assert.deepEqual(changesOf(p.observe({ id: 4, url: 'http://a.org/x', depth: 0, outIds: [1, 2] })), { 1: 12, 2: 1 });
    p.observe({ id: 1, url: 'http://b.com/', depth: 0, outIds: [] });
    assert.deepEqual(changesOf(p.observe({ id: 5, url: 'http://a.org/y', depth: 0, outIds: [1] })), {}, 'fetched: no longer queued');
  });

  test('passes link counts of other nodes on, and estimates by the components', () => {
    const p = backlinkPlusLocation();
    assert.ok(canObserveRemoteLinks(p) && canEstimateImportance(p));
    p.prioritize({ id: 1, url: 'http://b.com/', depth: 0 });
    assert.deepEqual(changesOf(p.observeRemoteLinks([1, 2], [3, 1])), { 1: 13 });
    // Backlink estimates (3 for id 1); location cannot, so its last priority counts (10 for id 1, 0 for 2).
    assert.equal(p.estimate(1), 3 + 10);
    assert.equal(p.estimate(2), 1);
    assert.equal(p.estimate(99), 0);
  });

  test('rejects no components and weights that are not finite', () => {
    assert.throws(() => new WeightedPolicy([]), OrderParamError);
    assert.throws(() => new WeightedPolicy([{ policy: new BacklinkPolicy(), weight: Number.NaN }]), OrderParamError);
  });

  test('crawl order: IC = 1·IB′ + 0.5·IS differs from each term alone', () => {
    //   /   ──"misc"──────▶ /a
    //       ──"computer"──▶ /b
    //   /b  ──"misc"──────▶ /c
    //       ──"computer"──▶ /d
    //       ──"misc"──────▶ /a
    //
    // IC (IS is 1 for a "computer" anchor, else 0, URL terms off):
    //   after /:  /a 1, /b 1.5                  → /b
    //   after /b: /a 2, /c 1, /d 1.5            → /a, /d, /c
    // Expected: / /b /a /d /c    (IB′ alone: / /a /b /c /d; IS alone: / /b /d /a /c)
    const s = 'http://s.test';
    const web: Web = {
      [`${s}/`]: [`${s}/a`, `${s}/b`],
      [`${s}/b`]: [`${s}/c`, `${s}/d`, `${s}/a`],
    };
    const anchor = (_from: string, to: string): string => (to.endsWith('/b') || to.endsWith('/d') ? 'computer' : 'misc');
    const path = (order: string[]): string[] => order.map((u) => u.slice(s.length));
    const similarity = (): SimilarityPolicy => new SimilarityPolicy({ query: 'computer', urlWeight: 0 });
    const ic = new WeightedPolicy([
      { policy: new BacklinkPolicy(), weight: 1 },
      { policy: similarity(), weight: 0.5 },
    ]);
    assert.deepEqual(path(crawlFixture(web, [`${s}/`], ic, { anchor })), ['/', '/b', '/a', '/d', '/c']);
    assert.deepEqual(path(crawlFixture(web, [`${s}/`], new BacklinkPolicy(), { anchor })), ['/', '/a', '/b', '/c', '/d']);
    assert.deepEqual(path(crawlFixture(web, [`${s}/`], similarity(), { anchor })), ['/', '/b', '/d', '/a', '/c']);
  });
});
