/**
 * Forward-link ordering (src/order/forward-links.ts): a URL is ranked by the largest out-degree among
 * the fetched pages that link to it, raised as better in-linking pages are fetched.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ForwardLinksPolicy } from '../../../src/order/forward-links.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

describe('ForwardLinksPolicy', () => {
  test('spec and needs', () => {
    const policy = new ForwardLinksPolicy();
    assert.deepEqual(policy.spec, { id: 'forward-links', params: {} });
    assert.deepEqual(policy.needs, { ids: true, urls: false, anchors: false, text: false });
  });

  test('the best out-degree (distinct targets) of an in-linking page; rises only, for queued URLs', () => {
    const policy = new ForwardLinksPolicy();
    assert.equal(policy.prioritize({ id: 9, url: '', depth: 0 }), 0);
    assert.deepEqual(changesOf(policy.observe({ id: 0, url: '', depth: 0, outIds: [9, 1, 9, 2] })), { 9: 3 });
    assert.equal(policy.prioritize({ id: 1, url: '', depth: 1, fromId: 0 }), 3);
    assert.deepEqual(changesOf(policy.observe({ id: 3, url: '', depth: 1, outIds: [1] })), {}, 'a smaller page changes nothing');
    assert.deepEqual(changesOf(policy.observe({ id: 4, url: '', depth: 1, outIds: [1, 5, 6, 7, 8] })), { 1: 5 });
  });

  test('estimates a fetched page by its own out-degree, others by the ordering value', () => {
    const policy = new ForwardLinksPolicy();
    policy.observe({ id: 0, url: '', depth: 0, outIds: [1, 2, 3] });
    policy.observe({ id: 0, url: '', depth: 0, outIds: [1] });
    assert.deepEqual([policy.estimate(0), policy.estimate(1), policy.estimate(42)], [3, 3, 0]);
  });

  test('crawl order: links of directories first', () => {
    //   /       ──▶ /small, /hub                 (out-degree 2)
    //   /small  ──▶ /x, /x1                      (out-degree 2)
    //   /hub    ──▶ /y1, /y2, /y3, /x            (out-degree 4: /x rises from 2 to 4)
    //
    // Expected: / /small /hub /x /y1 /y2 /y3 /x1
    // (breadth-first: / /small /hub /x /x1 /y1 /y2 /y3)
    const s = 'http://s.test';
    const web: Web = {
      [`${s}/`]: [`${s}/small`, `${s}/hub`],
      [`${s}/small`]: [`${s}/x`, `${s}/x1`],
      [`${s}/hub`]: [`${s}/y1`, `${s}/y2`, `${s}/y3`, `${s}/x`],
    };
    const order = crawlFixture(web, [`${s}/`], new ForwardLinksPolicy());
    assert.deepEqual(
      order.map((u) => u.slice(s.length)),
      ['/', '/small', '/hub', '/x', '/y1', '/y2', '/y3', '/x1'],
    );
  });
});
