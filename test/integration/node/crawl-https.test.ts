/**
 * A crawl of a tiny HTTPS site end to end: node:https on 127.0.0.1 with the test certificate
 * (test/fixtures/tls/), the test CA given as `fetch.caFile`, and `secure.test` resolved by
 * `network.resolve`. The site, every page linking as drawn, robots.txt disallowing /private/:
 *
 *     /  ──> /a, /b, /private/secret
 *     /a ──> /b, /c, /
 *     /b ──> /c, /d
 *     /c ──> /d, /
 *     /d ──> /a, /private/secret
 *
 * Expected: robots.txt and the five pages fetched once each over TLS for the name `secure.test`,
 * /private/secret never requested and logged `robots-denied`, and every capture archived as a
 * WARC response record whose target URI is the https URL.
 */
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { WARCParser } from 'warcio';
import { ConfigError } from '../../../src/core/errors.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';

const TLS_DIR = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
const LINKS: Readonly<Record<string, readonly string[]>> = {
  '/': ['/a', '/b', '/private/secret'],
  '/a': ['/b', '/c', '/'],
  '/b': ['/c', '/d'],
  '/c': ['/d', '/'],
  '/d': ['/a', '/private/secret'],
};
const PAGES = Object.keys(LINKS);
const ROBOTS = 'User-agent: *\nDisallow: /private/\n';
const readText = (name: string): string => readFileSync(join(TLS_DIR, name), 'utf8');

/** What the server saw: path and the TLS server name of each request. */
const requests: Array<{ readonly path: string; readonly servername: string | false }> = [];
let server: Server;
let origin: string;
let dir: string;
let summary: CrawlSummary;
const log: CrawlLogEntry[] = [];

function page(path: string): string {
  const links = (LINKS[path] ?? []).map((to) => `<a href="${to}">page ${to}</a>`).join(' ');
  return `<!DOCTYPE html><html><head><title>secure ${path}</title></head><body><p>The page at ${path}.</p>${links}</body></html>`;
}

/** The first WARC record of the gzip member at `offset` of `file`. */
async function recordAt(file: string, offset: number): Promise<{ type: string; uri: string; ip: string }> {
  for await (const rec of new WARCParser(createReadStream(file, { start: offset }))) {
    return { type: rec.warcType ?? '', uri: rec.warcTargetURI ?? '', ip: rec.warcHeader('WARC-IP-Address') ?? '' };
  }
  throw new Error(`no WARC record at ${file}@${offset}`);
}

