/**
 * The end-of-crawl summary of `shoal crawl` (src/cli/crawl-summary-text.ts): the duplicate line
 * counts exact and near-duplicates, and a re-crawl adds a line of what its revisits found; the
 * counts of a collaborative crawl are its nodes' added up (src/cluster/cluster-summary.ts), and
 * its link summaries and shared fingerprints get a line when the nodes received any.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summaryText } from '../../../src/cli/crawl-summary-text.js';
import { combineSummaries } from '../../../src/cluster/cluster-summary.js';
import type { CrawlSummary, NodeExchangeSummary } from '../../../src/node/crawl-stats.js';
import { MessageCounter } from '../../../src/exchange/message-counter.js';
import { noInboxCounts } from '../../../src/node/collaboration/inbox.js';

function node(name: string, counts: Partial<CrawlSummary>): CrawlSummary {
  return {
    node: name,
    outDir: `/tmp/${name}`,
    order: { id: 'bfs', params: {} },
    stopReason: 'exhausted',
    elapsedMs: 2000,
    urls: 10,
    pages: 10,
    pagesPerSecond: 5,
    bytes: 1000,
    bytesPerSecond: 500,
    outcomes: { ok: 10 },
    requests: 11,
    robotsRequests: 1,
    retries: 0,
    duplicates: 0,
    revisits: 0,
    nearDuplicates: 0,
    analysisFailures: 0,
    links: { found: 0, invalid: 0, notFollowed: 0, seenBefore: 0, robotsDenied: 0, queued: 0, routed: 0, received: 0, filtered: {} },
    sitemaps: { documents: 0, urls: 0, children: 0, problems: 0 },
    hosts: 1,
    frontierLeft: { queued: 0, inFlight: 0, parked: 0 },
    seenUrls: 10,
    warcFiles: [],
    unreachableHosts: [],
    cutSpaces: [],
    ...counts,
  };
}

/** A node's exchange counters with what its inbox received. */
function exchange(inbox: Partial<NodeExchangeSummary['inbox']>): NodeExchangeSummary {
  const none = new MessageCounter().snapshot();
  return {
    partitions: [0],
    endpoint: { sent: none, received: { ...none, invalid: 0 }, unconfirmed: 0 },
    router: { kept: 0, sent: 0, cached: 0 },
    inbox: { ...noInboxCounts(), ...inbox },
  };
}

const RECRAWL = { scheduled: 8, queued: 20, notModified: 12, unchanged: 3, changed: 5 };

describe('crawl summary text', () => {
  it('counts exact and near-duplicates on one line', () => {
    const text = summaryText(node('a', { duplicates: 4, revisits: 3, nearDuplicates: 7 }));
    assert.match(text, /^ {2}duplicates {2}4 exact \(3 written as revisit records\), 7 near-duplicates marked$/m);
  });

  it('has a revisits line only when the re-crawl is on', () => {
    assert.doesNotMatch(summaryText(node('a', {})), /revisits {4}/);
    assert.match(
      summaryText(node('a', { recrawl: RECRAWL })),
      /^ {2}revisits {4}20 queued: 5 changed, 3 unchanged, 12 not modified \(304\); 8 pages scheduled$/m,
    );
  });

  it("adds up the nodes' counts in a collaborative crawl", () => {
    const nodes = [node('a', { nearDuplicates: 2, recrawl: RECRAWL }), node('b', { nearDuplicates: 5 }), node('c', { recrawl: RECRAWL })];
    const all = combineSummaries('all', '/tmp/all', 'exhausted', 2000, nodes);
    assert.equal(all.nearDuplicates, 7);
    assert.deepEqual(all.recrawl, { scheduled: 16, queued: 40, notModified: 24, unchanged: 6, changed: 10 });
    assert.equal(combineSummaries('all', '/tmp/all', 'exhausted', 2000, [node('a', {})]).recrawl, undefined);
  });

  it('has a line of what the nodes shared only when they received summaries or fingerprints', () => {
    const cluster = (nodes: CrawlSummary[]): CrawlSummary => ({
      ...node('all', {}),
      cluster: { partitioner: { id: 'url-hash', params: {} }, nodes },
    });
    const quiet = summaryText(cluster([node('a', { exchange: exchange({ urls: 40 }) }), node('b', {})]));
    assert.match(quiet, /^ {2}exchange {4}/m);
    assert.doesNotMatch(quiet, /shared/);
    const text = summaryText(
      cluster([
        node('a', { exchange: exchange({ linkSummaries: 3, reprioritized: 10, simhashes: 40, simhashesTaken: 38 }) }),
        node('b', { exchange: exchange({ linkSummaries: 2, reprioritized: 1, simhashes: 1_200, simhashesTaken: 1_000 }) }),
      ]),
    );
    assert.match(
      text,
      /^ {2}shared {6}5 link summaries received \(11 queued URLs reprioritized\), 1,240 page fingerprints \(1,038 new to a near-duplicate index\)$/m,
    );
  });
});
