/**
 * A crawl of a test web where most hosts hold a crawler trap (infinite calendars, session-id loops,
 * repeated path segments, ever-growing queries, endless pagination; docs/test-web.md §5.17) still ends
 * on its own: the URL filters and the bound on numbered spaces cut every trap space after a bounded
 * number of requests, traps that robots.txt blocks
 * get no request at all, and every ordinary page is still fetched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { TRAP_PREFIX } from '../../../src/web/robots.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { NO_FAULTS } from '../../helpers/test-web.js';

const WEB = {
  seed: 11,
  hosts: 20,
  pages: 400,
  seeds: 5,
  server: { addressCount: 4 },
  traps: { hostRate: 0.6, robotsDisallowRate: 0.5 },
  faults: NO_FAULTS,
  robots: { serverErrorRate: 0, unavailableRate: 0, crawlDelayRate: 0 },
  duplicates: { mirrorHostRate: 0 },
} satisfies WebConfigInput;
/**
 * Requests into one trap space at most: the URL filters cut the calendars, session ids, repeated
 * segments and growing queries within 50 hops (test/integration/url/test-web-traps.test.ts), and the
 * bound on numbered spaces (filter.traps.maxNumberedUrls, 40) the pagination chains and calendars.
 */
const MAX_TRAP_REQUESTS_PER_HOST = 50;

let web: TestWeb;
let dir: string;
let summary: CrawlSummary;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-traps-'));
  summary = await new Crawl({
    nodeId: 'traps',
    seeds: { urls: [...web.seeds] },
    store: { outDir: dir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 2, delayFactor: 1 },
    limits: { concurrency: 8 },
    progressIntervalMs: 0,
    parse: { workers: 0 }, // pages parsed in the crawl's own thread (crawl-test-web.test.ts covers parse workers)
  }).run();
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a crawl among crawler traps', () => {
  test('ends on its own, every trap space cut, blocked traps never entered', () => {
    const trapHosts = web.model.hosts.filter((h) => h.trap !== null);
    assert.ok(new Set(trapHosts.map((h) => h.trap)).size >= 3, 'several trap kinds');
    assert.ok(
      trapHosts.some((h) => h.trap === 'pagination' && !h.robotsBlocksTrap),
      'an open pagination chain',
    );
    assert.equal(summary.stopReason, 'exhausted');
    const trapRequests = new Map<string, number>();
    for (const r of web.log.entries()) if (r.outcome === 'trap') trapRequests.set(r.host, (trapRequests.get(r.host) ?? 0) + 1);
    assert.ok(trapRequests.size > 0, 'the crawl met traps');
    for (const h of trapHosts) {
      const n = trapRequests.get(h.name) ?? 0;
      if (h.robotsBlocksTrap) assert.equal(n, 0, `${h.name}: its robots.txt blocks ${TRAP_PREFIX[h.trap ?? 'calendar']}`);
      assert.ok(n <= MAX_TRAP_REQUESTS_PER_HOST, `${h.name} (${h.trap}): ${n} trap requests`);
    }
    const trapReasons = Object.entries(summary.links.filtered).filter(([reason]) => reason.startsWith('trap-'));
    assert.ok(trapReasons.length > 0, JSON.stringify(summary.links.filtered));
  });

  test('every ordinary page reachable through plain links is still fetched', () => {
    const requested = new Set(web.log.entries().map((r) => `${r.host}${r.path}`));
    const model = web.model;
    let missing = 0;
    let pages = 0;
    for (let g = 0; g < model.pageCount; g++) {
      if (model.isDisallowed(g)) continue;
      pages++;
      if (!requested.has(`${model.hostOf(g).name}${model.path(g)}`)) missing++;
    }
    assert.equal(missing, 0, `${missing} of ${pages} pages allowed by robots.txt not fetched`);
    assert.ok(pages > 300);
  });
});
