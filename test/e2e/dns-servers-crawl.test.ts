/**
 * `network.dnsServers` in a crawl (`shoal crawl --set`): the test web's names are known only to a
 * DNS server on loopback UDP (test/helpers/dns-server.ts), not to the system resolver and not to
 * a hosts file. The crawl fetches pages on every host it reaches from the addresses that server gave,
 * asks it once per name (the cache answers the rest), and never asks it for a name that
 * `network.resolve` fixes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runInProcess } from '../helpers/cli.js';
import { startTestDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-dns-servers-'));
let web: TestWeb;
let dns: TestDnsServer;

before(async () => {
  web = await startTestWeb({ ...WEB_PRESETS.tiny, server: { ...WEB_PRESETS.tiny.server, addressCount: 4 } });
  dns = await startTestDnsServer(web.hostsMap);
});
after(async () => {
  await dns?.close();
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('network.dnsServers', () => {
  it('resolves the test web through the named server, once per name, after the fixed answers', { timeout: 90_000 }, async () => {
    const seedHost = new URL(web.seeds[0] as string).hostname;
    const fixed = [...web.hostsMap].find(([host]) => host !== seedHost) as [string, string];
    const out = join(dir, 'crawl');
    const r = await runInProcess([
      'crawl',
      ...web.seeds.flatMap((s) => ['--seed', s]),
      '--set',
      `network.dnsServers=["${dns.address}"]`,
      '--resolve',
      `${fixed[0]}=${fixed[1]}`,
      '--allow-loopback',
      '--min-delay-ms',
      '0',
      '--max-pages',
      '150',
      '--out',
      out,
      '--set',
      'progressIntervalMs=0',
    ]);
    assert.equal(r.code, 0, r.err);
    const ipOf = new Map<string, string>();
    let ok = 0;
    for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
      if (e.status === 200) ok++;
      if (e.ip !== null) ipOf.set(new URL(e.url).hostname, e.ip);
    }
    assert.ok(ok >= 100, `${ok} pages fetched`);
    assert.ok(ipOf.size >= 6, `${ipOf.size} hosts reached`);
    assert.ok(ipOf.has(fixed[0]), `${fixed[0]} reached`);
    for (const [host, ip] of ipOf) assert.equal(ip, web.hostsMap.get(host), host);
    // Every host reached but the fixed one was asked for, A only (an address came back), and once.
    const asked = dns.queries.filter((q) => q.startsWith('A '));
    assert.deepEqual(dns.queries, asked);
    assert.equal(new Set(asked).size, asked.length, asked.join(', '));
    for (const host of ipOf.keys()) assert.equal(asked.includes(`A ${host}`), host !== fixed[0], host);
  });
});
