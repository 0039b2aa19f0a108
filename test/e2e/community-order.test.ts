/**
 * `--order community` (SPEC §4.4, seed 002) on the test web's ring-community graph (the `community`
 * preset: 17 communities of 100 pages, k = 32, o = 2, one host each), from one seed with a budget of
 * 120 pages and one connection (with more, the other hosts' connections fetch other communities
 * whatever the order: politeness serves hosts, the order only URLs within what politeness allows):
 *
 * - a live crawl over loopback keeps to the seed's community far better than breadth-first;
 * - `shoal eval`'s reader scores the crawl directory alike (cohesion, precision, recall);
 * - the simulator, replaying the same policy on the web's truth from the same seed, agrees with the
 *   crawl (the same majority community, precision within a few points).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { orderingPolicyFrom, orderPolicySchema, type OrderPolicyInput } from '../../src/order/registry.js';
import { simulate } from '../../src/sim/simulator.js';
import { loadTruthGraph } from '../../src/sim/graph/truth-graph.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../src/web/truth/read.js';
import { readCommunityEval } from '../../src/cluster/read-community.js';
import { runInProcess } from '../helpers/cli.js';

const BUDGET = 120;
let web: TestWeb;
let dir: string;
let truth: Truth;

before(async () => {
  web = await startTestWeb({ ...WEB_PRESETS.community, seed: 5 });
  dir = mkdtempSync(join(tmpdir(), 'shoal-community-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Share of the pages in the majority community, and that community. */
function precisionOf(pages: readonly number[]): { precision: number; community: number } {
  const counts = new Map<number, number>();
  for (const p of pages) counts.set(truth.community[p] as number, (counts.get(truth.community[p] as number) ?? 0) + 1);
  let community = -1;
  let best = 0;
  for (const [c, n] of counts) if (n > best) [community, best] = [c, n];
  return { precision: best / Math.max(1, pages.length), community };
}

async function crawl(name: string, order: OrderPolicyInput): Promise<number[]> {
  const out = join(dir, name);
  await new Crawl({
    seeds: { urls: [web.seeds[0] as string] },
    store: { outDir: out },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 1, maxPages: BUDGET },
    progressIntervalMs: 0,
    order,
  }).run();
  const pages: number[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
    if (e.outcome !== 'ok') continue;
    const u = new URL(e.url);
    const id = truth.pageIdOf(`http://${u.hostname}${u.pathname}${u.search}`);
    if (id >= 0) pages.push(id);
  }
  return pages;
}

async function simulated(order: OrderPolicyInput): Promise<number[]> {
  const graph = await loadTruthGraph(join(dir, 'truth'));
  try {
    const seed = truth.manifest.seeds[0] as number;
    const config = orderPolicySchema.parse(order);
    const run = await simulate({
      graph,
      createPolicy: () => orderingPolicyFrom(config),
      seeds: [seed],
      maxPages: BUDGET,
      concurrency: 1,
      latencyMs: 10,
      politeness: { minDelayMs: 0, delayFactor: 0 },
    });
    return Array.from(run.visits.pages.subarray(0, run.visits.count));
  } finally {
    await graph.close();
  }
}

describe('--order community on ring communities, one seed, 120 pages', () => {
  test('the crawl keeps to the seed community far better than breadth-first, and the simulator agrees', async () => {
    const bfs = precisionOf(await crawl('bfs', { policy: 'bfs' }));
    const community = precisionOf(await crawl('community', { policy: 'community' }));
    const seedCommunity = truth.community[truth.manifest.seeds[0] as number] as number;
    assert.equal(community.community, seedCommunity);
    assert.ok(community.precision >= 0.75, `community precision ${community.precision}`);
    assert.ok(community.precision > bfs.precision + 0.2, `community ${community.precision} vs breadth-first ${bfs.precision}`);
    // shoal eval scores the crawl directory the same way, with cohesion and recall besides.
    const scored = await readCommunityEval(join(dir, 'community'), truth);
    assert.ok(scored !== null);
    assert.equal(scored.nodes.length, 1);
    assert.equal(scored.nodes[0]?.majority, seedCommunity);
    assert.ok(Math.abs((scored.nodes[0]?.precision ?? 0) - community.precision) < 0.02, `eval ${scored.nodes[0]?.precision}`);
    assert.ok((scored.nodes[0]?.cohesion ?? 0) > 0.5 && (scored.nodes[0]?.recall ?? 0) > 0.5, JSON.stringify(scored.nodes[0]));
    const printed = await runInProcess(['eval', join(dir, 'community'), '--truth', join(dir, 'truth')]);
    assert.equal(printed.code, 0, printed.err);
    assert.match(printed.out, /community precision +\d+\.\d%  recall \d+\.\d%/);
    const sim = precisionOf(await simulated({ policy: 'community' }));
    assert.equal(sim.community, seedCommunity);
    assert.ok(Math.abs(sim.precision - community.precision) <= 0.05, `simulator ${sim.precision} vs crawl ${community.precision}`);
    const simBfs = precisionOf(await simulated({ policy: 'bfs' }));
    assert.ok(sim.precision > simBfs.precision + 0.1, `simulator: community ${sim.precision} vs breadth-first ${simBfs.precision}`);
  });

  test('the paper’s ranking (by the citing page) runs too, and beats breadth-first in the simulator', async () => {
    const citing = precisionOf(await simulated({ policy: 'community', rank: 'citing' }));
    const bfs = precisionOf(await simulated({ policy: 'bfs' }));
    assert.ok(citing.precision >= bfs.precision, `citing ${citing.precision} vs breadth-first ${bfs.precision}`);
  });
});
