/**
 * Links to hosts whose names do not resolve, in a real crawl on loopback with the persistent
 * frontier (issue 22). The names go through the crawl's own CachingResolver: site.test from a hosts
 * map, every other name from a scripted system lookup that answers NXDOMAIN and counts its calls, so
 * that no query leaves the process.
 *
 *     site.test  /    -> /p1 /p2 /p3 /p4, and 40 URLs on each of dead1..dead6.example (half of them https)
 *                /pN  -> /, and 10 more URLs on each dead host (found once the names are known dead)
 *                robots.txt: 404
 *
 * Expected: the five pages fetched; each dead host looked up once and never contacted (no robots.txt
 * either); each of the 480 dead URLs in the crawl log exactly once, as dns-error with the resolver's
 * code; a frontier empty at the end, most dead URLs having waited on disk (a host holds 16 in memory
 * under breadth-first order) and come back to be ended; and a rerun on the same directory finding
 * nothing left to do, so every one of those URLs was completed in the frontier's log.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { CRAWL_LOG_FILE, readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import { startDripServer, type DripServer } from '../../helpers/drip-server.js';
import { scratchDirs } from '../../helpers/scratch.js';

const DEAD_HOSTS = Array.from({ length: 6 }, (_, i) => `dead${i + 1}.example`);
const PAGES = ['/', '/p1', '/p2', '/p3', '/p4'];
/** Far beyond the second or so the crawl takes. */
const GIVE_UP_MS = 60_000;

function deadLinks(page: string): string[] {
  const n = page === '/' ? 40 : 10;
  return DEAD_HOSTS.flatMap((host) =>
    Array.from({ length: n }, (_, i) => `${i % 2 === 0 ? 'http' : 'https'}://${host}/${page === '/' ? 'root' : page.slice(1)}/${i}`),
  );
}

function html(path: string): string {
  const links = [...(path === '/' ? PAGES.slice(1) : ['/']), ...deadLinks(path)];
  return `<!DOCTYPE html><html><head><title>${path}</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}</body></html>`;
}

const { root } = scratchDirs('shoal-crawl-unresolvable-');
const dir = join(root, 'crawl');
let server: DripServer;
const lookups = new Map<string, number>();
let first: CrawlSummary;
let rerun: CrawlSummary;
const log: CrawlLogEntry[] = [];
let linesAfterFirst = 0;

function crawl(): Promise<CrawlSummary> {
  const resolver = new CachingResolver({
    hostsMap: HostsMap.fromEntries(['site.test=127.0.0.1']),
    lookup: async (host) => {
      lookups.set(host, (lookups.get(host) ?? 0) + 1);
      await new Promise((resolve) => setImmediate(resolve));
      return { kind: 'dns-error', code: 'ENOTFOUND', message: `queryA ENOTFOUND ${host}` };
    },
  });
  return new Crawl(
    {
      seeds: { urls: [`http://site.test:${server.port}/`] },
      store: { outDir: dir },
      network: { allowLoopback: true },
      politeness: { minDelayMs: 20, delayFactor: 0 },
      limits: { concurrency: 4 },
      progressIntervalMs: 0,
      parse: { workers: 0 },
    },
    { components: { resolver } },
  ).run(AbortSignal.timeout(GIVE_UP_MS));
}

async function readLog(): Promise<CrawlLogEntry[]> {
  const entries: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(join(dir, CRAWL_LOG_FILE))) entries.push(e);
  return entries;
}

before(async () => {
  server = await startDripServer((path) => (PAGES.includes(path) ? { kind: 'whole', body: html(path) } : null));
  first = await crawl();
  log.push(...(await readLog()));
  linesAfterFirst = log.length;
  rerun = await crawl();
});

after(async () => {
  await server?.close();
});

describe('a crawl whose pages link to hundreds of URLs on hosts whose names do not resolve', () => {
  test('fetches every real page and contacts no dead host', () => {
    assert.equal(first.stopReason, 'exhausted');
    const ok = log.filter((e) => e.outcome === 'ok').map((e) => new URL(e.url).pathname);
    assert.deepEqual(ok.sort(), [...PAGES].sort());
    assert.deepEqual([...server.requests].sort(), ['/robots.txt', ...PAGES].sort(), 'the server saw robots.txt and the five pages');
    assert.equal(first.robotsRequests, 1, 'no robots.txt attempt for a host that cannot be reached');
  });

  test('looks each dead name up once', () => {
    assert.deepEqual(
      DEAD_HOSTS.map((h) => lookups.get(h)),
      DEAD_HOSTS.map(() => 1),
    );
  });

  test('logs every dead URL exactly once, as dns-error with the resolver code', () => {
    const expected = PAGES.flatMap(deadLinks).sort();
    const dead = log.filter((e) => DEAD_HOSTS.includes(new URL(e.url).hostname));
    assert.deepEqual(dead.map((e) => e.url).sort(), expected);
    for (const e of dead) assert.deepEqual([e.outcome, e.reason, e.attempt, e.status], ['dns-error', 'ENOTFOUND', 0, 0], e.url);
    assert.deepEqual(first.outcomes, { ok: 5, 'dns-error': 480 });
  });

  test('leaves nothing in the frontier, and a rerun finds nothing left to do', () => {
    assert.deepEqual(first.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    assert.equal(rerun.stopReason, 'exhausted');
    assert.equal(rerun.urls, 0);
    assert.deepEqual(rerun.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
  });

  test('the rerun writes no line again', async () => {
    assert.equal((await readLog()).length, linesAfterFirst);
  });
});
