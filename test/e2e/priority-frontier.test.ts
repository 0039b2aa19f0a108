/**
 * A priority order over the disk-backed frontier (`src/frontier-store/README.md`, Parking): `shoal
 * crawl --order location` of a 2-host, 240-page test web with one fetch slot and
 * `frontier.memoryUrlsPerHost: 3`, so that almost all of a host's queued URLs wait on disk, in
 * priority bands. The run is killed (`kill -9`) after 70 pages and run again to the end.
 *
 * IL(u) reads only the URL, so the test computes every URL's priority itself (deeper paths and some
 * digits first: an order unlike breadth-first's) and judges the fetch order from the crawl log and
 * the link graph: once a URL is queued (a few fetches after the first page that links to it without
 * nofollow, for the pages in the pipeline), at most its host's share of URLs of a lower band are
 * fetched before it in each run (those that took the host's slots in memory as they came; the
 * resumed run's recovery fills them again). The test web has no faults: a retried URL waits for its
 * host's back-off and would be fetched after lower ones. Breadth-first order on the same web breaks
 * the bound many times over (a URL waited behind about a hundred), so the check can fail. And
 * nothing is lost across the kill: every page a polite crawler reaches is fetched, and no page
 * fetched for good before the kill is fetched again beyond the fetch slots.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { bandOf } from '../../src/frontier-store/parked-host.js';
import { LocationPolicy } from '../../src/order/location.js';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { LinkFlag } from '../../src/store/link-graph.js';
import { readLinkGraph } from '../../src/store/link-graph-reader.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { NO_FAULTS } from '../helpers/test-web.js';
import { refetchesAfterKill, runKilledAfter, runToEnd, truthDirOf, unrequestedReachablePages } from '../helpers/resume.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-priority-frontier-'));
const SHARE = 3;
const KILL_AFTER_PAGES = 70;
/** Fetches after the page that links to a URL before the URL is surely queued: pages still being analysed. */
const PIPELINE = 5;
const ORDER = { slashWeight: 1, keywordWeights: { '1': 0.5, '3': 0.25, '7': 1.5 } };
const policy = new LocationPolicy({ ...ORDER, suffixWeights: {} });
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    seed: 3,
    hosts: 2,
    pages: 240,
    seeds: 2,
    traps: { hostRate: 0 },
    duplicates: { mirrorHostRate: 0, nearDuplicateRate: 0 },
    latency: { slowHostRate: 0 },
    faults: NO_FAULTS,
  });
  const yaml = (policyId: string): string =>
    `frontier:\n  memoryUrlsPerHost: ${SHARE}\n  checkpointIntervalMs: 200ms\npoliteness:\n  delayFactor: 0\n` +
    `order:\n  policy: ${policyId}\n` +
    (policyId === 'location'
      ? `  slashWeight: ${ORDER.slashWeight}\n  suffixWeights: {}\n  keywordWeights: ${JSON.stringify(ORDER.keywordWeights)}\n`
      : '');
  writeFileSync(join(dir, 'location.yaml'), yaml('location'));
  writeFileSync(join(dir, 'bfs.yaml'), yaml('bfs'));
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function args(out: string, config: string): string[] {
  return [
    bin,
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([h, ip]) => ['--resolve', `${h}=${ip}`]),
    '--allow-loopback',
    '--out',
    out,
    '--min-delay-ms',
    '0',
    '--concurrency',
    '1',
    '--config',
    join(dir, config),
  ];
}

/** The pages fetched (`ok`), in crawl-log order. */
async function fetchOrder(out: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl')))
    if (e.outcome === 'ok' && !e.url.endsWith('/robots.txt')) urls.push(e.url);
  return urls;
}

/**
 * For each fetched URL, the URLs of its host with a lower band fetched after it was surely queued
 * and before it, within the same run (`runStart`: the index where the resumed run's fetches begin).
 * @returns the largest such count.
 */
