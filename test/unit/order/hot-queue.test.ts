/**
 * The hot-queue ordering (src/order/hot-queue.ts, seed 004 §7): hot URLs by anchor and URL, hot
 * pages by title and text counts, hot distance spreading to queued URLs, and the crawl where the
 * plain hot queue (Figure 4) takes a hot anchor before breadth-first would and finds a hot page last
 * that the modified one (Figure 5) finds early.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BreadthFirstPolicy } from '../../../src/order/bfs.js';
import { COLD_PRIORITY, HOT_PRIORITY, HotQueuePolicy } from '../../../src/order/hot-queue.js';
import { OrderParamError } from '../../../src/order/order-params.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

const url = (id: number, anchorText?: string, fromId?: number) => ({
  id,
  url: `http://s.test/p${id}`,
  depth: 1,
  ...(anchorText === undefined ? {} : { anchorText }),
  ...(fromId === undefined ? {} : { fromId }),
});

describe('HotQueuePolicy', () => {
  test('spec and needs', () => {
    const policy = new HotQueuePolicy({ terms: ['Computer'] });
    assert.deepEqual(policy.spec, { id: 'hot-queue', params: { terms: ['computer'], hotDistance: 3, titleMin: 1, bodyMin: 10 } });
    assert.deepEqual(policy.needs, { ids: true, urls: true, anchors: true, text: true });
    assert.equal(new HotQueuePolicy({ terms: ['computer'], hotDistance: 0 }).needs.text, false);
  });

  test('a URL is hot when a term is a word of its anchor or a substring of the URL', () => {
    const p = new HotQueuePolicy({ terms: ['computer'] });
    assert.equal(p.prioritize(url(1, 'Computer Science')), HOT_PRIORITY);
    assert.equal(p.prioritize({ id: 2, url: 'http://s.test/ComputerLab/', depth: 1 }), HOT_PRIORITY);
    assert.equal(p.prioritize(url(3, 'computers')), COLD_PRIORITY, 'anchors match whole words');
    assert.equal(p.prioritize(url(4)), COLD_PRIORITY);
    assert.equal(p.prioritize({ id: -1, url: 'http://s.test/computer', depth: 0 }), HOT_PRIORITY);
  });

  test('a queued URL becomes hot when a later link to it has a term in its anchor (changes)', () => {
    const p = new HotQueuePolicy({ terms: ['computer'], hotDistance: 0 });
    assert.equal(p.prioritize(url(7, 'misc')), COLD_PRIORITY);
    const changes = p.observe({ id: 1, url: 'http://s.test/p1', depth: 0, outIds: [7, 8], anchors: ['computer', 'computer'] });
    assert.deepEqual(changesOf(changes), { 7: HOT_PRIORITY }, '8 is not queued yet: no change for it');
    assert.equal(p.prioritize(url(8, 'misc', 1)), HOT_PRIORITY);
  });

  test('a link of a fetched page is judged in observe; prioritize judges only URLs found elsewhere', () => {
    const p = new HotQueuePolicy({ terms: ['computer'], hotDistance: 0 });
    p.observe({ id: 1, url: 'http://s.test/p1', depth: 0, outIds: [7], anchors: ['misc'], outUrls: ['http://s.test/p7'] });
    // By the Contract prioritize repeats observe's anchor; a different one here shows which verdict counts.
    assert.equal(p.prioritize(url(7, 'computer', 1)), COLD_PRIORITY, 'observe judged it cold');
    assert.equal(p.prioritize(url(8, 'computer')), HOT_PRIORITY, 'a seed is judged when prioritized');
    assert.equal(p.prioritize(url(9, 'computer', 4)), HOT_PRIORITY, 'found on a page never observed');
  });

  test('hot pages: a term once in the title, or bodyMin times in the text', () => {
    const p = new HotQueuePolicy({ terms: ['computer'] });
    const page = (id: number, title: string, text: string) => ({
      id,
      url: `http://s.test/p${id}`,
      depth: 0,
      outIds: [100 + id],
      title,
      text,
    });
    for (let id = 1; id <= 3; id++) p.prioritize(url(100 + id));
    assert.deepEqual(changesOf(p.observe(page(1, 'misc', 'computer '.repeat(9)))), {});
    assert.deepEqual(changesOf(p.observe(page(2, 'misc', 'Computer, '.repeat(10)))), { 102: HOT_PRIORITY });
    assert.deepEqual(changesOf(p.observe(page(3, 'My computer', ''))), { 103: HOT_PRIORITY });
    const strict = new HotQueuePolicy({ terms: ['computer'], titleMin: 2 });
    strict.prioritize(url(104));
    assert.deepEqual(changesOf(strict.observe(page(4, 'My computer', ''))), {});
  });

  test('distance spreads through pages fetched earlier: their queued targets become hot', () => {
    //   2 (fetched, not hot) ──▶ 6 (queued)
    //   3 (hot) ──▶ 2        ⇒ dist(2) = 1, dist(6) = 2
    const run = (hotDistance: number): Record<number, number> => {
      const p = new HotQueuePolicy({ terms: ['computer'], hotDistance });
      p.observe({ id: 2, url: 'http://s.test/p2', depth: 0, outIds: [6], title: 'misc' });
      p.prioritize(url(6, 'misc', 2));
      return changesOf(p.observe({ id: 3, url: 'http://s.test/p3', depth: 0, outIds: [2], title: 'computer' }));
    };
    assert.deepEqual(run(3), { 6: HOT_PRIORITY });
    assert.deepEqual(run(2), {});
    assert.deepEqual(run(0), {});
  });

  test('a fetched page at distance 1 passes distance 2 to the URLs it links to', () => {
    const p = new HotQueuePolicy({ terms: ['computer'] });
    p.prioritize(url(9));
    p.observe({ id: 1, url: 'http://s.test/p1', depth: 0, outIds: [2], title: 'computer' });
    assert.deepEqual(changesOf(p.observe({ id: 2, url: 'http://s.test/p2', depth: 1, outIds: [9, 10], title: 'misc' })), {
      9: HOT_PRIORITY,
    });
    assert.equal(p.prioritize(url(10, 'misc', 2)), HOT_PRIORITY);
    p.observe({ id: 10, url: 'http://s.test/p10', depth: 2, outIds: [11], title: 'misc' });
    assert.equal(p.prioritize(url(11, 'misc', 10)), COLD_PRIORITY, 'distance 3 is not < 3');
  });

  test('rejects terms that are not single words, and counts out of range', () => {
    assert.throws(() => new HotQueuePolicy({ terms: [] }), OrderParamError);
    assert.throws(() => new HotQueuePolicy({ terms: ['computer science'] }), OrderParamError);
    assert.throws(() => new HotQueuePolicy({ terms: ['c++'] }), OrderParamError);
    assert.throws(() => new HotQueuePolicy({ terms: ['x'], hotDistance: 4 }), OrderParamError);
    assert.throws(() => new HotQueuePolicy({ terms: ['x'], bodyMin: 0 }), OrderParamError);
  });

  test('crawl: the plain hot queue takes a hot anchor first and finds a hot page last that the modified one finds third', () => {
    //   /   ──"b"─────────▶ /b
    //       ──"c"─────────▶ /c
    //       ──"computer"──▶ /a      /a is hot (title "computer"), and found last on /
    //   /b  ──"y"─────────▶ /y
    //   /a  ──"x"─────────▶ /x      /x is not hot; its anchor and URL do not name the term
    //   /x  ──"z"─────────▶ /z      /z is hot (title "computer"): distance 2 from /a
    //
    // breadth-first:            / /b /c /a /y /x /z
    // plain (hotDistance 0):    / /a /b /c /x /y /z    only /a is ever in the hot queue
    // modified (hotDistance 3): / /a /x /z /b /c /y    /x at distance 1, /z at distance 2 of /a
    const s = 'http://s.test';
    const web: Web = {
      [`${s}/`]: [`${s}/b`, `${s}/c`, `${s}/a`],
      [`${s}/b`]: [`${s}/y`],
      [`${s}/a`]: [`${s}/x`],
      [`${s}/x`]: [`${s}/z`],
    };
    const options = {
      anchor: (_from: string, to: string) => (to === `${s}/a` ? 'computer' : (to.split('/').pop() ?? '')),
      content: (u: string) => ({ title: u === `${s}/a` || u === `${s}/z` ? 'Computer' : 'misc', text: '' }),
    };
    const path = (order: string[]): string[] => order.map((u) => u.slice(s.length));
    const bfs = path(crawlFixture(web, [`${s}/`], new BreadthFirstPolicy(), options));
    const plain = path(crawlFixture(web, [`${s}/`], new HotQueuePolicy({ terms: ['computer'], hotDistance: 0 }), options));
    const modified = path(crawlFixture(web, [`${s}/`], new HotQueuePolicy({ terms: ['computer'], hotDistance: 3 }), options));
    assert.deepEqual(bfs, ['/', '/b', '/c', '/a', '/y', '/x', '/z']);
    assert.deepEqual(plain, ['/', '/a', '/b', '/c', '/x', '/y', '/z']);
    assert.deepEqual(modified, ['/', '/a', '/x', '/z', '/b', '/c', '/y']);
  });
});
