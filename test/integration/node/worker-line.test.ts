/**
 * The line in front of the parse workers (`parse.maxBytesInWorkers`, issue 22) in whole crawls: a
 * site of large pages crawled eight fetches at a time, once with a line that lets one task into the
 * worker at a time (0 bytes) and once with the default, writes the same pages, links and records.
 * The one-at-a-time worker is built from the configuration as the node builds its own, and given to
 * the crawl so that the test can see its line; its WARC records go through the same line as its
 * pages.
 *
 *     /      -> /p0 .. /p3
 *     /pK    -> /pK-0 .. /pK-3       (20 pages of about 300 KB in all)
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import { WorkerPageAnalyzer } from '../../../src/node/analysis/page-analyzer.js';
import { analyzerOf } from '../../../src/node/build-node.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { startDripServer, type DripServer } from '../../helpers/drip-server.js';
import { capturesOf, linksOf, pagesOf } from '../../helpers/crawl-outputs.js';
import { scratchDirs } from '../../helpers/scratch.js';

const WORDS = 'harbour pier tide ferry lighthouse chart anchor rope sail keel mast buoy'.split(' ');

/** A page of about 300 KB: its links, then paragraphs of words that differ from page to page. */
function pageOf(path: string): string | null {
  const depth = path === '/' ? 0 : path.split('-').length;
  if (path !== '/' && !/^\/p\d(-\d)?$/.test(path)) return null;
  const children = depth >= 2 ? [] : [0, 1, 2, 3].map((k) => (path === '/' ? `/p${k}` : `${path}-${k}`));
  const links = children.map((c) => `<a href="${c}">the ${c} page of the harbour</a>`).join(' ');
  let seed = [...path].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7);
  const paragraphs: string[] = [];
  for (let size = 0; size < 300_000;) {
    const words = Array.from({ length: 40 }, () => {
      seed = (seed * 1103515245 + 12345) | 0;
      return WORDS[(seed >>> 16) % WORDS.length];
    });
    const p = `<p>${words.join(' ')}.</p>\n`;
    paragraphs.push(p);
    size += p.length;
  }
  return `<!doctype html><title>Page ${path}</title><nav>${links}</nav>${paragraphs.join('')}`;
}

const { root } = scratchDirs('shoal-worker-line-');
let server: DripServer;

async function crawl(name: string, analyzer?: WorkerPageAnalyzer): Promise<{ dir: string; summary: CrawlSummary }> {
  const dir = join(root, name);
  const summary = await new Crawl(
    {
      seeds: { urls: [`http://127.0.0.1:${server.port}/`] },
      store: { outDir: dir },
      network: { allowLoopback: true },
      politeness: { minDelayMs: 0, delayFactor: 0, maxConnectionsPerHost: 8, maxConnectionsPerIp: 8 },
      limits: { concurrency: 8 },
      parse: { workers: 1 },
      progressIntervalMs: 0,
    },
    analyzer === undefined ? {} : { components: { analyzer } },
  ).run(AbortSignal.timeout(60_000));
  return { dir, summary };
}

let oneAtATime: Awaited<ReturnType<typeof crawl>>;
let byDefault: Awaited<ReturnType<typeof crawl>>;
/** The most tasks that waited in the one-at-a-time worker's line at once. */
let mostWaiting = 0;

before(async () => {
  server = await startDripServer((path) => {
    const body = pageOf(path);
    return body === null ? null : { kind: 'whole', body };
  });
  const analyzer = analyzerOf(crawlConfigSchema.parse({ parse: { workers: 1, maxBytesInWorkers: 0 } }));
  assert.ok(analyzer instanceof WorkerPageAnalyzer);
  const watch = setInterval(() => (mostWaiting = Math.max(mostWaiting, analyzer.tasksWaiting)), 1);
  try {
    oneAtATime = await crawl('one-at-a-time', analyzer);
  } finally {
    clearInterval(watch);
    await analyzer.close();
  }
  byDefault = await crawl('default');
});

after(async () => {
  await server?.close();
});

describe('the line in front of the parse workers, in a crawl of large pages', () => {
  test('one task at a time crawls the whole site, as the default does', () => {
    for (const { summary } of [oneAtATime, byDefault]) {
      assert.equal(summary.stopReason, 'exhausted');
      assert.equal(summary.pages, 21);
    }
    assert.equal(server.requests.filter((r) => r.startsWith('/p1-')).length, 8, 'each crawl fetched /p1-0 .. /p1-3 once');
    assert.ok(mostWaiting >= 2, `the line held pages back (at most ${mostWaiting} waited at once)`);
  });

  test('pages.jsonl, the link graph and the WARC index hold the same, whatever the line', async () => {
    const pages = pagesOf(oneAtATime.dir);
    assert.equal(pages.length, 21);
    assert.deepEqual(pages, pagesOf(byDefault.dir));
    const links = await linksOf(oneAtATime.dir);
    assert.equal(links.filter((l) => l.includes(': the /p2-3 page of the harbour')).length, 1);
    assert.deepEqual(links, await linksOf(byDefault.dir));
    const captures = capturesOf(oneAtATime.dir);
    assert.equal(captures.length, 21);
    assert.deepEqual(captures, capturesOf(byDefault.dir));
  });
});
