/**
 * A crawl whose only host answers its first two robots.txt requests with 503 (RFC 9309 §2.3.1.4:
 * complete disallow meanwhile), then with rules: while the host's URLs wait, each progress event
 * names the host, its answer and when the next try comes, and each failure is a `robots-unavailable`
 * warning in the node's log; once robots.txt answers, the pages are fetched and the crawl ends.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { diagnosticsEvents, type CrawlProgress } from '../../../src/obs/events.js';

const RETRY_MS = 400;
let server: Server;
let origin: string;
let dir: string;
let summary: CrawlSummary;
let robotsRequests = 0;
const progress: CrawlProgress[] = [];

before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      robotsRequests++;
      if (robotsRequests <= 2) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/' ? '<a href="/a">a</a> <a href="/b">b</a>' : 'leaf');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'shoal-robots-waiting-'));
  summary = await new Crawl(
    {
      nodeId: 'robots-waiting',
      seeds: { urls: [`${origin}/`] },
      store: { outDir: dir },
      network: { allowLoopback: true },
      politeness: { minDelayMs: 10 },
      robots: { retryMs: RETRY_MS, maxAttempts: 5 },
      progressIntervalMs: 50,
    },
    { deps: { events: { fetch: (r) => diagnosticsEvents.fetch(r), progress: (p) => progress.push(p) } } },
  ).run();
});

after(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a robots.txt answered with 503', () => {
  test('holds the host until robots.txt answers, then the crawl fetches its pages and ends', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.equal(summary.pages, 3);
    assert.equal(robotsRequests, 3);
  });

  test('each progress event while the host waits names it, its answer and the next try', () => {
    const waiting = progress.filter((p) => p.robotsWaiting !== undefined);
    assert.ok(waiting.length > 0, `${progress.length} progress events, none with a host waiting`);
    for (const p of waiting) {
      assert.equal(p.robotsWaiting?.hosts, 1);
      assert.deepEqual(p.robotsWaiting?.first, [`${origin}: HTTP 503`]);
      const next = p.robotsWaiting?.nextTryInMs as number;
      assert.ok(next >= 0 && next <= RETRY_MS, `next try in ${next} ms`);
    }
    assert.equal(progress.at(-1)?.robotsWaiting, undefined, 'none once robots.txt answered');
  });

  test('each failure is a robots-unavailable warning with its attempt and the time of the next', () => {
    const warnings = readFileSync(join(dir, 'logs', 'node.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.event === 'robots-unavailable');
    assert.deepEqual(
      warnings.map((w) => [w.level, w.origin, w.what, w.failures, w.maxAttempts]),
      [
        ['warn', origin, 'HTTP 503', 1, 5],
        ['warn', origin, 'HTTP 503', 2, 5],
      ],
    );
    for (const w of warnings) assert.ok(Number.isFinite(Date.parse(w.retryAt as string)), String(w.retryAt));
  });
});
