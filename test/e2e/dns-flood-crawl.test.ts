/**
 * A crawl whose first page links to 400 hosts it has not met, behind a name server of limited
 * capacity on loopback UDP (test/helpers/dns-server.ts: each answer 20 ms after its query, a query
 * that finds 40 unanswered dropped), given as `network.dnsServers`. The lookups take turns, so every
 * dead name gets its NXDOMAIN on the first asking: each of its URLs ends as `dns-error` ENOTFOUND
 * (not a timeout, which would back the host off and try again), the site's own pages are all
 * fetched, and the crawl ends.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { runInProcess } from '../helpers/cli.js';
import { startTestDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

const DEAD = 400;
const LOCAL = 5;
const dir = mkdtempSync(join(tmpdir(), 'shoal-dns-flood-'));
let site: Server;
let origin: string;
let dns: TestDnsServer;

before(async () => {
  site = createServer((req, res) => {
    const links =
      req.url === '/'
        ? [...Array.from({ length: LOCAL }, (_, i) => `/p${i}`), ...Array.from({ length: DEAD }, (_, i) => `http://dead${i}.flood.test/`)]
        : [];
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!DOCTYPE html><title>${req.url}</title>${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  dns = await startTestDnsServer(new Map(), 60, { delayMs: 20, maxPending: 40 });
});
after(async () => {
  await dns?.close();
  await new Promise((resolve) => site?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a page linking to hundreds of new hosts', () => {
  it('gets every name its answer at once and ends', { timeout: 90_000 }, async () => {
    const out = join(dir, 'crawl');
    const r = await runInProcess([
      'crawl',
      '--seed',
      `${origin}/`,
      '--set',
      `network.dnsServers=["${dns.address}"]`,
      '--allow-loopback',
      '--min-delay-ms',
      '0',
      '--out',
      out,
      '--set',
      'progressIntervalMs=0',
    ]);
    assert.equal(r.code, 0, r.err);
    const local: string[] = [];
    const dead = new Map<string, string>();
    for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
      if (e.url.startsWith(origin)) {
        if (e.status === 200) local.push(new URL(e.url).pathname);
      } else dead.set(e.url, `${e.outcome} ${e.reason} attempt ${e.attempt}`);
    }
    assert.deepEqual(local.sort(), ['/', ...Array.from({ length: LOCAL }, (_, i) => `/p${i}`)].sort());
    assert.equal(dead.size, DEAD);
    const outcomes = new Map<string, number>();
    for (const o of dead.values()) outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    assert.deepEqual([...outcomes], [['dns-error ENOTFOUND attempt 0', DEAD]]);
    // Each name asked once, for A (NXDOMAIN ends it: no AAAA).
    const asked = dns.queries.filter((q) => q.includes('.flood.test'));
    assert.equal(new Set(asked).size, DEAD, `${new Set(asked).size} names asked`);
    assert.equal(asked.length, DEAD, 'none asked twice');
  });
});
