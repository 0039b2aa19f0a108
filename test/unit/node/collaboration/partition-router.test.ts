/**
 * The sending side of a collaborative node (src/node/collaboration/partition-router.ts), against a recording
 * exchange: what it keeps, what it sends where, batching, the sent cache, Policy B placements, seeds
 * and link summaries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordingExchange } from '../../../helpers/exchange.js';
import { collectGarbage } from '../../../helpers/gc.js';
import type { Candidate } from '../../../../src/node/stages/candidate.js';
import { PartitionRouter, type PartitionRouterOptions } from '../../../../src/node/collaboration/partition-router.js';
import type { Exchange } from '../../../../src/exchange/exchange.js';
import type { Partitioner, UrlToPlace } from '../../../../src/partition/partitioner.js';
import { CommunityPartitioner } from '../../../../src/partition/community/community.js';

/** Places `http://p<k>.test/...` on partition k (and on every partition listed after `+` in the host: `p0+2`). */
const byHostName: Partitioner = {
  spec: { id: 'test', params: {} },
  partitionCount: 3,
  needsIp: false,
  placeUrl: (u: UrlToPlace) => u.hostname.slice(1, u.hostname.indexOf('.')).split('+').map(Number),
};

/** Keeps every URL where it was found (topic-like). */
const keepHere: Partitioner = { spec: { id: 'here', params: {} }, partitionCount: 3, needsIp: false, placeUrl: (_u, self) => [self] };

const link = (host: string, path: string, fromUrl: string | null = 'http://p0.test/'): Candidate => ({
  url: `http://${host}.test${path}`,
  hostname: `${host}.test`,
  depth: 1,
  fromUrl,
  anchorText: `a ${path}`,
});
const noIp = (): string | null => null;

function router(o: Partial<PartitionRouterOptions> & { exchange: Exchange }): PartitionRouter {
  return new PartitionRouter({
    nodeId: 'n0',
    partitioner: byHostName,
    partitions: [0],
    batchUrls: 3,
    sentCacheEntries: 1024,
    isSummarizing: true,
    ...o,
  });
}

describe('PartitionRouter', () => {
  test('keeps the URLs placed on its partition; batches the others per partition until flushed', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange });
    const kept = r.route([link('p0', '/a'), link('p1', '/b'), link('p2', '/c'), link('p1', '/d')], noIp);
    assert.deepEqual(
      kept.map((c) => c.url),
      ['http://p0.test/a'],
    );
    assert.equal(sent.length, 0, 'nothing sent before a batch is full or flushed');
    assert.equal(r.batched, 3);
    r.flush();
    assert.deepEqual(
      sent.map((s) => [s.to, s.message.kind === 'urls' ? s.message.urls.map((u) => u.url) : []]),
      [
        [1, ['http://p1.test/b', 'http://p1.test/d']],
        [2, ['http://p2.test/c']],
      ],
    );
    const first = sent[0]?.message;
    assert.ok(first?.kind === 'urls');
    assert.deepEqual(first.urls[0], { url: 'http://p1.test/b', depth: 1, fromUrl: 'http://p0.test/', anchorText: 'a /b' });
    assert.equal(first.from, 'n0');
    assert.deepEqual(r.counts, { kept: 1, sent: 3, cached: 0 });
    assert.equal(r.batched, 0);
  });

  test('a batch of URLs keeps no page its anchor texts were cut from', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, batchUrls: 1000 });
    const before = collectGarbage();
    for (let n = 0; n < 48; n++) {
      const page = `<a href="/${n}">a link to page number ${n} of p1</a>`.padEnd(2 ** 20, ' ');
      r.route([{ ...link('p1', `/${n}`), anchorText: page.slice(page.indexOf('>') + 1, page.indexOf('</a>')) }], noIp);
    }
    const growth = collectGarbage() - before;
    assert.equal(r.batched, 48);
    assert.ok(growth < 8 * 2 ** 20, `the batch held ${growth} bytes after 48 pages of 1 MiB`);
    r.flush();
    const batch = sent[0]?.message;
    assert.ok(batch?.kind === 'urls');
    assert.equal(batch.urls[47]?.anchorText, 'a link to page number 47 of p1');
  });

  test('a full batch goes at once', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange });
    r.route([link('p1', '/1'), link('p1', '/2'), link('p1', '/3'), link('p1', '/4')], noIp);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.message.kind === 'urls' ? sent[0].message.urls.length : 0, 3);
    assert.equal(r.batched, 1);
  });

  test('a URL sent lately is not sent again, to the same partition', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange });
    r.route([link('p1', '/x'), link('p1', '/x'), link('p1', '/y')], noIp);
    r.route([link('p1', '/x')], noIp);
    r.flush();
    assert.deepEqual(r.counts, { kept: 0, sent: 2, cached: 2 });
    assert.equal(sent.length, 1);
  });

  test('with the cache off, every occurrence is sent', () => {
    const { exchange } = recordingExchange();
    const r = router({ exchange, sentCacheEntries: 0 });
    r.route([link('p1', '/x'), link('p1', '/x')], noIp);
    assert.deepEqual(r.counts, { kept: 0, sent: 2, cached: 0 });
  });

  test('a placement on several partitions (Policy B) keeps the URL and sends it to each other one', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange });
    const kept = r.route([link('p0+1+2', '/b')], noIp);
    r.flush();
    assert.equal(kept.length, 1);
    assert.deepEqual(
      sent.map((s) => s.to),
      [1, 2],
    );
  });

  test('a node owning several partitions keeps what any of them owns', () => {
    const { exchange } = recordingExchange();
    const r = router({ exchange, partitions: [0, 2] });
    const kept = r.route([link('p0', '/a'), link('p1', '/b'), link('p2', '/c')], noIp);
    assert.deepEqual(
      kept.map((c) => c.hostname),
      ['p0.test', 'p2.test'],
    );
  });

  test('seeds: kept when placed here, never sent; strategies that keep URLs where found deal them round-robin', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, partitions: [1] });
    assert.equal(r.keepsSeed(link('p1', '/', null), 0, noIp), true);
    assert.equal(r.keepsSeed(link('p2', '/', null), 0, noIp), false);
    const topicLike = router({ exchange, partitioner: keepHere, partitions: [1] });
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => topicLike.keepsSeed(link('p0', `/${i}`, null), i, noIp)),
      [false, true, false, false, true],
    );
    assert.equal(sent.length, 0);
  });

  test('link summaries count every link to another partition’s URL (before the sent cache), links only', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, batchUrls: 100 });
    r.route([link('p1', '/x'), link('p1', '/x'), link('p2', '/y'), link('p1', '/seed', null), link('p0', '/own')], noIp);
    r.flush();
    sent.length = 0;
    r.sendLinkSummaries();
    const summaries = sent.map((s) => [s.to, s.message.kind === 'links' ? s.message.counts : null]);
    assert.deepEqual(summaries, [
      [1, [['http://p1.test/x', 2]]],
      [2, [['http://p2.test/y', 1]]],
    ]);
    sent.length = 0;
    r.sendLinkSummaries();
    assert.equal(sent.length, 0, 'counts are sent once');
  });

  test('no link summaries when they are off', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, isSummarizing: false });
    r.route([link('p1', '/x')], noIp);
    r.sendLinkSummaries();
    assert.ok(sent.every((s) => s.message.kind !== 'links'));
  });
});

