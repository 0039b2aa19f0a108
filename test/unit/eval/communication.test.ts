/**
 * Communication overhead (URLs exchanged per downloaded page, SPEC §5, seed 003 §4), forwarded pages,
 * and the exported / imported data ratios of seed 000 §3, on counters chosen by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeCrawl, NodeExchangeCounts } from '../../../src/eval/collab-input.js';
import { communicationOverhead, exchangeRatio } from '../../../src/eval/communication.js';

const NONE: NodeExchangeCounts = {
  urlsSent: 0,
  urlsReceived: 0,
  pagesSent: 0,
  pagesReceived: 0,
  pageBytesSent: 0,
  pageBytesReceived: 0,
  bytesSent: 0,
  bytesReceived: 0,
};

function crawl(node: string, sizes: number[], exchange: Partial<NodeExchangeCounts>): NodeCrawl {
  return {
    node,
    downloads: sizes.map((bytes, i) => ({ url: `http://${node}.test/${i}`, host: `${node}.test`, bytes })),
    exchange: { ...NONE, ...exchange },
  };
}

// A downloaded 3 pages (100 + 200 + 300 = 600 bytes), sent 10 URLs and forwarded 1 page of 250 bytes;
// B downloaded 1 page (400 bytes) and received that page; C downloaded nothing.
const a = crawl('a', [100, 200, 300], {
  urlsSent: 10,
  urlsReceived: 4,
  pagesSent: 1,
  pageBytesSent: 250,
  bytesSent: 300,
  bytesReceived: 150,
});
const b = crawl('b', [400], { urlsSent: 2, urlsReceived: 7, pagesReceived: 1, pageBytesReceived: 250, bytesSent: 90, bytesReceived: 330 });
const c = crawl('c', [], { urlsReceived: 1, bytesSent: 20, bytesReceived: 10 });

describe('communicationOverhead', () => {
  it('sums the counters and divides by the pages downloaded', () => {
    // N = 3 + 1 + 0 = 4; U = 10 + 2 + 0 = 12 → 12/4 = 3 URLs per page; received 4 + 7 + 1 = 12.
    // Pages forwarded: 1 of 250 bytes → 1/4 = 0.25 per page.
    // All bytes: sent 300 + 90 + 20 = 410, received 150 + 330 + 10 = 490, downloaded 600 + 400 = 1000
    // → exported 0.41, imported 0.49.
    assert.deepEqual(communicationOverhead([a, b, c]), {
      downloads: 4,
      downloadedBytes: 1000,
      urlsSent: 12,
      urlsReceived: 12,
      urlsPerPage: 3,
      pagesSent: 1,
      pagesReceived: 1,
      pageBytesSent: 250,
      pageBytesReceived: 250,
      pagesForwardedPerPage: 0.25,
      bytesSent: 410,
      bytesReceived: 490,
      exportedRatio: 0.41,
      importedRatio: 0.49,
    });
  });

  it('gives null ratios when nothing was downloaded', () => {
    // Only C: N = 0 and 0 bytes downloaded, yet it sent 20 and received 10 bytes.
    assert.deepEqual(communicationOverhead([c]), {
      downloads: 0,
      downloadedBytes: 0,
      urlsSent: 0,
      urlsReceived: 1,
      urlsPerPage: null,
      pagesSent: 0,
      pagesReceived: 0,
      pageBytesSent: 0,
      pageBytesReceived: 0,
      pagesForwardedPerPage: null,
      bytesSent: 20,
      bytesReceived: 10,
      exportedRatio: null,
      importedRatio: null,
    });
  });

  it('is all zeros and nulls with no nodes', () => {
    assert.deepEqual(communicationOverhead([]), {
      downloads: 0,
      downloadedBytes: 0,
      urlsSent: 0,
      urlsReceived: 0,
      urlsPerPage: null,
      pagesSent: 0,
      pagesReceived: 0,
      pageBytesSent: 0,
      pageBytesReceived: 0,
      pagesForwardedPerPage: null,
      bytesSent: 0,
      bytesReceived: 0,
      exportedRatio: null,
      importedRatio: null,
    });
  });
});

describe('exchangeRatio', () => {
  it('divides the bytes a node sent and received by the bytes it downloaded', () => {
    // A: 300/600 = 0.5 exported, 150/600 = 0.25 imported.  B: 90/400 = 0.225, 330/400 = 0.825.
    assert.deepEqual(exchangeRatio(a), { node: 'a', downloadedBytes: 600, exportedRatio: 0.5, importedRatio: 0.25 });
    assert.deepEqual(exchangeRatio(b), { node: 'b', downloadedBytes: 400, exportedRatio: 0.225, importedRatio: 0.825 });
  });

  it('is null for a node that downloaded 0 bytes, with or without pages', () => {
    assert.deepEqual(exchangeRatio(c), { node: 'c', downloadedBytes: 0, exportedRatio: null, importedRatio: null });
    // Two empty bodies: 2 pages, 0 bytes.
    const empty = crawl('e', [0, 0], { bytesSent: 5 });
    assert.deepEqual(exchangeRatio(empty), { node: 'e', downloadedBytes: 0, exportedRatio: null, importedRatio: null });
  });

  it('reaches the (n − 1)/n of seed 000 §3 when a node exports all but its own share', () => {
    // n = 4, a node downloads 4 pages of 100 bytes and forwards the 3 that hash elsewhere, and
    // receives 3 of the same size: exported = imported = 300/400 = 3/4.
    const node = crawl('h', [100, 100, 100, 100], { pagesSent: 3, pagesReceived: 3, bytesSent: 300, bytesReceived: 300 });
    assert.deepEqual(exchangeRatio(node), { node: 'h', downloadedBytes: 400, exportedRatio: 0.75, importedRatio: 0.75 });
  });
});
