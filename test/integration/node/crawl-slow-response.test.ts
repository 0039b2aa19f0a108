/**
 * One slow response does not idle its host (issue 16): a crawl of one host on loopback where one
 * URL sends its head and then one byte a second, for ever. The fetch limits are the defaults
 * (body silence 30 s, whole fetch 120 s), which a drip never trips early; only the lowest transfer
 * rate (here 100 B/s over 1 s) and the cap on k × fetch time (here 1 s) keep the crawl short.
 *
 *     /    ──> /drip, /p1, /p2, /p3, /p4, /p5, /p6
 *     /pN  ──> /
 *     /drip   200, then 1 byte a second
 *     robots.txt: 404
 *
 * Expected: the seven ordinary pages fetched (ok), /drip requested once and logged too-slow with its
 * status and no WARC record, and the crawl ending on its own (exhausted). Without the rate rule the
 * drip holds the host's only connection for 120 s and then its other URLs for 5 × 120 s: the crawl
 * is stopped by this test after 30 s and fails.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import { startDripServer, type DripServer } from '../../helpers/drip-server.js';

const ORDINARY = ['/', '/p1', '/p2', '/p3', '/p4', '/p5', '/p6'];
/** Far beyond the few seconds the crawl takes; only a crawl held up by the drip reaches it. */
const GIVE_UP_MS = 30_000;

function page(path: string): string {
  const links = path === '/' ? ['/drip', ...ORDINARY.slice(1)] : ['/'];
  return `<!DOCTYPE html><html><head><title>page ${path}</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
}

let server: DripServer;
let origin: string;
let dir: string;
let summary: CrawlSummary;
const log: CrawlLogEntry[] = [];

before(async () => {
  server = await startDripServer((path) => {
    if (path === '/drip') return { kind: 'drip', bytesPerTick: 1, tickMs: 1000 };
    return ORDINARY.includes(path) ? { kind: 'whole', body: page(path) } : null;
  });
  origin = `http://drip.test:${server.port}`;
  dir = mkdtempSync(join(tmpdir(), 'shoal-slow-'));
  summary = await new Crawl({
    nodeId: 'slow',
    seeds: { urls: [`${origin}/`] },
    store: { outDir: dir },
    network: { resolve: ['drip.test=127.0.0.1'], allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 20, maxDelayMs: 1000 },
    fetch: { minBytesPerSecond: 100, minRateWindowMs: 1000 },
    limits: { concurrency: 4 },
    progressIntervalMs: 0,
    parse: { workers: 0 },
  }).run(AbortSignal.timeout(GIVE_UP_MS));
  for await (const entry of readCrawlLog(join(dir, 'crawl-log.jsonl'))) log.push(entry);
});

after(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a host with one dripping URL and seven ordinary pages', () => {
  test('the crawl ends on its own', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
  });

  test('every ordinary page is fetched', () => {
    const ok = log
      .filter((e) => e.outcome === 'ok')
      .map((e) => new URL(e.url).pathname)
      .sort();
    assert.deepEqual(ok, [...ORDINARY].sort());
    assert.deepEqual(summary.outcomes, { ok: 7, 'too-slow': 1 });
  });

  test('the drip ends as too-slow after one request, with its status and the rule in the log, and no WARC record', () => {
    const drip = log.filter((e) => e.url === `${origin}/drip`);
    assert.equal(drip.length, 1);
    const e = drip[0] as CrawlLogEntry;
    assert.equal(e.outcome, 'too-slow');
    assert.equal(e.status, 200);
    assert.equal(e.attempt, 1);
    assert.equal(e.warc, null);
    assert.match(e.reason ?? '', /^\d+ B in \d+(\.\d+)? ms < 100 B\/s over 1000 ms; \d+ B of body$/);
    assert.equal(server.requests.filter((p) => p === '/drip').length, 1, 'not retried');
  });
});