before(async () => {
  server = createServer({ key: readText('server.key'), cert: readText('server.pem') }, (req, res) => {
    const path = req.url ?? '';
    const socket = req.socket as typeof req.socket & { servername?: string | false };
    requests.push({ path, servername: socket.servername ?? false });
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
    } else if (LINKS[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(path));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here\n');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://secure.test:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'shoal-https-'));
  summary = await new Crawl({
    nodeId: 'https',
    seeds: { urls: [`${origin}/`] },
    store: { outDir: dir },
    fetch: { caFile: join(TLS_DIR, 'ca.pem') },
    network: { resolve: ['secure.test=127.0.0.1'], allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    progressIntervalMs: 0,
    parse: { workers: 0 },
  }).run();
  for await (const e of readCrawlLog(join(dir, 'crawl-log.jsonl'))) log.push(e);
});

after(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a crawl of an https site', () => {
  test('robots.txt and every allowed page fetched once over TLS for the name; the disallowed page never', () => {
    assert.equal(summary.stopReason, 'exhausted');
    const counts = new Map<string, number>();
    for (const r of requests) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(counts), Object.fromEntries(['/robots.txt', ...PAGES].map((p) => [p, 1])));
    assert.ok(
      requests.every((r) => r.servername === 'secure.test'),
      JSON.stringify(requests),
    );
  });

  test('the crawl log: each page ok with its WARC pointer, /private/secret robots-denied', () => {
    const byUrl = new Map(log.map((e) => [e.url, e]));
    for (const p of PAGES) {
      const e = byUrl.get(`${origin}${p}`);
      assert.equal(e?.outcome, 'ok', `${origin}${p}: ${JSON.stringify(e)}`);
      assert.equal(e.status, 200);
      assert.equal(e.ip, '127.0.0.1');
      assert.ok(e.warc !== null);
    }
    const denied = log.filter((e) => e.url === `${origin}/private/secret`);
    assert.equal(denied.length, 1, 'logged once although two pages link to it');
    assert.equal(denied[0]?.outcome, 'robots-denied');
    assert.equal(denied[0]?.status, 0);
    assert.equal(denied[0]?.warc, null);
    assert.deepEqual(
      log
        .filter((e) => !e.url.endsWith('/robots.txt'))
        .map((e) => e.outcome)
        .sort(),
      [...PAGES.map(() => 'ok'), 'robots-denied'].sort(),
    );
  });

  test('WARC: the pointers lead to response records with the https target URI; every capture is https', async () => {
    const warcDir = join(dir, 'warc');
    for (const p of PAGES) {
      const e = log.find((l) => l.url === `${origin}${p}`);
      assert.ok(e?.warc !== null && e?.warc !== undefined);
      const rec = await recordAt(join(warcDir, e.warc.file), e.warc.offset);
      assert.deepEqual(rec, { type: 'response', uri: `${origin}${p}`, ip: '127.0.0.1' });
    }
    const uris: string[] = [];
    for (const file of readdirSync(warcDir).filter((n) => n.endsWith('.warc.gz'))) {
      for await (const rec of new WARCParser(createReadStream(join(warcDir, file)))) {
        if (rec.warcType === 'response' || rec.warcType === 'request') uris.push(rec.warcTargetURI ?? '');
      }
    }
    assert.ok(uris.length >= 2 * PAGES.length, `${uris.length} request and response records`);
    assert.ok(
      uris.every((u) => u.startsWith(`${origin}/`)),
      JSON.stringify(uris),
    );
    assert.ok(!uris.includes(`${origin}/private/secret`));
  });

  test('without the CA: robots.txt is refused for its certificate once, not retried, and the host is given up', async () => {
    const out = join(dir, 'untrusted');
    const untrusted = await new Crawl({
      nodeId: 'https-untrusted',
      seeds: { urls: [`${origin}/`, `${origin}/a`] },
      store: { outDir: out },
      network: { resolve: ['secure.test=127.0.0.1'], allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 0, delayFactor: 0 },
      progressIntervalMs: 0,
      parse: { workers: 0 },
    }).run();
    assert.equal(untrusted.stopReason, 'exhausted');
    assert.equal(untrusted.robotsRequests, 1, 'one robots.txt attempt: a certificate verdict does not change on retry');
    const entries: CrawlLogEntry[] = [];
    for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) entries.push(e);
    assert.deepEqual(entries.map((e) => e.outcome).sort(), ['connect-error', 'connect-error']);
  });

  test('a caFile that holds no readable certificate is a configuration error naming fetch.caFile', async () => {
    const bad = join(dir, 'not-a-ca.pem');
    writeFileSync(bad, 'this is not PEM\n');
    await assert.rejects(
      new Crawl({
        nodeId: 'https-bad-pem',
        seeds: { urls: [`${origin}/`] },
        store: { outDir: join(dir, 'bad-pem') },
        fetch: { caFile: bad },
        network: { resolve: ['secure.test=127.0.0.1'], allowLoopback: true, isSystemDnsAllowed: false },
      }).run(),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.issues.length === 1 &&
        err.issues[0]?.path === 'fetch.caFile' &&
        (err.issues[0]?.message.includes(bad) ?? false),
    );
  });

  test('an unreadable caFile is a configuration error naming fetch.caFile', async () => {
    const missing = join(dir, 'no-such-ca.pem');
    await assert.rejects(
      new Crawl({
        nodeId: 'https-bad-ca',
        seeds: { urls: [`${origin}/`] },
        store: { outDir: join(dir, 'bad-ca') },
        fetch: { caFile: missing },
        network: { resolve: ['secure.test=127.0.0.1'], allowLoopback: true, isSystemDnsAllowed: false },
      }).run(),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.code === 'CONFIG_FILE_UNREADABLE' &&
        err.issues.length === 1 &&
        err.issues[0]?.path === 'fetch.caFile' &&
        err.message.includes(missing),
    );
  });
});
