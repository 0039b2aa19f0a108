/**
 * Anchor-text similarity IS′(A, Q) (src/order/similarity.ts): the TF-IDF cosine, idf estimated from
 * the pages fetched so far or read from a reference table, the best of several anchors, title terms
 * weighted up in page estimates, and the crawl order it gives.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderParamError } from '../../../src/order/order-params.js';
import { SimilarityPolicy } from '../../../src/order/similarity.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

describe('SimilarityPolicy', () => {
  test('spec and needs follow the parameters', () => {
    const policy = new SimilarityPolicy({ query: 'Computer science' });
    assert.deepEqual(policy.spec, {
      id: 'similarity',
      params: { query: 'Computer science', anchorWeight: 1, urlWeight: 0.5, titleWeight: 2, idfSource: 'crawled' },
    });
    assert.deepEqual(policy.needs, { ids: true, urls: true, anchors: true, text: true });
    const anchorsOnly = new SimilarityPolicy({ query: 'x', urlWeight: 0, idfSource: 'reference', idf: new Map([['x', 1]]) });
    assert.deepEqual(anchorsOnly.needs, { ids: true, urls: false, anchors: true, text: false });
  });

  test('cosine of the query with anchor and URL terms, all idf 1 before any page', () => {
    const p = new SimilarityPolicy({ query: 'computer', urlWeight: 0 });
    assert.equal(p.linkScore('Computer', ''), 1);
    close(p.linkScore('computer games', ''), 1 / Math.SQRT2, 'two words');
    assert.equal(p.linkScore('sports', ''), 0);
    assert.equal(p.linkScore('', ''), 0);
    const withUrl = new SimilarityPolicy({ query: 'computer' });
    // D = {computer: 0.5, a: 0.5, test: 0.5}: cos = 0.5 / sqrt(0.75).
    close(withUrl.linkScore('', 'http://a.test/computer'), 0.5 / Math.sqrt(0.75), 'URL terms');
  });

  test('idf estimated from fetched pages: a rare query term counts more than a common one', () => {
    const p = new SimilarityPolicy({ query: 'computer science', urlWeight: 0 });
    assert.equal(p.linkScore('computer', ''), p.linkScore('science', ''));
    p.observe({ id: 0, url: '', depth: 0, outIds: [], title: 'Science', text: 'computer science' });
    p.observe({ id: 1, url: '', depth: 0, outIds: [], text: 'science news' });
    p.observe({ id: 2, url: '', depth: 0, outIds: [], text: 'more science' });
    p.observe({ id: 2, url: '', depth: 0, outIds: [], text: 'more science' });
    // N = 3 (a re-fetch is not a new document): idf(computer) = ln(4/2) + 1, idf(science) = ln(4/4) + 1.
    close(p.idf('computer'), Math.log(2) + 1, 'idf(computer)');
    close(p.idf('science'), 1, 'idf(science)');
    close(p.idf('unseen'), Math.log(4) + 1, 'idf of a term on no page');
    assert.ok(p.linkScore('computer', '') > p.linkScore('science', ''));
  });

  test('or read from a reference table (a missing term gets its largest idf)', () => {
    const idf = new Map([
      ['computer', 5],
      ['science', 1],
      ['the', 0.1],
    ]);
    const p = new SimilarityPolicy({ query: 'computer science', urlWeight: 0, idfSource: 'reference', idf });
    assert.equal(p.idf('computer'), 5);
    assert.equal(p.idf('zebra'), 5);
    assert.ok(p.linkScore('computer', '') > p.linkScore('science', ''));
    p.observe({ id: 0, url: '', depth: 0, outIds: [], text: 'science science science' });
    assert.equal(p.idf('science'), 1, 'fetched pages do not change a reference idf');
  });

  test('a URL found again keeps its best anchor; a rise is a change while it is queued', () => {
    const p = new SimilarityPolicy({ query: 'computer', urlWeight: 0 });
    p.observe({ id: 0, url: '', depth: 0, outIds: [5], anchors: ['misc'] });
    assert.equal(p.prioritize({ id: 5, url: 'http://a.test/5', depth: 1, fromId: 0, anchorText: 'misc' }), 0);
    assert.deepEqual(changesOf(p.observe({ id: 1, url: '', depth: 0, outIds: [5, 6], anchors: ['computer', 'computer'] })), { 5: 1 });
    assert.deepEqual(changesOf(p.observe({ id: 2, url: '', depth: 0, outIds: [5], anchors: ['computer games'] })), {});
    assert.equal(p.estimate(5), 1);
    assert.equal(p.prioritize({ id: 6, url: 'http://a.test/6', depth: 1, fromId: 1, anchorText: 'computer' }), 1);
  });

  test('a link is scored in observe, with the idf of then; prioritize scores only a URL found elsewhere', () => {
    const p = new SimilarityPolicy({ query: 'computer science', urlWeight: 0 });
    p.observe({ id: 0, url: '', depth: 0, outIds: [5], anchors: ['computer'], text: 'computer science' });
    const then = p.linkScore('computer', '');
    // Another page with "science" makes it the commoner term: "computer" alone now scores higher.
    p.observe({ id: 1, url: '', depth: 0, outIds: [], text: 'science news' });
    const now = p.linkScore('computer', '');
    assert.ok(now > then, `${now} > ${then}`);
    assert.equal(p.prioritize({ id: 5, url: 'http://a.test/5', depth: 1, fromId: 0, anchorText: 'computer' }), then);
    assert.equal(
      p.prioritize({ id: 9, url: 'http://a.test/9', depth: 0, anchorText: 'computer' }),
      now,
      'a seed is scored when prioritized',
    );
  });

  test('a fetched page is estimated by its own text, title terms weighted up', () => {
    const p = new SimilarityPolicy({ query: 'computer' });
    p.observe({ id: 0, url: '', depth: 0, outIds: [], title: 'computer', text: 'news stuff' });
    p.observe({ id: 1, url: '', depth: 0, outIds: [], title: 'news', text: 'computer stuff' });
    // Every term is on both pages, so idf is equal for all: cos = 2/√6 and 1/√6.
    close(p.estimate(0), 2 / Math.sqrt(6), 'term in the title');
    close(p.estimate(1), 1 / Math.sqrt(6), 'term in the text');
    assert.equal(p.estimate(77), 0);
  });

  test('rejects what it cannot use', () => {
    assert.throws(() => new SimilarityPolicy({ query: '' }), OrderParamError);
    assert.throws(() => new SimilarityPolicy({ query: '!!! ???' }), OrderParamError);
    assert.throws(() => new SimilarityPolicy({ query: 'x', anchorWeight: 0, urlWeight: 0 }), OrderParamError);
    assert.throws(() => new SimilarityPolicy({ query: 'x', urlWeight: -1 }), OrderParamError);
    assert.throws(() => new SimilarityPolicy({ query: 'x', idfSource: 'reference' }), OrderParamError);
    assert.throws(() => new SimilarityPolicy({ query: 'x', idfSource: 'reference', idf: new Map([['x', Number.NaN]]) }), OrderParamError);
  });

  test('crawl order: the best anchors first, raised when a better anchor is found', () => {
    //   /   ──"sports"──────────▶ /a
    //       ──"computer games"──▶ /b      0.60
    //       ──"computer"────────▶ /c      0.76
    //   /c  ──"misc"────────────▶ /d      0
    //       ──"news"────────────▶ /e      0
    //   /b  ──"computer"────────▶ /d      raised to 0.76
    //
    // (URL terms s, test, <letter> weigh 0.5 each; no page text, so every idf is 1.)
    // Expected: / /c /b /d /a /e   (breadth-first: / /a /b /c /d /e)
    const s = 'http://s.test';
    const anchors: Record<string, string> = {
      a: 'sports',
      b: 'computer games',
      c: 'computer',
      'c>d': 'misc',
      'c>e': 'news',
      'b>d': 'computer',
    };
    const web: Web = {
      [`${s}/`]: [`${s}/a`, `${s}/b`, `${s}/c`],
      [`${s}/c`]: [`${s}/d`, `${s}/e`],
      [`${s}/b`]: [`${s}/d`],
    };
    const anchor = (from: string, to: string): string => {
      const f = from.slice(s.length + 1);
      const t = to.slice(s.length + 1);
      return anchors[f === '' ? t : `${f}>${t}`] ?? '';
    };
    const order = crawlFixture(web, [`${s}/`], new SimilarityPolicy({ query: 'computer' }), { anchor });
    assert.deepEqual(
      order.map((u) => u.slice(s.length)),
      ['/', '/c', '/b', '/d', '/a', '/e'],
    );
  });
});
