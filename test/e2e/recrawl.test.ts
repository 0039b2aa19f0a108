/**
 * A re-crawl against a test web whose pages change over time (SPEC §2 item 12; src/web/changes.ts):
 *
 * - every page is revisited with a conditional GET (the ETag of its last copy, seen in the WARC
 *   request records), and the server's 304s are written as `revisit` records of the
 *   server-not-modified profile, indexed in CDXJ as `warc/revisit` with status 304, referring to the
 *   page's last capture;
 * - changes are caught: between two fetches of a page the crawl saw a new digest exactly when the
 *   web's truth says the page changed in between (fetches within 100 ms of a change are not judged);
 * - a changed page's links are not offered again (the web's changes add words, not links): each
 *   page's links are in the link graph once;
 * - revisits keep the politeness gap of their host, and count against `limits.maxPages`;
 * - the crawl ends at `recrawl.durationMs`, and a second run on the same directory resumes the
 *   schedule: it revisits pages it never discovered again (the seeds are seen), none before it was due;
 * - a run held open by `recrawl.durationMs` ends within seconds of its signal (SIGTERM).
 */
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WARCParser } from 'warcio';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../src/config/crawl-config.js';
import { REVISITS_FILE, type RevisitState } from '../../src/frontier-store/revisit-store.js';
import { readCrawlLog, type CrawlLogEntry } from '../../src/store/crawl-log.js';
import { readLinkGraph } from '../../src/store/link-graph-reader.js';
import { SERVER_NOT_MODIFIED_PROFILE } from '../../src/store/warc/warc-record.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { NO_FAULTS } from '../helpers/test-web.js';

let web: TestWeb;
let root: string;
const out = (): string => join(root, 'crawl');

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'shoal-recrawl-'));
  web = await startTestWeb({
    seed: 23,
    hosts: 3,
    pages: 36,
    seeds: 3,
    server: { addressCount: 3 },
    latency: { slowHostRate: 0 },
    traps: { hostRate: 0 },
    faults: NO_FAULTS,
    duplicates: { mirrorHostRate: 0 },
    robots: { serverErrorRate: 0, unavailableRate: 0, crawlDelayRate: 0, redirectRate: 0 },
    // Every page changes: a 6 s crawl then judges about 60 revisits and catches 9 or 10 changes, well
    // above the 3 asked (with half the pages changing it caught 5 to 8, and 2 once under load).
    changes: { share: 1, minIntervalMs: 1500, maxIntervalMs: 20_000, epochMs: 250 },
  });
});
after(async () => {
  await web?.close();
  rmSync(root, { recursive: true, force: true });
});

function config(recrawl: CrawlConfigInput['recrawl']): CrawlConfigInput {
  return {
    nodeId: 'recrawl',
    seeds: { urls: [...web.seeds] },
    store: { outDir: out() },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    // The web's 5xx pages back their host off: briefly, so that every page is fetched early in the run.
    politeness: { minDelayMs: 20, delayFactor: 0, backoffBaseMs: 200, backoffMaxMs: 400 },
    frontier: { checkpointIntervalMs: 200 },
    limits: { concurrency: 4 },
    progressIntervalMs: 0,
    recrawl,
  };
}

async function crawlLog(): Promise<CrawlLogEntry[]> {
  const log: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(join(out(), 'crawl-log.jsonl'))) log.push(e);
  return log;
}

interface WarcSeen {
  conditionalRequests: number;
  readonly notModified: { readonly refersTo: string; readonly uri: string; readonly digest: string }[];
  readonly responseIds: Map<string, string>;
}

async function readWarcs(): Promise<WarcSeen> {
  const dir = join(out(), 'warc');
  const seen: WarcSeen = { conditionalRequests: 0, notModified: [], responseIds: new Map() };
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.warc.gz'))) {
    for await (const rec of new WARCParser(createReadStream(join(dir, f)))) {
      await rec.readFully(false);
      const h = (name: string): string => rec.warcHeaders.headers.get(name) ?? '';
      if (rec.warcType === 'request' && (rec.httpHeaders?.headers.get('if-none-match') ?? null) !== null) seen.conditionalRequests++;
      if (rec.warcType === 'response') seen.responseIds.set(h('WARC-Record-ID'), h('WARC-Payload-Digest'));
      if (rec.warcType === 'revisit' && h('WARC-Profile') === SERVER_NOT_MODIFIED_PROFILE) {
        seen.notModified.push({ refersTo: h('WARC-Refers-To'), uri: h('WARC-Refers-To-Target-URI'), digest: h('WARC-Payload-Digest') });
      }
    }
  }
  return seen;
}

