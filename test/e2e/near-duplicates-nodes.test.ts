/**
 * Near-duplicates across the nodes of a collaborative crawl (SPEC §2.10, §4.5; `dedup.near.isShared`,
 * `src/node/collaboration/simhash-sharing.ts`): three embedded nodes under `url-hash` partitioning,
 * which spreads the pages of every host (and so the copies of a page) over the nodes, crawl a test
 * web with many near-duplicates over real sockets, checked against its ground truth.
 *
 * - Shared (the default): pages are marked as copies of pages another node fetched, each mark names
 *   a page of the same truth family that its node kept unmarked, at the distance of their SimHashes;
 *   the fingerprints' traffic is counted in the exchange's figures and in `exchange.json`.
 * - Not shared: no mark crosses nodes, and fewer true near-duplicates are found.
 * - Across runs: a crawl of the originals of those cross-node pairs, then a second run in the same
 *   directories seeded only with their copies: every copy is marked with a first-run page, kept by
 *   another node (read back from `state/shared-simhashes.tsv`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../src/node/crawl-stats.js';
import { readPageMetadata, type PageMetadata } from '../../src/store/page-metadata.js';
import { hammingDistance } from '../../src/dedup/simhash.js';
import { nearDuplicateQuality } from '../../src/eval/near-duplicates.js';
import { EXCHANGE_TOTALS_FILE } from '../../src/node/collaboration/exchange-totals.js';
import type { TestWeb } from '../../src/web/start.js';
import { startNearDuplicateWeb, type NearDuplicateWeb } from '../helpers/near-duplicate-web.js';

const MAX_DISTANCE = 8;
const NODES = 3;
let web: TestWeb;
let dir: string;
let world: NearDuplicateWeb;

before(async () => {
  world = await startNearDuplicateWeb('shoal-neardup-nodes-');
  ({ web, dir } = world);
});

after(async () => {
  await world?.close();
});

const familyOf = (url: string): number => world.familyOf(url);

interface Crawled {
  readonly nodes: readonly CrawlSummary[];
  /** Every node's pages, each with the index of the node that kept it. */
  readonly pages: readonly (PageMetadata & { readonly node: number })[];
}

/** Cross-node (copy, original) pairs of the shared crawl, for the test across runs. */
let crossPairs: (readonly [copy: string, original: string])[] = [];

async function crawl(
  name: string,
  isShared: boolean,
  seeds: readonly string[] = web.seeds,
  maxDepth: number | null = null,
): Promise<Crawled> {
  const summary = await new Crawl({
    nodeId: 'n',
    seeds: { urls: [...seeds] },
    scope: { maxDepth },
    store: { outDir: join(dir, name) },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1 },
    limits: { concurrency: 6, maxPages: 450 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    dedup: { near: { maxDistance: MAX_DISTANCE, isShared } },
    cluster: { nodes: NODES, partition: { strategy: 'url-hash' }, batchDelayMs: 50 },
  }).run();
  const nodes = summary.cluster?.nodes ?? [];
  assert.equal(nodes.length, NODES);
  const pages: (PageMetadata & { node: number })[] = [];
  for (const [i, n] of nodes.entries()) {
    for await (const p of readPageMetadata(join(n.outDir, 'pages.jsonl'))) pages.push({ ...p, node: i });
  }
  return { nodes, pages };
}

/** Marks whose page and original were kept by different nodes. */
function crossNodeMarks(c: Crawled): (PageMetadata & { node: number })[] {
  const nodeOf = new Map(c.pages.map((p) => [p.url, p.node]));
  return c.pages.filter((p) => p.nearDuplicateOf !== null && nodeOf.get(p.nearDuplicateOf) !== p.node);
}

/** Recall and precision over every node's pages, in the order they were fetched. */
function quality(c: Crawled): ReturnType<typeof nearDuplicateQuality> {
  return nearDuplicateQuality(
    [...c.pages].sort((a, b) => a.ts.localeCompare(b.ts)),
    familyOf,
  );
}

