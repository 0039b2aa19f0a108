/**
 * IB′ ordering (src/order/backlink.ts): counts of distinct in-linking pages, re-prioritization as
 * links are seen, other nodes' counts, and the crawl order it gives on a small fixture web.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BacklinkPolicy } from '../../../src/order/backlink.js';
import { canEstimateImportance, canObserveRemoteLinks } from '../../../src/order/policy.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

describe('BacklinkPolicy', () => {
  test('spec, needs and optional abilities', () => {
    const policy = new BacklinkPolicy();
    assert.deepEqual(policy.spec, { id: 'backlink', params: {} });
    assert.deepEqual(policy.needs, { ids: true, urls: false, anchors: false, text: false });
    assert.ok(canObserveRemoteLinks(policy));
    assert.ok(canEstimateImportance(policy));
  });

  test('a page counts once per target, however often it links or is observed', () => {
    const policy = new BacklinkPolicy();
    policy.observe({ id: 0, url: '', depth: 0, outIds: [5, 5, 6, 5] });
    policy.observe({ id: 0, url: '', depth: 0, outIds: [5, 6] });
    assert.equal(policy.prioritize({ id: 5, url: '', depth: 1, fromId: 0 }), 1);
    policy.observe({ id: 1, url: '', depth: 1, outIds: [5] });
    assert.deepEqual([policy.estimate(5), policy.estimate(6), policy.estimate(7)], [2, 1, 0]);
  });

  test("a revisit counts the page's new links only; links it dropped still count", () => {
    const policy = new BacklinkPolicy();
    policy.prioritize({ id: 5, url: '', depth: 1 });
    policy.prioritize({ id: 7, url: '', depth: 1 });
    policy.observe({ id: 0, url: '', depth: 0, outIds: [5, 6] });
    // Page 0 changed: it now links to 5 and 7 (not 6); its caller offers only 7, the new link.
    assert.deepEqual(changesOf(policy.observe({ id: 0, url: '', depth: 0, outIds: [7], isRevisit: true })), { 7: 1 });
    assert.deepEqual([policy.estimate(5), policy.estimate(6), policy.estimate(7)], [1, 1, 1]);
    // The same page observed again without the flag (a caller that re-offers it) adds nothing.
    assert.deepEqual(changesOf(policy.observe({ id: 0, url: '', depth: 0, outIds: [5, 7, 8] })), {});
    assert.equal(policy.estimate(8), 0);
  });

  test('returns the new count of queued targets only', () => {
    const policy = new BacklinkPolicy();
    policy.prioritize({ id: 1, url: '', depth: 1 });
    policy.prioritize({ id: 2, url: '', depth: 1 });
    assert.deepEqual(changesOf(policy.observe({ id: 0, url: '', depth: 0, outIds: [1, 3, 1] })), { 1: 1 });
    assert.deepEqual(changesOf(policy.observe({ id: 4, url: '', depth: 0, outIds: [1, 2] })), { 1: 2, 2: 1 });
    // 1 is fetched: links to it still count, but it is no longer queued.
    policy.observe({ id: 1, url: '', depth: 1, outIds: [] });
    assert.deepEqual(changesOf(policy.observe({ id: 5, url: '', depth: 0, outIds: [1] })), {});
    assert.equal(policy.estimate(1), 3);
  });

  test("adds other nodes' counts; a backlink hint is a lower bound of them", () => {
    const policy = new BacklinkPolicy();
    assert.equal(policy.prioritize({ id: 7, url: '', depth: 0, backlinkHint: 4 }), 4);
    assert.deepEqual(changesOf(policy.observeRemoteLinks([7, 8, -1, 7], [2, 5, 1, Number.NaN])), { 7: 6 });
    assert.equal(policy.estimate(8), 5, 'a URL not queued yet keeps its remote count');
    assert.equal(policy.prioritize({ id: 8, url: '', depth: 0, backlinkHint: 3 }), 5);
    policy.observe({ id: 9, url: '', depth: 0, outIds: [8] });
    assert.equal(policy.estimate(8), 6);
  });

  test('crawl order: the URL with the most backlinks seen goes first, ties by discovery', () => {
    //   /  ──▶ /a, /b, /c
    //   /a ──▶ /c, /d
    //   /b ──▶ /c, /d, /e
    //
    // after /:   /a 1, /b 1, /c 1        → /a (first found)
    // after /a:  /c 2, /d 1              → /c
    // after /c:  /b 1, /d 1              → /b (found before /d)
    // after /b:  /d 2, /e 1              → /d, then /e
    // Expected: / /a /c /b /d /e   (breadth-first would give / /a /b /c /d /e)
    const s = 'http://s.test';
    const web: Web = {
      [`${s}/`]: [`${s}/a`, `${s}/b`, `${s}/c`],
      [`${s}/a`]: [`${s}/c`, `${s}/d`],
      [`${s}/b`]: [`${s}/c`, `${s}/d`, `${s}/e`],
    };
    const order = crawlFixture(web, [`${s}/`], new BacklinkPolicy());
    assert.deepEqual(
      order.map((u) => u.slice(s.length)),
      ['/', '/a', '/c', '/b', '/d', '/e'],
    );
  });
});