describe('PartitionRouter with a strategy that reads citations (community)', () => {
  const community = (): Partitioner => new CommunityPartitioner(3, { k: 8 });
  const here = (path: string, from = 'http://p0.test/'): Candidate => link('p0', path, from);

  test('its own links vote for its partition: with no other counts, URLs stay, and every link is summarized to every other partition', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, partitioner: community() });
    const kept = r.route([here('/a'), here('/b'), here('/a', 'http://p0.test/2')], noIp);
    assert.equal(kept.length, 3);
    r.sendLinkSummaries();
    const summaries = sent.filter((s) => s.message.kind === 'links');
    assert.deepEqual(
      summaries.map((s) => s.to),
      [1, 2],
    );
    for (const s of summaries) {
      assert.equal(s.message.kind === 'links' && s.message.partition, 0);
      assert.deepEqual(s.message.kind === 'links' ? s.message.counts : null, [
        ['http://p0.test/a', 2],
        ['http://p0.test/b', 1],
      ]);
    }
  });

  test('a URL another partition’s pages cite more goes there; one this node took before stays', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, partitioner: community(), batchUrls: 100 });
    r.route([here('/kept')], noIp);
    r.receiveLinks({
      kind: 'links',
      from: 'n2',
      seq: 1,
      partition: 2,
      counts: [
        ['http://p0.test/moved', 3],
        ['http://p0.test/kept', 5],
      ],
    });
    r.receiveLinks({ kind: 'links', from: 'n1', seq: 1, partition: 1, counts: [['http://p0.test/moved', 2]] });
    const kept = r.route([here('/moved'), here('/kept', 'http://p0.test/2'), here('/new')], noIp);
    assert.deepEqual(
      kept.map((c) => c.url),
      ['http://p0.test/kept', 'http://p0.test/new'],
    );
    r.flush();
    const urls = sent.filter((s) => s.message.kind === 'urls');
    assert.deepEqual(
      urls.map((s) => [s.to, s.message.kind === 'urls' ? s.message.urls.map((u) => u.url) : []]),
      [[2, ['http://p0.test/moved']]],
    );
  });

  test('counts from its own partition or without a partition are ignored', () => {
    const { exchange, sent } = recordingExchange();
    const r = router({ exchange, partitioner: community(), batchUrls: 100 });
    r.receiveLinks({ kind: 'links', from: 'me', seq: 1, partition: 0, counts: [['http://p0.test/x', 9]] });
    r.receiveLinks({ kind: 'links', from: 'old', seq: 1, counts: [['http://p0.test/x', 9]] });
    assert.equal(r.route([here('/x')], noIp).length, 1);
    r.flush();
    assert.ok(sent.every((s) => s.message.kind !== 'urls'));
  });
});