const RECRAWL = { enabled: true, initialIntervalMs: 1000, minIntervalMs: 400, maxIntervalMs: 4000 } as const;

describe('re-crawl', () => {
  test('revisits with conditional GETs, writes 304s as revisit records, catches changes', { timeout: 60_000 }, async () => {
    const startedMs = Date.now();
    const summary = await new Crawl(config({ ...RECRAWL, durationMs: 6000 })).run();
    const elapsedMs = Date.now() - startedMs;
    assert.equal(summary.stopReason, 'exhausted');
    assert.ok(elapsedMs >= 6000 && elapsedMs < 15_000, `ended at recrawl.durationMs (${elapsedMs} ms)`);

    const log = (await crawlLog()).filter((e) => e.url !== '');
    const byUrl = new Map<string, CrawlLogEntry[]>();
    for (const e of log) if (e.outcome === 'ok' || e.outcome === 'not-modified') byUrl.set(e.url, [...(byUrl.get(e.url) ?? []), e]);
    // Every page first fetched at least initialIntervalMs (and 1.5 s to spare) before the end was revisited.
    const endedMs = startedMs + elapsedMs;
    const early = [...byUrl.values()].filter((v) => Date.parse((v[0] as CrawlLogEntry).ts) < endedMs - RECRAWL.initialIntervalMs - 1500);
    assert.ok(early.length >= 0.5 * byUrl.size, `${early.length} of ${byUrl.size} pages fetched early`);
    for (const v of early) assert.ok(v.length >= 2, `${(v[0] as CrawlLogEntry).url} was revisited`);

    // Politeness holds for revisits as for first visits: 20 ms at least between the end of one
    // request to a host and the start of the next.
    const requests = web.log.entries();
    const lastEnd = new Map<string, number>();
    for (const r of [...requests].sort((x, y) => x.startMs - y.startMs)) {
      const end = lastEnd.get(r.host);
      if (end !== undefined) assert.ok(r.startMs >= end + 20 - 2, `${r.host}: a request ${r.startMs - end} ms after the last one ended`);
      lastEnd.set(r.host, r.endMs);
    }

    // Conditional GETs and their 304s.
    const notModified = requests.filter((r) => r.status === 304).length;
    assert.ok(notModified > 10, `${notModified} 304s`);
    const warc = await readWarcs();
    assert.ok(warc.conditionalRequests >= notModified, `${warc.conditionalRequests} requests carried If-None-Match`);
    assert.equal(warc.notModified.length, log.filter((e) => e.outcome === 'not-modified').length, 'one revisit record per 304');
    for (const r of warc.notModified) {
      assert.equal(warc.responseIds.get(r.refersTo), r.digest, 'a 304 revisit refers to a response holding its payload');
    }
    const cdxj = readFileSync(join(out(), 'warc', 'index.cdxj'), 'utf8')
      .trim()
      .split('\n');
    const revisitLines = cdxj.filter((l) => l.includes('"mime":"warc/revisit"') && l.includes('"status":"304"'));
    assert.equal(revisitLines.length, warc.notModified.length, 'the 304 revisits are indexed as warc/revisit');

    // Changes caught, against the truth.
    const truth = web.changeTruth();
    assert.ok(truth !== null);
    const changedAt = new Map(truth.pages.map((p) => [p.url, p.changedAtMs]));
    let judged = 0;
    let caught = 0;
    for (const [url, fetches] of byUrl) {
      const times = changedAt.get(url) ?? [];
      for (let i = 1; i < fetches.length; i++) {
        const a = fetches[i - 1] as CrawlLogEntry;
        const b = fetches[i] as CrawlLogEntry;
        if (times.some((t) => Math.abs(t - Date.parse(a.ts)) < 100 || Math.abs(t - Date.parse(b.ts)) < 100)) continue;
        const didChange = times.some((t) => t > Date.parse(a.ts) && t <= Date.parse(b.ts));
        judged++;
        if (didChange) {
          assert.equal(b.outcome, 'ok', `${url} changed between ${Date.parse(a.ts)} and ${Date.parse(b.ts)}: a 200`);
          caught++;
        } else {
          assert.equal(b.outcome, 'not-modified', `${url} did not change between ${Date.parse(a.ts)} and ${Date.parse(b.ts)}: a 304`);
        }
      }
    }
    assert.ok(judged > 20 && caught >= 3, `${caught} changes caught in ${judged} revisits judged`);

    // A revisit offers the policy, the link graph and admission only links the page did not have
    // (docs/recrawl.md): the web's changes add words, not links, so each page's links were written
    // to the link graph once, in one batch at its first fetch, however often it changed since.
    const graph = await readLinkGraph(join(out(), 'links'));
    const { offsets } = graph.csr;
    const index = new Map(graph.urls.map((u, i) => [u, i] as const));
    let changedWithLinks = 0;
    for (const [url, fetches] of byUrl) {
      const s = index.get(url);
      if (s === undefined) continue;
      const from = offsets[s] as number;
      const to = offsets[s + 1] as number;
      const records = Array.from(graph.edgeRecord.subarray(from, to));
      if (records.length > 0 && fetches.filter((e) => e.outcome === 'ok').length >= 2) changedWithLinks++;
      if (records.length > 0)
        assert.equal(Math.max(...records) - Math.min(...records) + 1, records.length, `${url}: its links were written once, together`);
    }
    graph.close();
    assert.ok(changedWithLinks >= 3, `${changedWithLinks} pages with links fetched with a 200 again`);

    // The summary counts what the crawl log shows.
    const r = summary.recrawl;
    assert.ok(r !== undefined, 'the summary has the re-crawl counts');
    const revisited = [...byUrl.values()].reduce((n, v) => n + v.length - 1, 0);
    assert.equal(r.notModified, log.filter((e) => e.outcome === 'not-modified').length);
    assert.equal(r.notModified + r.unchanged + r.changed, revisited, 'every revisit in the log is counted once');
    assert.ok(r.changed >= caught, `${r.changed} changed >= ${caught} judged changes`);
    assert.equal(r.scheduled, byUrl.size, 'every page fetched was scheduled');
  });

  test('a second run resumes the schedule: revisits only, none before due', { timeout: 30_000 }, async () => {
    const states = readFileSync(join(out(), 'state', 'frontier', REVISITS_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RevisitState);
    const due = new Map<string, number>();
    for (const s of states) due.set(s.url, s.dueWallMs);
    const from = web.log.count;
    const summary = await new Crawl(config({ ...RECRAWL, durationMs: 2500 })).run();
    assert.equal(summary.stopReason, 'exhausted');
    const pages = web.log.entries().filter((r) => r.seq > from && r.page >= 0);
    assert.ok(pages.length >= 10, `${pages.length} revisits in the second run`);
    const firstRequest = new Map<string, number>();
    for (const r of pages) {
      const url = `http://${r.host}:${web.port}${r.path}`;
      if (!firstRequest.has(url)) firstRequest.set(url, r.startMs);
    }
    for (const [url, at] of firstRequest) {
      const dueMs = due.get(url);
      assert.ok(dueMs !== undefined, `${url} was scheduled by the first run`);
      assert.ok(at >= dueMs - 50, `${url} requested at ${at}, due at ${dueMs}`);
    }
    assert.ok(
      pages.some((r) => r.status === 304),
      'the resumed revisits are conditional',
    );
  });

  test('revisits count against limits.maxPages (a memory frontier)', { timeout: 30_000 }, async () => {
    const from = web.log.count;
    const summary = await new Crawl({
      ...config({ ...RECRAWL, durationMs: 20_000 }),
      store: { outDir: join(root, 'budget') },
      frontier: { kind: 'memory' },
      limits: { concurrency: 4, maxPages: 60 },
    }).run();
    assert.equal(summary.stopReason, 'max-pages');
    const pages = web.log.entries().filter((r) => r.seq > from && r.path !== '/robots.txt');
    // The web has 36 pages: the budget is reached only because revisits count.
    assert.equal(pages.length, 60);
    assert.ok(pages.filter((r) => r.status === 304).length > 0);
  });

  test('a run held open for revisits ends soon after its signal', { timeout: 30_000 }, async () => {
    const ac = new AbortController();
    const running = new Crawl(config({ ...RECRAWL, durationMs: 600_000 })).run(ac.signal);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const abortedAt = Date.now();
    ac.abort();
    const summary = await running;
    assert.equal(summary.stopReason, 'interrupted');
    assert.ok(Date.now() - abortedAt < 5000, `ended ${Date.now() - abortedAt} ms after the signal`);
  });
});
