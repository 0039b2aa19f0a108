/**
 * Location ordering IL(u) (src/order/location.ts): path slashes, host suffixes by whole labels,
 * keywords in the URL, and the crawl order the default rules give.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocationPolicy } from '../../../src/order/location.js';
import { OrderParamError } from '../../../src/order/order-params.js';
import { crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

describe('LocationPolicy', () => {
  test('spec lists the rules; needs URLs only', () => {
    const policy = new LocationPolicy();
    assert.deepEqual(policy.spec, {
      id: 'location',
      params: { slashWeight: -1, suffixWeights: ['com=1'], keywordWeights: ['home=1', 'index=1'] },
    });
    assert.deepEqual(policy.needs, { ids: false, urls: true, anchors: false, text: false });
  });

  test('default rules: −1 per path slash, +1 for .com, +1 per keyword present', () => {
    const p = new LocationPolicy();
    assert.equal(p.score('http://a.org/'), -1);
    assert.equal(p.score('http://a.org/x/y/z.html?a=/b/c#/d'), -3, 'query and fragment slashes do not count');
    assert.equal(p.score('http://www.b.com/p'), 0);
    assert.equal(p.score('http://user@b.com:8080/home/index.html'), -2 + 1 + 1 + 1);
    assert.equal(p.score('http://notcom/'), -1, 'a suffix matches whole labels');
    assert.equal(p.score('http://a.org/HOME'), 0, 'keywords ignore case');
    assert.equal(p.score(''), 0);
    assert.equal(p.score('not a url'), 0);
  });

  test('configurable weights; suffixes match by labels, with or without a dot', () => {
    const p = new LocationPolicy({ slashWeight: 0, suffixWeights: { '.edu': 2, 'stanford.edu': 3 }, keywordWeights: { café: 5 } });
    assert.equal(p.score('http://cs.stanford.edu/a/b/c'), 5);
    assert.equal(p.score('http://notstanford.edu/'), 2);
    assert.equal(p.score('http://a.org/caf%C3%A9'), 5);
    assert.equal(p.prioritize({ id: -1, url: 'http://x.edu/', depth: 0 }), 2);
    assert.equal(p.observe({ id: -1, url: '', depth: 0, outIds: [] }).length, 0);
  });

  test('rejects rules it cannot apply', () => {
    assert.throws(() => new LocationPolicy({ slashWeight: Number.NaN }), OrderParamError);
    assert.throws(() => new LocationPolicy({ suffixWeights: { '.': 1 } }), OrderParamError);
    assert.throws(() => new LocationPolicy({ keywordWeights: { home: Number.POSITIVE_INFINITY } }), OrderParamError);
    assert.throws(() => new LocationPolicy({ keywordWeights: { home: 1e12 } }), OrderParamError);
  });

  test('crawl order: shallow URLs, .com and home pages first', () => {
    //   http://a.org/  ──▶  a.org/x/y/z.html   (−3)
    //                  ──▶  b.com/p/q          (−2 + 1 = −1)
    //                  ──▶  a.org/home/        (−2 + 1 = −1)
    //                  ──▶  a.org/deep/page    (−2)
    //
    // Expected: a.org/  b.com/p/q  a.org/home/  a.org/deep/page  a.org/x/y/z.html
    const web: Web = {
      'http://a.org/': ['http://a.org/x/y/z.html', 'http://b.com/p/q', 'http://a.org/home/', 'http://a.org/deep/page'],
    };
    const order = crawlFixture(web, ['http://a.org/'], new LocationPolicy());
    assert.deepEqual(order, [
      'http://a.org/',
      'http://b.com/p/q',
      'http://a.org/home/',
      'http://a.org/deep/page',
      'http://a.org/x/y/z.html',
    ]);
  });
});
