/**
 * The simulator predicts the crawl (issue: "a real crawl with --order pagerank matches the
 * simulator's order on the same graph"): a test web with one page per host and none of its faults
 * is crawled for real over loopback with `order: pagerank`, one fetch slot, no delay and k = 0 (so
 * the robots.txt fetch that opens each host adds no wait), and its ground truth is simulated with the
 * same policy and politeness and zero latency. Both must visit the pages in the same order: the
 * policy code, the frontier's scheduling core and the order of calls are shared, so any difference is
 * a bug in one of them. Also for breadth-first and backlink, whose orders differ from pagerank's
 * (checked), and for the two policies that read text: similarity and the hot queue, with a query word
 * of the web's anchors, titles and text, on the truth with its content rebuilt (titles, text and
 * anchors parsed from the pages as the server renders them), which exercises that plumbing end to
 * end. The truth is exported with the web's port, so the simulator's URLs (which similarity and the
 * hot queue read) are the crawl's.
 * Mirrors and near-duplicates are off: the simulator does not model duplicate detection (a crawl
 * does not follow the links of a copy). Links written rel=nofollow and then again without it are
 * kept: the truth export places such an edge where the crawl queues it, with that link's anchor.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { OrderPolicyInput } from '../../../src/order/registry.js';
import { orderingPolicyFrom, orderPolicySchema } from '../../../src/order/registry.js';
import { loadTruthGraph } from '../../../src/sim/graph/truth-graph.js';
import type { SimGraph } from '../../../src/sim/graph/sim-graph.js';
import { simulate } from '../../../src/sim/simulator.js';
import { CRAWL_LOG_FILE, readCrawlLog } from '../../../src/store/crawl-log.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { scratchDirs } from '../../helpers/scratch.js';
import { NO_FAULTS } from '../../helpers/test-web.js';

const { root } = scratchDirs('shoal-order-match-');
const PAGES = 150;
let web: TestWeb;
let graph: SimGraph;

before(async () => {
  web = await startTestWeb({
    seed: 7,
    hosts: PAGES,
    pages: PAGES,
    seeds: 3,
    server: { addressCount: 8 },
    robots: {
      rulesRate: 0,
      notFoundRate: 0,
      serverErrorRate: 0,
      unavailableRate: 0,
      redirectRate: 0,
      garbageRate: 0,
      crawlDelayRate: 0,
      sitemapRate: 0,
    },
    faults: { ...NO_FAULTS, hangRate: 0 },
    traps: { hostRate: 0 },
    latency: { slowHostRate: 0 },
    // The simulator does not model duplicate detection (a crawl does not follow a copy's links).
    duplicates: { mirrorHostRate: 0, nearDuplicateRate: 0 },
  });
  await exportTruth(web.model, join(root, 'truth'), { port: web.port });
  graph = await loadTruthGraph(join(root, 'truth'), { rebuildContent: true });
});
after(async () => {
  graph?.close();
  await web?.close();
});

/** The pages a real crawl fetched, in order (the crawl log's `ok` lines: with one fetch slot, completion order is fetch order). */
async function crawlOrder(order: OrderPolicyInput, name: string): Promise<string[]> {
  const out = join(root, name);
  await new Crawl({
    seeds: { urls: [...web.seeds] },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 1 },
    order,
    store: { outDir: out },
    progressIntervalMs: 0,
  }).run();
  const urls: string[] = [];
  for await (const e of readCrawlLog(join(out, CRAWL_LOG_FILE))) if (e.outcome === 'ok') urls.push(e.url);
  return urls;
}

/** The pages the simulator visits on the web's truth, in order, as URLs. */
async function simulatedOrder(order: OrderPolicyInput): Promise<string[]> {
  const config = orderPolicySchema.parse(order);
  const seeds = web.seeds.map((u) => graph.pageIdOf(u));
  const run = await simulate({
    graph,
    createPolicy: () => orderingPolicyFrom(config, {}),
    seeds,
    concurrency: 1,
    latencyMs: 0,
    politeness: { minDelayMs: 0, delayFactor: 0 },
  });
  return Array.from(run.visits.pages.subarray(0, run.visits.count), (p) => graph.urlOf(p));
}

/** A word of the test web's anchors, titles and text (on 16 pages' anchors, 2 titles, 19 texts). */
const QUERY = 'cosmology';

describe('a real crawl and the simulator visit the same pages in the same order', () => {
  const orders = new Map<string, string[]>();
  const cases: [string, OrderPolicyInput][] = [
    ['pagerank', { policy: 'pagerank', recomputeEvery: 7, sliceWork: 0, minChange: 0 }],
    ['bfs', { policy: 'bfs' }],
    ['backlink', { policy: 'backlink' }],
    ['similarity', { policy: 'similarity', query: QUERY }],
    ['hot-queue', { policy: 'hot-queue', terms: [QUERY] }],
  ];
  for (const [name, order] of cases) {
    it(name, { timeout: 120_000 }, async () => {
      const real = await crawlOrder(order, name);
      const simulated = await simulatedOrder(order);
      assert.ok(real.length > PAGES * 0.8, `the crawl must reach most pages (${real.length} of ${PAGES})`);
      const firstDifference = real.findIndex((u, i) => u !== simulated[i]);
      assert.deepEqual(
        real,
        simulated,
        `first difference at visit ${firstDifference}: ${real[firstDifference]} vs ${simulated[firstDifference]}`,
      );
      orders.set(name, real);
    });
  }

  it("breadth-first and backlink orders differ from pagerank's", () => {
    const pagerank = orders.get('pagerank');
    assert.ok(pagerank !== undefined, 'the pagerank test ran');
    for (const name of ['bfs', 'backlink', 'similarity', 'hot-queue']) {
      const other = orders.get(name);
      assert.ok(other !== undefined, `the ${name} test ran`);
      assert.notDeepEqual(other, pagerank, `${name} visits the pages in pagerank's order`);
    }
  });
});
