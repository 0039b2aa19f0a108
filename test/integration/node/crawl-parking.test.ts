/**
 * Frontier parking in a real crawl (`frontier.memoryUrlsPerHost`, src/frontier-store/README.md):
 * a test web of 3 hosts and 300 pages, crawled over loopback until 30 pages, so that each host has
 * far more than 16 URLs queued. Under breadth-first order (null: the node's rule) a host's URLs
 * beyond 16 are parked on disk, in priority bands under a priority order; and a resumed crawl takes
 * the parked URLs back from the log and fetches every one of them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { CRAWL_LOG_FILE, readCrawlLog } from '../../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-crawl-parking-');
let web: TestWeb;

before(async () => {
  web = await startTestWeb({ seed: 5, hosts: 3, pages: 300, seeds: 3, server: { addressCount: 3 }, traps: { hostRate: 0 } });
});

after(async () => {
  await web?.close();
});

function crawl(
  outDir: string,
  extra: { order?: { policy: 'bfs' | 'backlink' }; memoryUrlsPerHost?: number; maxPages?: number | null } = {},
): Promise<CrawlSummary> {
  return new Crawl({
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 4, maxPages: extra.maxPages === undefined ? 30 : extra.maxPages },
    ...(extra.order === undefined ? {} : { order: extra.order }),
    ...(extra.memoryUrlsPerHost === undefined ? {} : { frontier: { memoryUrlsPerHost: extra.memoryUrlsPerHost } }),
    progressIntervalMs: 0,
  }).run();
}

/** The URLs the crawl log records as fetched (`ok`), in order. */
async function fetched(outDir: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const e of readCrawlLog(join(outDir, CRAWL_LOG_FILE))) if (e.outcome === 'ok') urls.push(e.url);
  return urls;
}

describe('frontier parking in a crawl of the test web', () => {
  test("breadth-first: beyond 16 URLs a host's URLs are parked; a resumed crawl fetches every one of them", async () => {
    const out = join(root, 'bfs');
    const first = await crawl(out);
    const left = first.frontierLeft;
    assert.ok(left.queued > 3 * 16, `the test needs hosts with more than 16 URLs queued: ${JSON.stringify(left)}`);
    // A host with parked URLs holds 16 in slots.
    assert.ok(left.parked > 0 && left.parked <= left.queued - 16, `parked ${left.parked} of ${left.queued}`);
    const second = await crawl(out, { maxPages: null });
    assert.deepEqual(second.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    const urls = await fetched(out);
    assert.equal(new Set(urls).size, urls.length, 'no page fetched twice across the stop and the resume');
    assert.ok(
      second.urls >= left.queued,
      `every URL left, parked ones included, has an outcome in the resumed crawl: ${second.urls} of ${left.queued}`,
    );
  });

  test('a priority order parks too, in priority bands, beyond the same share (or the one configured)', async () => {
    const ranked = await crawl(join(root, 'backlink'), { order: { policy: 'backlink' } });
    const left = ranked.frontierLeft;
    assert.ok(left.queued > 3 * 16);
    assert.ok(left.parked > 0 && left.parked <= left.queued - 16, `parked ${left.parked} of ${left.queued}`);
    const configured = await crawl(join(root, 'backlink-4'), { order: { policy: 'backlink' }, memoryUrlsPerHost: 4 });
    assert.ok(configured.frontierLeft.parked > left.parked, JSON.stringify(configured.frontierLeft));
  });
});