describe('near-duplicates across nodes (3 embedded url-hash nodes)', () => {
  test('shared fingerprints mark copies of pages other nodes fetched; without sharing none are', async (t) => {
    const [shared, alone] = await Promise.all([crawl('shared', true), crawl('alone', false)]);

    const byUrl = new Map(shared.pages.map((p) => [p.url, p]));
    const cross = crossNodeMarks(shared);
    assert.ok(cross.length >= 5, `${cross.length} marks across nodes`);
    crossPairs = cross.map((p) => [p.url, p.nearDuplicateOf as string] as const);
    for (const p of shared.pages.filter((x) => x.nearDuplicateOf !== null)) {
      const original = byUrl.get(p.nearDuplicateOf as string);
      assert.ok(original !== undefined, `${p.nearDuplicateOf} was fetched by a node`);
      assert.notEqual(original.url, p.url);
      assert.equal(original.nearDuplicateOf, null, `${p.url} names ${original.url}, itself a copy`);
      assert.ok(familyOf(p.url) >= 0);
      assert.equal(familyOf(p.url), familyOf(original.url), `${p.url} is not a copy of ${original.url}`);
      const d = hammingDistance(BigInt(`0x${p.simhash as string}`), BigInt(`0x${original.simhash as string}`));
      assert.equal(p.nearDuplicateDistance, d);
      assert.ok(d <= MAX_DISTANCE);
    }
    const marks = shared.pages.filter((p) => p.nearDuplicateOf !== null).length;
    assert.equal(
      shared.nodes.reduce((s, n) => s + n.nearDuplicates, 0),
      marks,
      'the summaries count the marks',
    );

    // Every node sent the fingerprints of the pages it kept to the two others, and took theirs in.
    for (const n of shared.nodes) {
      const x = n.exchange;
      assert.ok(x !== undefined);
      assert.ok(x.endpoint.sent.simhashes > 0 && x.endpoint.sent.simhashBytes > 0, JSON.stringify(x.endpoint.sent));
      assert.ok(x.inbox.simhashesTaken > 0 && x.inbox.simhashesTaken <= x.inbox.simhashes, JSON.stringify(x.inbox));
      const totals = JSON.parse(readFileSync(join(n.outDir, EXCHANGE_TOTALS_FILE), 'utf8')) as Record<string, number>;
      assert.equal(totals.simhashBytesSent, x.endpoint.sent.simhashBytes);
      assert.equal(totals.simhashesReceived, x.endpoint.received.simhashes);
    }
    const sent = shared.nodes.reduce((s, n) => s + (n.exchange?.endpoint.sent.simhashes ?? 0), 0);
    const kept = shared.pages.filter((p) => p.simhash !== null && p.simhash !== '0000000000000000' && p.nearDuplicateOf === null);
    // Each kept page goes once to each of the two other nodes (the last pages may still be in a batch at the stop).
    assert.ok(sent <= 2 * kept.length && sent >= 2 * kept.length * 0.8, `${sent} fingerprints sent for ${kept.length} kept pages`);

    assert.equal(crossNodeMarks(alone).length, 0, 'without sharing, marks stay on their node');
    for (const n of alone.nodes) assert.equal(n.exchange?.endpoint.sent.simhashes, 0);
    const q = quality(shared);
    const qAlone = quality(alone);
    assert.equal(q.precision, 1, JSON.stringify(q.wrong));
    assert.ok(q.recall > qAlone.recall, `recall shared ${q.recall}, alone ${qAlone.recall}`);
    assert.ok(q.recall >= 0.6, `recall ${q.recall}`);
    const bytes = shared.nodes.reduce((s, n) => s + (n.exchange?.endpoint.sent.simhashBytes ?? 0), 0);
    const urlBytes = shared.nodes.reduce((s, n) => s + (n.exchange?.endpoint.sent.bytes ?? 0), 0) - bytes;
    t.diagnostic(
      `marks ${marks} (${cross.length} across nodes); recall ${q.recall.toFixed(3)} shared, ${qAlone.recall.toFixed(3)} alone; ` +
        `${sent} fingerprints sent in ${bytes} bytes (${(bytes / sent).toFixed(1)} a fingerprint, ${(bytes / kept.length).toFixed(1)} a kept page); ` +
        `other messages ${urlBytes} bytes; ${shared.pages.length} pages; ` +
        `${shared.nodes.reduce((s, n) => s + (n.exchange?.endpoint.sent.simhashBatches ?? 0), 0)} batches; ` +
        `URLs of ${(kept.reduce((s, p) => s + p.url.length, 0) / kept.length).toFixed(1)} characters`,
    );
  });

  test('a restarted node still knows the pages other nodes shared before', async () => {
    const originals = [...new Set(crossPairs.map(([, o]) => o))];
    const copies = [...new Set(crossPairs.map(([c]) => c))].filter((c) => !originals.includes(c));
    assert.ok(copies.length >= 3, `${copies.length} copies`);
    const first = await crawl('resume', true, originals, 0);
    assert.deepEqual(new Set(first.pages.map((p) => p.url)), new Set(originals));
    const second = await crawl('resume', true, copies, 0);
    const firstRun = new Map(first.pages.map((p) => [p.url, p.node]));
    const secondRun = second.pages.filter((p) => !firstRun.has(p.url));
    assert.deepEqual(new Set(secondRun.map((p) => p.url)), new Set(copies));
    for (const p of secondRun) {
      const of = p.nearDuplicateOf;
      assert.ok(of !== null && firstRun.has(of), `${p.url} marked as a copy of a first-run page (${of})`);
      assert.equal(familyOf(p.url), familyOf(of));
    }
    assert.ok(
      secondRun.some((p) => firstRun.get(p.nearDuplicateOf as string) !== p.node),
      'some copies name a page another node kept in the first run',
    );
  });
});