async function worstWait(
  out: string,
  runStart: number,
): Promise<{ readonly worst: number; readonly fetched: number; readonly at: string }> {
  const order = await fetchOrder(out);
  const position = new Map(order.map((u, i) => [u, i] as const));
  const graph = await readLinkGraph(join(out, 'links'));
  // The first fetch position of a page linking to each URL. A nofollow link is in the graph but
  // queues nothing: a URL linked that way first waits for a followed link.
  const foundAt = new Map<string, number>();
  const { offsets, targets } = graph.csr;
  for (let source = 0; source + 1 < offsets.length; source++) {
    const at = position.get(graph.urls[source] as string);
    if (at === undefined) continue;
    for (let e = offsets[source] as number; e < (offsets[source + 1] as number); e++) {
      if (((graph.flags[e] as number) & LinkFlag.nofollow) !== 0) continue;
      const target = graph.urls[targets[e] as number] as string;
      foundAt.set(target, Math.min(foundAt.get(target) ?? Number.POSITIVE_INFINITY, at));
    }
  }
  graph.close();
  const band = order.map((u) => bandOf(policy.score(u)));
  const host = order.map((u) => new URL(u).host);
  let worst = 0;
  let at = '';
  for (let i = 0; i < order.length; i++) {
    const found = foundAt.get(order[i] as string);
    if (found === undefined) continue; // a seed
    const from = Math.max(found + PIPELINE, i >= runStart ? runStart : 0);
    let worse = 0;
    for (let j = from + 1; j < i; j++) if (host[j] === host[i] && (band[j] as number) < (band[i] as number)) worse++;
    if (worse > worst) {
      worst = worse;
      at = `${order[i]} (band ${band[i]}), fetch ${i}, found at ${found}, run from ${runStart}: bands of its host before it ${band
        .slice(from + 1, i)
        .filter((_, k) => host[from + 1 + k] === host[i])
        .join(' ')}`;
    }
  }
  return { worst, fetched: order.length, at };
}

describe('a priority order over the disk-backed frontier', () => {
  it('fetches in priority order to within the share, spills to disk, and loses nothing across kill -9', { timeout: 120_000 }, async () => {
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/commands/crawl.js', import.meta.url))), 'dist/ is built (`npm run build`)');
    const out = join(dir, 'location');
    const killed = await runKilledAfter(web, args(out, 'location.yaml'), KILL_AFTER_PAGES);
    assert.equal(killed, 'SIGKILL', 'the first run was still crawling when killed');
    const firstRun = web.log.count;
    const runStart = (await fetchOrder(out)).length;
    const { code, stdout, stderr } = await runToEnd(args(out, 'location.yaml'));
    assert.equal(code, 0, stderr);
    assert.match(stdout, /done: the frontier is empty/);

    // Nothing lost, little fetched twice.
    const missing = await unrequestedReachablePages(web, truthDirOf(dir));
    assert.deepEqual(missing, [], `${missing.length} reachable pages never fetched`);
    const { refetched, window } = refetchesAfterKill(web, firstRun, 1);
    assert.ok(refetched <= window, `${refetched} pages fetched again; window ${window}`);

    // The fetch order follows the priorities, to within the bound.
    const location = await worstWait(out, runStart);
    assert.ok(location.fetched > 150, `fetched ${location.fetched}`);
    assert.ok(
      location.worst <= SHARE,
      `a URL waited behind ${location.worst} URLs of a lower band of its host (share ${SHARE}): ${location.at}`,
    );

    // The same judge on breadth-first order: far beyond the bound.
    const bfsOut = join(dir, 'bfs');
    const bfs = await runToEnd(args(bfsOut, 'bfs.yaml'));
    assert.equal(bfs.code, 0, bfs.stderr);
    const breadth = await worstWait(bfsOut, Number.POSITIVE_INFINITY);
    assert.ok(breadth.worst > 4 * SHARE, `breadth-first's worst wait ${breadth.worst}: the judge must be able to fail`);
  });
});
