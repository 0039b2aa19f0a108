/**
 * Near-duplicates across nodes (src/node/collaboration/simhash-sharing.ts): the pages one node keeps
 * reach the other nodes' indexes, through a recording exchange and the codec's bytes, so that a copy
 * fetched on another node is marked with the first node's page; batches go to every partition the
 * node does not own, full or at `flush`; repeats are not added twice; and a node alone shares nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordingExchange } from '../../../helpers/exchange.js';
import { decodeMessage, encodeMessage } from '../../../../src/exchange/codec.js';
import type { SimHashBatchMessage } from '../../../../src/exchange/messages.js';
import { SimHashSharing } from '../../../../src/node/collaboration/simhash-sharing.js';
import { NearDuplicates } from '../../../../src/node/stages/near-duplicates.js';
import type { PartitionId } from '../../../../src/partition/partitioner.js';

const options = { action: 'archive', maxDistance: 3, blocks: null, maxFingerprints: 100 } as const;

/** A node of a crawl of `partitionCount` partitions: its index, and its sharing through a recording exchange. */
function node(id: string, partitions: readonly PartitionId[], partitionCount = 3, batchSize = 2) {
  const { exchange, sent } = recordingExchange();
  let index: NearDuplicates | null = null;
  const sharing = new SimHashSharing({
    nodeId: id,
    exchange,
    partitionCount,
    partitions,
    batchSize,
    addRemote: (url, hi, lo) => (index as NearDuplicates).addRemote(url, hi, lo),
  });
  index = new NearDuplicates(options, sharing.share);
  return { index, sharing, sent };
}

/** What the other node receives: the message as numbered by an exchange, through the codec. */
function delivered(message: unknown, seq: number): SimHashBatchMessage {
  const m = decodeMessage(encodeMessage({ ...(message as Omit<SimHashBatchMessage, 'seq'>), seq }));
  assert.equal(m.kind, 'simhashes');
  return m as SimHashBatchMessage;
}

describe('SimHashSharing', () => {
  test('a page kept on one node makes its copy on another a near-duplicate of it', () => {
    const a = node('a', [0]);
    const b = node('b', [1]);
    assert.equal(a.index.check('http://x.test/original', 'ff00ff00ff00ff00'), null);
    // A near-duplicate on the same node is marked, and not shared.
    assert.deepEqual(a.index.check('http://x.test/copy', 'ff00ff00ff00ff01'), { url: 'http://x.test/original', distance: 1 });
    assert.equal(a.index.check('http://x.test/other', '0123456789abcdef'), null);
    assert.equal(a.sharing.counts.shared, 2);
    // Two pages fill a batch: sent at once to partitions 1 and 2, not to the node's own.
    assert.deepEqual(
      a.sent.map((s) => s.to),
      [1, 2],
    );
    const m = delivered(a.sent[0]?.message, 1);
    assert.deepEqual(m.urls, ['http://x.test/original', 'http://x.test/other']);
    assert.deepEqual([...m.simhashes], [0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]);

    // Before the batch arrives, b keeps its copy as an original (and shares it in turn).
    assert.equal(b.index.check('http://y.test/early', '0123456789abcdec'), null);
    assert.equal(b.sharing.receive(m), 2);
    assert.equal(b.index.size, 3);
    assert.deepEqual(b.index.check('http://y.test/copy', 'ff00ff00ff00ff03'), { url: 'http://x.test/original', distance: 2 });
    // At equal distance (a's other page is 1 bit away too) the page whose fingerprint reached the index first is named.
    assert.deepEqual(b.index.check('http://y.test/late', '0123456789abcded'), { url: 'http://y.test/early', distance: 1 });
    // Received pages are not shared again.
    assert.equal(b.sharing.counts.shared, 1);
    assert.equal(b.sharing.batched, 1);
  });

  test('flush sends what waits; a repeated delivery and zero fingerprints are not added', () => {
    const a = node('a', [0, 2], 4, 10);
    assert.equal(a.index.check('http://x.test/1', '00000000000000ff'), null);
    assert.equal(a.sent.length, 0);
    assert.equal(a.sharing.batched, 1);
    a.sharing.flush();
    a.sharing.flush();
    assert.deepEqual(
      a.sent.map((s) => s.to),
      [1, 3],
    );
    assert.equal(a.sharing.batched, 0);

    // The receiver owns both partitions the batch went to: it keeps one copy.
    const b = node('b', [1, 3], 4);
    assert.equal(b.sharing.receive(delivered(a.sent[0]?.message, 1)), 1);
    assert.equal(b.sharing.receive(delivered(a.sent[1]?.message, 2)), 0);
    assert.deepEqual(b.sharing.counts, { shared: 0, taken: 1, repeated: 1 });
    assert.equal(b.index.size, 1);
    assert.equal(b.index.addRemote('http://x.test/zero', 0, 0), false);
    // The same URL with another fingerprint (its page changed and was fetched again) is added.
    assert.equal(b.index.addRemote('http://x.test/1', 0, 0xfe), true);
    assert.equal(b.index.size, 2);
  });

  test('a node that owns every partition shares nothing', () => {
    const only = node('only', [0, 1], 2, 1);
    assert.equal(only.index.check('http://x.test/1', '00000000000000ff'), null);
    only.sharing.flush();
    assert.equal(only.sent.length, 0);
    assert.equal(only.sharing.counts.shared, 0);
  });

  test('refuses a batch size below 1', () => {
    const { exchange } = recordingExchange();
    assert.throws(
      () => new SimHashSharing({ nodeId: 'n', exchange, partitionCount: 2, partitions: [0], batchSize: 0, addRemote: () => true }),
      /batchSize/,
    );
  });
});
