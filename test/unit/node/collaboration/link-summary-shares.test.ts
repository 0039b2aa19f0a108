/**
 * Link summaries with shares (SPEC §4.5, Cho's remedy for hash partitioning): the router adds the
 * linking page's share (the policy's `rankShare`) to each counted link, the codec carries the shares
 * and refuses bad ones, and the inbox hands them to the policy.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordingExchange } from '../../../helpers/exchange.js';
import type { Candidate } from '../../../../src/node/stages/candidate.js';
import { PartitionRouter } from '../../../../src/node/collaboration/partition-router.js';
import type { LinkSummaryMessage } from '../../../../src/exchange/messages.js';
import { decodeMessage, encodeMessage } from '../../../../src/exchange/codec.js';
import type { Partitioner, UrlToPlace } from '../../../../src/partition/partitioner.js';

/** `http://p<k>.test/...` is on partition k. */
const byHostName: Partitioner = {
  spec: { id: 'test', params: {} },
  partitionCount: 2,
  needsIp: false,
  placeUrl: (u: UrlToPlace) => [Number(u.hostname.slice(1, u.hostname.indexOf('.')))],
};

const link = (path: string, fromId: number): Candidate => ({
  url: `http://p1.test${path}`,
  hostname: 'p1.test',
  depth: 1,
  fromUrl: `http://p0.test/${fromId}`,
  fromId,
});

describe('link summaries with shares', () => {
  test('the router sums the linking pages’ shares per URL, parallel to the counts', () => {
    const { exchange, sent } = recordingExchange();
    const shareOf = new Map([
      [7, 0.5],
      [8, 0.25],
    ]);
    const r = new PartitionRouter({
      nodeId: 'n0',
      partitioner: byHostName,
      partitions: [0],
      exchange,
      batchUrls: 100,
      sentCacheEntries: 0,
      isSummarizing: true,
      rankShareOf: (id) => shareOf.get(id) ?? 0,
    });
    r.route([link('/a', 7), link('/b', 7), link('/a', 8)], () => null);
    r.sendLinkSummaries();
    const m = sent.find((s) => s.message.kind === 'links')?.message as Omit<LinkSummaryMessage, 'seq'>;
    assert.deepEqual(m.counts, [
      ['http://p1.test/a', 2],
      ['http://p1.test/b', 1],
    ]);
    assert.deepEqual(m.shares, [0.75, 0.5]);
    // The next summary starts afresh.
    r.route([link('/b', 8)], () => null);
    r.sendLinkSummaries();
    const next = sent.filter((s) => s.message.kind === 'links').at(-1)?.message as Omit<LinkSummaryMessage, 'seq'>;
    assert.deepEqual(next.counts, [['http://p1.test/b', 1]]);
    assert.deepEqual(next.shares, [0.25]);
  });

  test('without a policy that values links, a summary has no shares', () => {
    const { exchange, sent } = recordingExchange();
    const r = new PartitionRouter({
      nodeId: 'n0',
      partitioner: byHostName,
      partitions: [0],
      exchange,
      batchUrls: 100,
      sentCacheEntries: 0,
      isSummarizing: true,
    });
    r.route([link('/a', 7)], () => null);
    r.sendLinkSummaries();
    const m = sent.find((s) => s.message.kind === 'links')?.message as Omit<LinkSummaryMessage, 'seq'>;
    assert.equal(m.shares, undefined);
  });

  test('the codec carries shares and refuses a wrong length or a negative share', () => {
    const m: LinkSummaryMessage = {
      kind: 'links',
      from: 'n1',
      seq: 4,
      counts: [
        ['http://a.test/', 2],
        ['http://b.test/', 1],
      ],
      shares: [0.125, 3.5],
    };
    assert.deepEqual(decodeMessage(encodeMessage(m)), m);
    const noShares: LinkSummaryMessage = { kind: 'links', from: 'n1', seq: 5, counts: [['http://a.test/', 2]] };
    assert.deepEqual(decodeMessage(encodeMessage(noShares)), noShares);
    assert.throws(() => decodeMessage(encodeMessage({ ...m, shares: [1] })), /shares/);
    assert.throws(() => decodeMessage(encodeMessage({ ...m, shares: [1, -1] })), /shares\[1\]/);
  });
});
