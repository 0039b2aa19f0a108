/**
 * Cho's remedy for hash partitioning (SPEC §4.5; `src/order/pagerank.ts`, "Links other nodes saw";
 * `src/order/forward-links.ts`, "Pages other nodes fetched"): live embedded crawls of three
 * `host-hash` nodes, over loopback against the test web, with the in-memory exchange.
 *
 * - Ordered by `pagerank`, with link summaries every 100 ms, the nodes send summaries (the encoded
 *   link-summary bytes are counted), and each receiving node's PageRank policy takes the remote
 *   in-links in (the inbox's `remoteLinks` counter of the node's summary).
 * - With `cluster.linkSummaryIntervalMs: 0` none are sent and no policy takes any in.
 * - Ordered by `forward-links`, the summaries carry the out-degrees of the pages other nodes fetched,
 *   and they raise the priority of URLs queued on their owners (the inbox's `reprioritized`: the
 *   policy reads nothing else of a summary, so every such change comes from a remote out-degree).
 *   Without summaries no priority moves that way.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import type { OrderPolicyInput } from '../../src/order/registry.js';
import type { CrawlSummary } from '../../src/node/crawl-stats.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';

const WEB = {
  seed: 5,
  hosts: 18,
  pages: 600,
  seeds: 3,
  server: { addressCount: 18 },
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
};
let web: TestWeb;
let dir: string;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-cho-exchange-'));
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function crawl(
  name: string,
  linkSummaryIntervalMs: number,
  order: OrderPolicyInput = { policy: 'pagerank', recomputeEvery: 20 },
): Promise<readonly CrawlSummary[]> {
  const summary = await new Crawl({
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir: join(dir, name) },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1 },
    limits: { concurrency: 6, maxPages: 150 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    order,
    cluster: { nodes: 3, partition: { strategy: 'host-hash' }, linkSummaryIntervalMs },
  }).run();
  return summary.cluster?.nodes ?? [];
}

describe('pagerank ordering with link summaries (live, 3 embedded nodes)', () => {
  test('summaries carry the links other nodes saw to each node’s PageRank policy', async () => {
    const nodes = await crawl('with', 100);
    assert.equal(nodes.length, 3);
    let sent = 0;
    let bytes = 0;
    let taken = 0;
    for (const n of nodes) {
      const x = n.exchange;
      assert.ok(x !== undefined, 'a collaborative node reports its exchange');
      sent += x.endpoint.sent.linkSummaries;
      bytes += x.endpoint.sent.linkSummaryBytes;
      taken += x.inbox.remoteLinks;
      // Whatever a node received, its policy took in.
      if (x.inbox.linkSummaries > 0) assert.ok(x.inbox.remoteLinks > 0, `${n.outDir}: ${JSON.stringify(x.inbox)}`);
    }
    assert.ok(sent > 0 && bytes > 0, `summaries sent ${sent}, ${bytes} bytes`);
    assert.ok(taken > 0, `remote in-links taken in: ${taken}`);
  });

  test('without summaries no remote link reaches a policy', async () => {
    const nodes = await crawl('without', 0);
    for (const n of nodes) {
      assert.equal(n.exchange?.endpoint.sent.linkSummaries, 0);
      assert.equal(n.exchange?.inbox.remoteLinks, 0);
    }
    assert.ok(nodes.reduce((s, n) => s + n.pages, 0) > 0);
  });
});

describe('forward-links ordering with link summaries (live, 3 embedded nodes)', () => {
  test('remote out-degrees reach each node’s forward-links priorities', async () => {
    const nodes = await crawl('forward-with', 100, { policy: 'forward-links' });
    assert.equal(nodes.length, 3);
    let received = 0;
    let raised = 0;
    for (const n of nodes) {
      const x = n.exchange;
      assert.ok(x !== undefined, 'a collaborative node reports its exchange');
      received += x.inbox.linkSummaries;
      raised += x.inbox.reprioritized;
    }
    assert.ok(received > 0, `link summaries received: ${received}`);
    assert.ok(raised > 0, `queued URLs raised by remote out-degrees: ${raised}`);
  });

  test('without summaries no remote out-degree moves a priority', async () => {
    const nodes = await crawl('forward-without', 0, { policy: 'forward-links' });
    for (const n of nodes) {
      assert.equal(n.exchange?.inbox.linkSummaries, 0);
      assert.equal(n.exchange?.inbox.reprioritized, 0);
    }
    assert.ok(nodes.reduce((s, n) => s + n.pages, 0) > 0);
  });
});
