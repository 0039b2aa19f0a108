/**
 * Link summaries with shares and out-degrees (SPEC §4.5, Cho's remedy for hash partitioning): the
 * router adds the linking page's share (the policy's `rankShare`) to each counted link and keeps the
 * largest out-degree of the linking pages (the policy's `outDegree`), the codec carries both and
 * refuses bad ones, and the inbox hands them to the policy.
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

/** A summarizing router of partition 0 and the link summaries it sent, with the policy's `rankShare` and `outDegree` when given. */
function router(of: { rankShareOf?: (id: number) => number; outDegreeOf?: (id: number) => number } = {}) {
  const { exchange, sent } = recordingExchange();
  const r = new PartitionRouter({
    nodeId: 'n0',
    partitioner: byHostName,
    partitions: [0],
    exchange,
    batchUrls: 100,
    sentCacheEntries: 0,
    isSummarizing: true,
    ...of,
  });
  const summaries = () => sent.filter((s) => s.message.kind === 'links').map((s) => s.message as Omit<LinkSummaryMessage, 'seq'>);
  return { r, summaries };
}

describe('link summaries with shares', () => {
  test('the router sums the linking pages’ shares per URL, parallel to the counts', () => {
    const shareOf = new Map([
      [7, 0.5],
      [8, 0.25],
    ]);
    const { r, summaries } = router({ rankShareOf: (id) => shareOf.get(id) ?? 0 });
    r.route([link('/a', 7), link('/b', 7), link('/a', 8)], () => null);
    r.sendLinkSummaries();
    const m = summaries()[0] as Omit<LinkSummaryMessage, 'seq'>;
    assert.deepEqual(m.counts, [
      ['http://p1.test/a', 2],
      ['http://p1.test/b', 1],
    ]);
    assert.deepEqual(m.shares, [0.75, 0.5]);
    // The next summary starts afresh.
    r.route([link('/b', 8)], () => null);
    r.sendLinkSummaries();
    const next = summaries().at(-1) as Omit<LinkSummaryMessage, 'seq'>;
    assert.deepEqual(next.counts, [['http://p1.test/b', 1]]);
    assert.deepEqual(next.shares, [0.25]);
  });

  test('without a policy that values links, a summary has no shares', () => {
    const { r, summaries } = router();
    r.route([link('/a', 7)], () => null);
    r.sendLinkSummaries();
    const m = summaries()[0] as Omit<LinkSummaryMessage, 'seq'>;
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

describe('link summaries with out-degrees', () => {
  test('the router keeps the largest out-degree of the linking pages per URL, parallel to the counts', () => {
    const degreeOf = new Map([
      [7, 12],
      [8, 30],
    ]);
    const { r, summaries } = router({ outDegreeOf: (id) => degreeOf.get(id) ?? 0 });
    r.route([link('/a', 7), link('/b', 7), link('/a', 8), link('/a', 7)], () => null);
    r.sendLinkSummaries();
    assert.deepEqual(summaries()[0]?.counts, [
      ['http://p1.test/a', 3],
      ['http://p1.test/b', 1],
    ]);
    assert.deepEqual(summaries()[0]?.outDegrees, [30, 12]);
    assert.equal(summaries()[0]?.shares, undefined);
    // The next summary starts afresh.
    r.route([link('/a', 7)], () => null);
    r.sendLinkSummaries();
    assert.deepEqual(summaries()[1]?.outDegrees, [12]);
  });

  test('no out-degrees without a policy that knows them, nor when all would be 0', () => {
    const plain = router();
    plain.r.route([link('/a', 7)], () => null);
    plain.r.sendLinkSummaries();
    assert.equal(plain.summaries()[0]?.outDegrees, undefined);
    const zeros = router({ outDegreeOf: () => 0 });
    zeros.r.route([link('/a', 7)], () => null);
    zeros.r.sendLinkSummaries();
    assert.deepEqual(zeros.summaries()[0]?.counts, [['http://p1.test/a', 1]]);
    assert.equal(zeros.summaries()[0]?.outDegrees, undefined);
  });

  test('the codec carries out-degrees beside shares and refuses a wrong length or a value that is not a count', () => {
    const m: LinkSummaryMessage = {
      kind: 'links',
      from: 'n1',
      seq: 6,
      counts: [
        ['http://a.test/', 2],
        ['http://b.test/', 1],
      ],
      shares: [0.5, 0.25],
      outDegrees: [17, 0],
    };
    assert.deepEqual(decodeMessage(encodeMessage(m)), m);
    const withoutShares: LinkSummaryMessage = { kind: 'links', from: 'n1', seq: 7, counts: m.counts, outDegrees: [4, 2] };
    assert.deepEqual(decodeMessage(encodeMessage(withoutShares)), withoutShares);
    assert.throws(() => decodeMessage(encodeMessage({ ...m, outDegrees: [3] })), /outDegrees is not an array of 2/);
    assert.throws(() => decodeMessage(encodeMessage({ ...m, outDegrees: [3, 1.5] })), /outDegrees\[1\] is not an integer/);
    assert.throws(() => decodeMessage(encodeMessage({ ...m, outDegrees: [-1, 1] })), /outDegrees\[0\]/);
  });
});
