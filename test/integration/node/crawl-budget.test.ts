/**
 * Crawl budgets against the test web: `scope.maxPagesPerHost` holds exactly per host (one connection
 * per host: no fetch of a host is in flight when its budget is checked), URLs past it end as
 * `over-budget` without a request (checked in the server's own request log), the counts survive a
 * second run on the same directory, `limits.maxPages` counts the crawl's pages over every run, and
 * `limits.maxBytes` stops the crawl.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { CrawlBudget } from '../../../src/node/durability/crawl-budget.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../../src/config/crawl-config.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { NO_FAULTS } from '../../helpers/test-web.js';

const WEB = {
  seed: 23,
  hosts: 12,
  pages: 600,
  seeds: 6,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  traps: { hostRate: 0 },
  faults: NO_FAULTS,
  robots: { serverErrorRate: 0, unavailableRate: 0, crawlDelayRate: 0 },
  duplicates: { mirrorHostRate: 0 },
} satisfies WebConfigInput;

let web: TestWeb;
let root: string;

before(async () => {
  web = await startTestWeb(WEB);
  root = mkdtempSync(join(tmpdir(), 'shoal-budget-'));
});

after(async () => {
  await web?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function crawl(out: string, extra: CrawlConfigInput) {
  const from = web.log.count;
  const summary = await new Crawl({
    nodeId: 'budget',
    seeds: { urls: [...web.seeds] },
    store: { outDir: out },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 8 },
    progressIntervalMs: 0,
    ...extra,
  }).run();
  const requests = web.log.entries().filter((r) => r.seq > from && r.path !== '/robots.txt');
  const log: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) log.push(e);
  return { summary, requests, log };
}

function pagesPerHost(requests: readonly { host: string }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of requests) m.set(r.host, (m.get(r.host) ?? 0) + 1);
  return m;
}

describe('crawl budgets', () => {
  test('maxPagesPerHost: at most that many requests per host, the rest over-budget without a request', async () => {
    const { summary, requests, log } = await crawl(join(root, 'hosts'), { scope: { maxPagesPerHost: 3 } });
    const perHost = pagesPerHost(requests);
    assert.ok(perHost.size >= 6, `${perHost.size} hosts`);
    for (const [host, n] of perHost) assert.ok(n <= 3, `${host}: ${n} requests`);
    assert.ok([...perHost.values()].some((n) => n === 3));
    const over = log.filter((e) => e.outcome === 'over-budget');
    assert.ok(over.length > 0, 'some URLs were over budget');
    assert.ok(over.every((e) => e.status === 0 && e.reason === 'host-page-limit' && e.warc === null));
    const requested = new Set(requests.map((r) => `http://${r.host}${r.path}`));
    for (const e of over) assert.equal(requested.has(e.url), false, `${e.url} was requested`);
    assert.equal(summary.stopReason, 'exhausted');
    const saved = JSON.parse(readFileSync(join(root, 'hosts', 'state', 'budget.json'), 'utf8')) as { pages: number };
    assert.equal(saved.pages, requests.length);
  });

  test('the counts survive a stop: a resumed crawl gives each host only what the first run left of its budget', async () => {
    const out = join(root, 'resume');
    const first = await crawl(out, { scope: { maxPagesPerHost: 4 }, limits: { concurrency: 8, maxPages: 12 } });
    assert.equal(first.summary.stopReason, 'max-pages');
    const second = await crawl(out, { scope: { maxPagesPerHost: 4 } });
    assert.equal(second.summary.stopReason, 'exhausted');
    const before = pagesPerHost(first.requests);
    const total = pagesPerHost([...first.requests, ...second.requests]);
    for (const [host, n] of total)
      assert.ok(n <= 4, `${host}: ${before.get(host) ?? 0} + ${n - (before.get(host) ?? 0)} requests over two runs`);
    assert.ok(second.requests.length > 0);
  });

  test('maxPages holds for the crawl, not the run: run again, it fetches nothing; raised, it fetches only the difference', async () => {
    const out = join(root, 'max-pages');
    const first = await crawl(out, { limits: { concurrency: 4, maxPages: 10 } });
    assert.equal(first.summary.stopReason, 'max-pages');
    assert.equal(first.requests.length, 10);
    const again = await crawl(out, { limits: { concurrency: 4, maxPages: 10 } });
    assert.equal(again.summary.stopReason, 'max-pages');
    assert.equal(again.requests.length, 0, 'the budget was spent by the first run');
    const raised = await crawl(out, { limits: { concurrency: 1, maxPages: 15 } });
    assert.equal(raised.summary.stopReason, 'max-pages');
    assert.equal(raised.requests.length, 5, 'five more pages, not fifteen');
    const saved = JSON.parse(readFileSync(join(out, 'state', 'budget.json'), 'utf8')) as { pagesFetched: number };
    assert.equal(saved.pagesFetched, 15);
  });

  test('maxBytes: the crawl stops once that many body bytes were downloaded', async () => {
    const { summary, requests } = await crawl(join(root, 'bytes'), { limits: { concurrency: 1, maxBytes: 60_000 } });
    assert.equal(summary.stopReason, 'max-bytes');
    assert.ok(summary.bytes >= 60_000, `${summary.bytes} bytes`);
    // One fetch at a time: the page that passed the limit is the last one.
    assert.ok(summary.bytes - 60_000 < 200_000 && requests.length < 40, `${requests.length} requests`);
  });

  test('a corrupt budget file is a clear error, not a silent reset', () => {
    const path = join(root, 'budget.json');
    writeFileSync(path, '{"pages": 3');
    const isCorrupt = (err: unknown): boolean => err instanceof ShoalError && err.code === 'IO' && /corrupt/.test(err.message);
    assert.throws(() => CrawlBudget.open(path, { maxPagesPerHost: 2, maxBytes: null }, 0), isCorrupt);
    assert.throws(
      () => CrawlBudget.open(path, { maxPagesPerHost: null, maxBytes: null }, 0),
      isCorrupt,
      'the page count is kept without limits too',
    );
  });
});
