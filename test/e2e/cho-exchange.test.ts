/**
 * Cho's remedy for hash partitioning (SPEC §4.5; `src/order/pagerank.ts`, "Links other nodes saw"):
 * a live embedded crawl of three `host-hash` nodes ordered by `pagerank`, over loopback against the
 * test web, with the in-memory exchange.
 *
 * - With link summaries every 100 ms, the nodes send summaries (the encoded link-summary bytes are
 *   counted), and each receiving node's PageRank policy takes the remote in-links in (the inbox's
 *   `remoteLinks` counter of the node's summary).
 * - With `cluster.linkSummaryIntervalMs: 0` none are sent and no policy takes any in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
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

async function crawl(name: string, linkSummaryIntervalMs: number): Promise<readonly CrawlSummary[]> {
  const summary = await new Crawl({
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir: join(dir, name) },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1 },
    limits: { concurrency: 6, maxPages: 150 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    order: { policy: 'pagerank', recomputeEvery: 20 },
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
