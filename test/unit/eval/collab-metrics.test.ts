/**
 * Every collaboration metric of SPEC §5 from one hand-built 3-node crawl, each number worked out in
 * the comments, and the plain-text table that shows them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { collaborationMetrics, type CollaborationMetrics, type CrawlLinks, type NodeCrawl } from '../../../src/eval/collab-metrics.js';
import { formatCollabTable } from '../../../src/eval/collab-table.js';

function page(url: string, bytes: number) {
  return { url, host: new URL(url).host, bytes };
}

// Downloads (URL, bytes):
//   a: h1/1 1000, h1/2 2000, h2/1 3000                      3 pages, 6,000 bytes
//   b: h2/1 3000, h3/1 1000                                 2 pages, 4,000 bytes
//   c: h3/2 500, h3/2 500 (fetched twice), off/1 3000, h1/1 1000   4 pages, 5,000 bytes
// Exchange counters (URLs sent/received, pages sent/received, page bytes sent/received, bytes sent/received):
//   a: 12 / 5,  1 / 0,  800 / 0,    1500 / 300
//   b:  4 / 9,  0 / 1,    0 / 800,   400 / 1500
//   c:  2 / 3,  0 / 0,    0 / 0,     100 / 200
const nodes: NodeCrawl[] = [
  {
    node: 'a',
    downloads: [page('http://h1/1', 1000), page('http://h1/2', 2000), page('http://h2/1', 3000)],
    exchange: {
      urlsSent: 12,
      urlsReceived: 5,
      pagesSent: 1,
      pagesReceived: 0,
      pageBytesSent: 800,
      pageBytesReceived: 0,
      bytesSent: 1500,
      bytesReceived: 300,
    },
  },
  {
    node: 'b',
    downloads: [page('http://h2/1', 3000), page('http://h3/1', 1000)],
    exchange: {
      urlsSent: 4,
      urlsReceived: 9,
      pagesSent: 0,
      pagesReceived: 1,
      pageBytesSent: 0,
      pageBytesReceived: 800,
      bytesSent: 400,
      bytesReceived: 1500,
    },
  },
  {
    node: 'c',
    downloads: [page('http://h3/2', 500), page('http://h3/2', 500), page('http://off/1', 3000), page('http://h1/1', 1000)],
    exchange: {
      urlsSent: 2,
      urlsReceived: 3,
      pagesSent: 0,
      pagesReceived: 0,
      pageBytesSent: 0,
      pageBytesReceived: 0,
      bytesSent: 100,
      bytesReceived: 200,
    },
  },
];

// Target Web: 8 pages, of which h1/1, h1/2, h2/1, h3/1, h3/2 were downloaded (off/1 is not in it).
const target = ['http://h1/1', 'http://h1/2', 'http://h2/1', 'http://h3/1', 'http://h3/2', 'http://h3/3', 'http://h5/1', 'http://h5/2'];

// Owners: h1/1 {a, c}, h1/2 {a}, h2/1 {a, b}, h3/1 {b}, h3/2 {c}, off/1 {c}; h5/1 nobody.
// Three link graphs, each over its own URL dictionary:
const links: CrawlLinks[] = [
  {
    // a's: h1/1→h1/2 local (a), h1/1→h2/1 local (a), h1/2→h5/1 unowned, h2/1→h2/1 self, h1/2→h1/1 local (a)
    urls: ['http://h1/1', 'http://h1/2', 'http://h2/1', 'http://h5/1'],
    from: Uint32Array.from([0, 0, 1, 2, 1]),
    to: Uint32Array.from([1, 2, 3, 2, 0]),
  },
  {
    // b's: h2/1→h3/1 local (b), h3/1→h1/1 remote ({b} vs {a, c}), h2/1→h1/1 local (a)
    urls: ['http://h2/1', 'http://h3/1', 'http://h1/1'],
    from: [0, 1, 0],
    to: [1, 2, 2],
  },
  {
    // c's: h3/2→off/1 local (c), h1/1→h1/2 duplicate of a's, off/1→h1/2 remote ({c} vs {a}), h3/2→h1/1 local (c)
    urls: ['http://h3/2', 'http://off/1', 'http://h1/1', 'http://h1/2'],
    from: [0, 2, 1, 0],
    to: [1, 3, 3, 2],
  },
];

describe('collaborationMetrics', () => {
  it('computes every number of a crawl with known exchanges', () => {
    // Overlap: N = 3 + 2 + 4 = 9, I = |{h1/1, h1/2, h2/1, h3/1, h3/2, off/1}| = 6 → (9 − 6)/9 = 1/3.
    // Histogram: h1/1 (a, c) and h2/1 (a, b) by 2 nodes; the other 4 by 1 (c's two h3/2 count once).
    // Coverage: 5 of 8 target pages → 0.625; missed h3/3, h5/1, h5/2 = 3; off target off/1 = 1.
    // Diversity: hosts h1, h2, h3, off = 4 → 4/9.
    // Communication: U = 12 + 4 + 2 = 18 → 18/9 = 2 URLs per page; received 5 + 9 + 3 = 17 (one in flight).
    //   Pages forwarded 1 (800 bytes), received 1 (800 bytes) → 1/9 per page.
    //   Bytes sent 1500 + 400 + 100 = 2000, received 300 + 1500 + 200 = 2000, downloaded 15,000
    //   → exported = imported = 2000/15000.
    // Per node ratios: a 1500/6000 = 0.25, 300/6000 = 0.05; b 400/4000 = 0.1, 1500/4000 = 0.375;
    //   c 100/5000 = 0.02, 200/5000 = 0.04.
    // Load: pages 3, 2, 4 → total 9, mean 3, max 4, min 2, max/mean 4/3;
    //   bytes 6000, 4000, 5000 → total 15,000, mean 5000, max 6000, min 4000, max/mean 1.2.
    // p_l: 5 + 3 + 4 = 12 links; 1 self-link, 1 unowned, 1 duplicate → 9 distinct pairs;
    //   local 3 (a's) + 2 (b's) + 2 (c's) = 7 → 7/9.
    const expected: CollaborationMetrics = {
      nodeCount: 3,
      nodes: [
        {
          node: 'a',
          pages: 3,
          bytes: 6000,
          exportedRatio: 0.25,
          importedRatio: 0.05,
          urlsSent: 12,
          urlsReceived: 5,
          pagesSent: 1,
          pagesReceived: 0,
          pageBytesSent: 800,
          pageBytesReceived: 0,
          bytesSent: 1500,
          bytesReceived: 300,
        },
        {
          node: 'b',
          pages: 2,
          bytes: 4000,
          exportedRatio: 0.1,
          importedRatio: 0.375,
          urlsSent: 4,
          urlsReceived: 9,
          pagesSent: 0,
          pagesReceived: 1,
          pageBytesSent: 0,
          pageBytesReceived: 800,
          bytesSent: 400,
          bytesReceived: 1500,
        },
        {
          node: 'c',
          pages: 4,
          bytes: 5000,
          exportedRatio: 0.02,
          importedRatio: 0.04,
          urlsSent: 2,
          urlsReceived: 3,
          pagesSent: 0,
          pagesReceived: 0,
          pageBytesSent: 0,
          pageBytesReceived: 0,
          bytesSent: 100,
          bytesReceived: 200,
        },
      ],
      overlap: { downloads: 9, uniquePages: 6, overlap: 1 / 3 },
      overlapHistogram: [0, 4, 2, 0],
      coverage: { targetPages: 8, coveredPages: 5, missedPages: 3, offTargetPages: 1, coverage: 0.625 },
      diversity: { downloads: 9, hosts: 4, diversity: 4 / 9 },
      communication: {
        downloads: 9,
        downloadedBytes: 15000,
        urlsSent: 18,
        urlsReceived: 17,
        urlsPerPage: 2,
        pagesSent: 1,
        pagesReceived: 1,
        pageBytesSent: 800,
        pageBytesReceived: 800,
        pagesForwardedPerPage: 1 / 9,
        bytesSent: 2000,
        bytesReceived: 2000,
        exportedRatio: 2 / 15,
        importedRatio: 2 / 15,
      },
      loadBalance: {
        pages: { total: 9, mean: 3, max: 4, min: 2, maxOverMean: 4 / 3 },
        bytes: { total: 15000, mean: 5000, max: 6000, min: 4000, maxOverMean: 1.2 },
      },
      linkLocality: { links: 12, selfLinks: 1, unowned: 1, duplicates: 1, pairs: 9, localPairs: 7, pl: 7 / 9 },
    };
    const got = collaborationMetrics({ nodes, target: new Set(target), links });
    assert.deepEqual(got, expected);
    // Plain JSON: nothing is lost on a round trip (no NaN, Infinity, undefined or typed arrays).
    assert.deepEqual(JSON.parse(JSON.stringify(got)), expected);
  });

  it('leaves coverage and p_l null without a target or links', () => {
    const got = collaborationMetrics({ nodes });
    assert.equal(got.coverage, null);
    assert.equal(got.linkLocality, null);
    assert.equal(got.overlap.overlap, 1 / 3);
  });

  it('handles a crawl with no nodes', () => {
    assert.deepEqual(collaborationMetrics({ nodes: [], target: ['http://h1/1'], links: [] }), {
      nodeCount: 0,
      nodes: [],
      overlap: { downloads: 0, uniquePages: 0, overlap: 0 },
      overlapHistogram: [0],
      coverage: { targetPages: 1, coveredPages: 0, missedPages: 1, offTargetPages: 0, coverage: 0 },
      diversity: { downloads: 0, hosts: 0, diversity: null },
      communication: {
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
      },
      loadBalance: {
        pages: { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null },
        bytes: { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null },
      },
      linkLocality: { links: 0, selfLinks: 0, unowned: 0, duplicates: 0, pairs: 0, localPairs: 0, pl: null },
    });
  });

  it('keeps two links to pages nobody downloaded apart (no false self-link)', () => {
    // One link set: h5/1 → h5/2, both unowned: 1 unowned, not a self-link.
    const got = collaborationMetrics({ nodes, links: [{ urls: ['http://h5/1', 'http://h5/2'], from: [0], to: [1] }] });
    assert.deepEqual(got.linkLocality, { links: 1, selfLinks: 0, unowned: 1, duplicates: 0, pairs: 0, localPairs: 0, pl: null });
  });

  it('rejects a link naming a URL id outside its dictionary', () => {
    assert.throws(() => collaborationMetrics({ nodes, links: [{ urls: ['http://h1/1'], from: [0], to: [1] }] }), RangeError);
    assert.throws(() => collaborationMetrics({ nodes, links: [{ urls: ['http://h1/1'], from: [0, 0], to: [0] }] }), RangeError);
  });
});

describe('formatCollabTable', () => {
  it('shows the per-node rows and the key figures', () => {
    const text = formatCollabTable(collaborationMetrics({ nodes, target, links }));
    // Columns: node, pages, bytes, exported, imported, URLs sent, URLs recv, pages sent, pages recv.
    assert.match(text, /^collaboration metrics, 3 nodes$/m);
    assert.match(text, /^node\s+pages\s+bytes\s+exported\s+imported\s+URLs sent\s+URLs recv\s+pages sent\s+pages recv$/m);
    assert.match(text, /^a\s+3\s+6,000\s+0\.2500\s+0\.0500\s+12\s+5\s+1\s+0$/m);
    assert.match(text, /^b\s+2\s+4,000\s+0\.1000\s+0\.3750\s+4\s+9\s+0\s+1$/m);
    assert.match(text, /^c\s+4\s+5,000\s+0\.0200\s+0\.0400\s+2\s+3\s+0\s+0$/m);
    assert.match(text, /^total\s+9\s+15,000\s+0\.1333\s+0\.1333\s+18\s+17\s+1\s+1$/m);
    assert.match(text, /^overlap\s+0\.3333 {2}\(9 downloads, 6 distinct pages\)$/m);
    assert.match(text, /^coverage\s+0\.6250 {2}\(5 of 8 target pages; 3 missed; 1 off target\)$/m);
    assert.match(text, /^diversity\s+0\.4444 {2}\(4 hosts \/ 9 downloads\)$/m);
    assert.match(text, /^communication overhead\s+2\.0000 URLs per page {2}\(18 sent, 17 received\)$/m);
    assert.match(text, /^pages forwarded\s+0\.1111 per page {2}\(1 sent, 1 received; 800 bytes sent, 800 received\)$/m);
    assert.match(text, /^exported \/ imported\s+0\.1333 \/ 0\.1333 {2}\(2,000 bytes sent, 2,000 received, 15,000 downloaded\)$/m);
    assert.match(
      text,
      /^load balance\s+pages max\/mean 1\.3333 \(max 4, mean 3\.00\); bytes max\/mean 1\.2000 \(max 6,000, mean 5,000\.00\)$/m,
    );
    assert.match(text, /^p_l\s+0\.7778 {2}\(7 local of 9 pairs; skipped 1 self-links, 1 unowned, 1 duplicates\)$/m);
    assert.match(text, /^overlap histogram\s+1 node: 4, 2 nodes: 2, 3 nodes: 0$/m);
  });

  it('says n/a for what could not be computed', () => {
    const text = formatCollabTable(collaborationMetrics({ nodes: [{ ...(nodes[2] as NodeCrawl), downloads: [] }] }));
    assert.match(text, /^collaboration metrics, 1 node$/m);
    assert.match(text, /^c\s+0\s+0\s+n\/a\s+n\/a\s+2\s+3\s+0\s+0$/m);
    assert.match(text, /^coverage\s+n\/a {2}\(no target given\)$/m);
    assert.match(text, /^diversity\s+n\/a /m);
    assert.match(text, /^p_l\s+n\/a {2}\(no links given\)$/m);
    assert.match(text, /^overlap histogram\s+1 node: 0$/m);
  });
});
