/**
 * Near-duplicates in a crawl (SPEC §2.10, `dedup.near`), over real sockets against a test web with
 * many near-duplicate pages and mirror hosts, checked against its ground truth:
 *
 * - every action marks pages in pages.jsonl and the crawl log alike, with the URL of an earlier
 *   page of the same truth family (a true original or copy of it) and the Hamming distance of their
 *   SimHashes;
 * - `archive`: the marked page is archived (WARC, CDXJ) and its links recorded and followed;
 *   `archive-nofollow`: archived, its links neither recorded nor followed, `isDuplicate` set;
 *   `skip`: no WARC record, no CDXJ line, no links; the crawl log says why;
 * - across runs: a second run in the same directory, seeded only with near-duplicates of the first
 *   run's pages, marks them as copies of those pages (the index was rebuilt from pages.jsonl).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../src/config/crawl-config.js';
import type { CrawlSummary } from '../../src/node/crawl-stats.js';
import { readCrawlLog, type CrawlLogEntry } from '../../src/store/crawl-log.js';
import { readPageMetadata, type PageMetadata } from '../../src/store/page-metadata.js';
import { readLinkGraph } from '../../src/store/link-graph-reader.js';
import { hammingDistance } from '../../src/dedup/simhash.js';
import { nearDuplicateQuality } from '../../src/eval/near-duplicates.js';
import type { TestWeb } from '../../src/web/start.js';
import { startNearDuplicateWeb, type NearDuplicateWeb } from '../helpers/near-duplicate-web.js';
import type { NearDuplicateAction } from '../../src/dedup/near-duplicate-action.js';

const MAX_DISTANCE = 8;
let web: TestWeb;
let dir: string;
let world: NearDuplicateWeb;

before(async () => {
  world = await startNearDuplicateWeb('shoal-neardup-');
  ({ web, dir } = world);
});

after(async () => {
  await world?.close();
});

const familyOf = (url: string): number => world.familyOf(url);

function config(outDir: string, action: NearDuplicateAction, extra: Partial<CrawlConfigInput> = {}): CrawlConfigInput {
  return {
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1 },
    limits: { concurrency: 12, maxPages: 300 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    dedup: { near: { action, maxDistance: MAX_DISTANCE } },
    ...extra,
  };
}

interface Crawled {
  readonly out: string;
  readonly pages: PageMetadata[];
  readonly log: CrawlLogEntry[];
  readonly summary: CrawlSummary;
}

async function crawl(name: string, action: NearDuplicateAction, extra: Partial<CrawlConfigInput> = {}): Promise<Crawled> {
  const out = join(dir, name);
  const summary = await new Crawl(config(out, action, extra)).run();
  const pages: PageMetadata[] = [];
  for await (const p of readPageMetadata(join(out, 'pages.jsonl'))) pages.push(p);
  const log: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) log.push(e);
  return { out, pages, log, summary };
}

/** The marks of a crawl point at earlier pages of the same family, at the distance of their fingerprints, alike in both files. */
function checkMarks(c: Crawled): PageMetadata[] {
  const marked = c.pages.filter((p) => p.nearDuplicateOf !== null);
  assert.ok(marked.length >= 5, `${marked.length} near-duplicates marked`);
  const lineOf = new Map(c.pages.map((p, i) => [p.url, i]));
  for (const p of marked) {
    const of = p.nearDuplicateOf as string;
    assert.notEqual(of, p.url);
    assert.equal(familyOf(p.url), familyOf(of), `${p.url} is not a copy of ${of}`);
    assert.ok(familyOf(p.url) >= 0);
    const original = c.pages[lineOf.get(of) ?? Infinity];
    assert.ok(
      original !== undefined && (lineOf.get(of) as number) < (lineOf.get(p.url) as number),
      `${of} was not fetched before ${p.url}`,
    );
    assert.equal(original.nearDuplicateOf, null, 'a mark names a page that is not itself marked');
    const d = hammingDistance(BigInt(`0x${p.simhash as string}`), BigInt(`0x${original.simhash as string}`));
    assert.equal(p.nearDuplicateDistance, d);
    assert.ok(d <= MAX_DISTANCE);
  }
  const logged = c.log.filter((e) => e.nearDuplicateOf !== null);
  assert.deepEqual(
    logged.map((e) => [e.url, e.nearDuplicateOf, e.nearDuplicateDistance]).sort(),
    marked.map((p) => [p.url, p.nearDuplicateOf, p.nearDuplicateDistance]).sort(),
  );
  assert.equal(c.summary.nearDuplicates, marked.length, 'the summary counts the marks');
  const q = nearDuplicateQuality(c.pages, familyOf);
  assert.equal(q.precision, 1);
  assert.ok(q.recall >= 0.6, `recall ${q.recall}`);
  return marked;
}

