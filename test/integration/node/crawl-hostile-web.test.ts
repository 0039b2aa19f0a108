/**
 * A crawl of the test web's `hostile` preset (docs/test-web.md §5.19), judged by the server's own
 * request log and the web's truth: a host with two pages that drip one byte a second, a host with an
 * open endless pagination chain (`/q?p=1` links `/q?p=2`, ...), and a host that refuses connections,
 * each linked from the seeds. The crawl must end by itself; every ordinary page of the hosts with
 * hostile URLs is fetched; the drips are cut as too slow; the chain is followed only to the bound on
 * numbered spaces; and the refusing host is shown while the crawl runs and given up, with the reason
 * in the summary.
 *
 * Fetch limits are scaled down so that it takes seconds (a 1 s rate window instead of 10 s, a 300 ms
 * back-off instead of 10 s); the defaults' own timeline is checked on a manual clock in
 * test/unit/node/crawl-politeness.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { diagnosticsEvents, type CrawlProgress } from '../../../src/obs/events.js';
import type { CrawlLogRecord } from '../../../src/store/records.js';
import { DEFAULT_MAX_NUMBERED_URLS } from '../../../src/url/numbered-spaces.js';
import { hostileParts } from '../../../src/web/hostile.js';
import { PageKind } from '../../../src/web/model.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';

let web: TestWeb;
let dir: string;
let summary: CrawlSummary;
const records: CrawlLogRecord[] = [];
const progress: CrawlProgress[] = [];

before(async () => {
  web = await startTestWeb({
    ...WEB_PRESETS.hostile,
    // The drips last two minutes: the crawl must not wait for them.
    faults: { ...WEB_PRESETS.hostile.faults, dripMs: 120_000, hangRate: 0 },
  });
  dir = mkdtempSync(join(tmpdir(), 'shoal-hostile-'));
  summary = await new Crawl(
    {
      nodeId: 'hostile',
      seeds: { urls: [...web.seeds] },
      store: { outDir: dir },
      network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 20, backoffBaseMs: 300 },
      robots: { retryMs: 300 },
      fetch: { minBytesPerSecond: 100, minRateWindowMs: 1000 },
      limits: { concurrency: 8 },
      progressIntervalMs: 100,
    },
    {
      deps: {
        events: {
          fetch: (r) => {
            records.push(r);
            diagnosticsEvents.fetch(r);
          },
          progress: (p) => {
            progress.push(p);
          },
        },
      },
    },
  ).run();
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a crawl of a hostile web', () => {
  test('ends by itself', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
  });

  test('fetches every ordinary page of the hosts that hold hostile URLs', () => {
    const model = web.model;
    const parts = hostileParts(model);
    const requested = new Set(web.log.entries().map((r) => `${r.host}${r.path}`));
    let ordinary = 0;
    const missing: string[] = [];
    for (const h of parts.hostileHosts) {
      const host = model.hosts[h];
      if (host === undefined) continue;
      for (let g = host.firstPage; g < host.firstPage + host.pageCount; g++) {
        if (model.isDisallowed(g) || model.pageKind[g] === PageKind.drip) continue;
        ordinary++;
        if (!requested.has(`${host.name}${model.path(g)}`)) missing.push(`${host.name}${model.path(g)}`);
      }
    }
    assert.ok(ordinary > 20, `${ordinary} ordinary pages`);
    assert.deepEqual(missing, []);
  });

  test('cuts each drip as too slow, once, instead of waiting it out', () => {
    const model = web.model;
    const drips = hostileParts(model).dripPages.map((g) => model.url(g, web.port));
    assert.equal(drips.length, 2);
    for (const url of drips) {
      const ended = records.filter((r) => r.url === url);
      assert.deepEqual(
        ended.map((r) => [r.kind, r.attempts]),
        [['too-slow', 1]],
        url,
      );
    }
  });

  test('follows the endless pagination chain only to the bound on numbered spaces, and says so', () => {
    const parts = hostileParts(web.model);
    const trapHost = web.model.hosts[parts.trapHosts.pagination[0] as number];
    const requests =
      web.log
        .trapRequests()
        .get(trapHost?.name ?? '')
        ?.get('pagination') ?? 0;
    // /q?p=1 is linked from ordinary pages; each later page is a numbered sibling of the one before.
    assert.ok(requests >= DEFAULT_MAX_NUMBERED_URLS && requests <= DEFAULT_MAX_NUMBERED_URLS + 2, `${requests} requests into the chain`);
    assert.ok((summary.links.filtered['trap-numbered'] ?? 0) > 0);
    assert.deepEqual(
      summary.cutSpaces.map((c) => [c.host, c.form, c.admitted]),
      [[`${trapHost?.name}:${web.port}`, '/q?p=#', DEFAULT_MAX_NUMBERED_URLS]],
    );
  });

  test('shows the host that refuses connections while it runs, gives it up, and names it in the summary', () => {
    const refusing = web.model.hosts[hostileParts(web.model).refusingHosts[0] as number];
    const key = `${refusing?.name}:${web.port}`;
    const seen = progress.find((p) => p.unreachable !== undefined);
    assert.ok(seen !== undefined, 'a progress event named it');
    assert.ok(seen.unreachable?.hosts.includes(`${key}: connection refused`), JSON.stringify(seen.unreachable));
    assert.deepEqual(
      summary.unreachableHosts.map((h) => [h.host, h.kind, h.code, h.isGivenUp]),
      [[key, 'connect-error', 'ECONNREFUSED', true]],
    );
    const ended = records.filter((r) => r.host === key);
    assert.ok(
      ended.length > 0 && ended.every((r) => r.kind === 'connect-error' && r.attempts === 0),
      JSON.stringify(ended.map((r) => [r.url, r.kind])),
    );
    const log = readFileSync(join(dir, 'logs', 'node.jsonl'), 'utf8');
    assert.match(
      log,
      new RegExp(
        `"event":"host-unreachable","host":"${key.replace(/\./g, '\\.')}","outcome":"connect-error","code":"ECONNREFUSED","message":"connection refused"`,
      ),
    );
    assert.match(log, /"event":"host-given-up"/);
  });

  test('counts every link once: found = invalid + nofollow + filtered + seen before + disallowed + queued', () => {
    const l = summary.links;
    const filtered = Object.values(l.filtered).reduce((a, n) => a + (n ?? 0), 0);
    assert.equal(
      l.found + l.received,
      l.invalid + l.notFollowed + filtered + l.routed + l.seenBefore + l.robotsDenied + l.queued,
      JSON.stringify(l),
    );
  });
});