async function outLinkCounts(out: string): Promise<Map<string, number>> {
  const graph = await readLinkGraph(join(out, 'links'));
  const counts = new Map<string, number>();
  const { offsets } = graph.csr;
  for (let i = 0; i + 1 < offsets.length; i++) counts.set(graph.urls[i] as string, (offsets[i + 1] as number) - (offsets[i] as number));
  graph.close();
  return counts;
}

function cdxjUrls(out: string): Set<string> {
  const lines = readFileSync(join(out, 'warc', 'index.cdxj'), 'utf8')
    .trim()
    .split('\n');
  return new Set(lines.map((l) => (JSON.parse(l.slice(l.indexOf('{'))) as { url: string }).url));
}

describe('near-duplicates in a crawl', () => {
  test('each action marks near-duplicates of true originals and does what it says', async () => {
    const [archived, nofollow, skipped] = await Promise.all([
      crawl('archive', 'archive'),
      crawl('nofollow', 'archive-nofollow'),
      crawl('skip', 'skip'),
    ]);

    const a = checkMarks(archived);
    const aLinks = await outLinkCounts(archived.out);
    const aCaptured = cdxjUrls(archived.out);
    for (const p of a) {
      const e = archived.log.find((x) => x.url === p.url) as CrawlLogEntry;
      assert.ok(e.warc !== null && aCaptured.has(p.url));
      assert.equal(e.isDuplicate, false);
      assert.ok((aLinks.get(p.url) ?? 0) > 0, `links of ${p.url} recorded`);
    }

    const n = checkMarks(nofollow);
    const nLinks = await outLinkCounts(nofollow.out);
    const nCaptured = cdxjUrls(nofollow.out);
    for (const p of n) {
      const e = nofollow.log.find((x) => x.url === p.url) as CrawlLogEntry;
      assert.ok(e.warc !== null && nCaptured.has(p.url));
      assert.equal(e.isDuplicate, true);
      assert.equal(nLinks.get(p.url) ?? 0, 0, `links of ${p.url} not recorded`);
      assert.ok(p.linkCounts.total > 0);
    }

    const s = checkMarks(skipped);
    const sLinks = await outLinkCounts(skipped.out);
    const sCaptured = cdxjUrls(skipped.out);
    for (const p of s) {
      const e = skipped.log.find((x) => x.url === p.url) as CrawlLogEntry;
      assert.equal(e.outcome, 'ok');
      assert.equal(e.warc, null);
      assert.equal(e.isDuplicate, true);
      assert.equal(e.reason, 'near-duplicate, not archived');
      assert.ok(!sCaptured.has(p.url), `${p.url} has no WARC record`);
      assert.equal(sLinks.get(p.url) ?? 0, 0);
    }
    // Pages that are not near-duplicates are archived as ever.
    const kept = skipped.pages.filter((p) => p.nearDuplicateOf === null && p.simhash !== null);
    assert.ok(kept.length > 100 && kept.every((p) => sCaptured.has(p.url)));

    // Across runs: originals in a first run, their near-duplicates alone in a second, same directory.
    const pairs = a.map((p) => [p.url, p.nearDuplicateOf as string] as const);
    const originals = [...new Set(pairs.map(([, o]) => o))];
    const copies = pairs.map(([c]) => c).filter((c) => !originals.includes(c));
    const seedsOnly = (urls: readonly string[]): Partial<CrawlConfigInput> => ({ seeds: { urls: [...urls] }, scope: { maxDepth: 0 } });
    const first = await crawl('resume', 'archive', seedsOnly(originals));
    assert.deepEqual(new Set(first.pages.map((p) => p.url)), new Set(originals));
    const second = await crawl('resume', 'archive', seedsOnly(copies));
    const secondRun = second.pages.slice(first.pages.length);
    assert.deepEqual(new Set(secondRun.map((p) => p.url)), new Set(copies));
    for (const p of secondRun) {
      assert.ok(p.nearDuplicateOf !== null && originals.includes(p.nearDuplicateOf), `${p.url} marked as a copy of a first-run page`);
      assert.equal(familyOf(p.url), familyOf(p.nearDuplicateOf));
    }
  });
});
