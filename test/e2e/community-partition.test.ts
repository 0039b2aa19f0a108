/**
 * `--partition community` (SPEC §4.4, seed 002): every node a community crawler, a link going to the
 * node whose pages cite its URL most. The world: the test web's ring communities (17 × 100 pages,
 * k = 32, o = 2), each community spread over 4 hosts, so that host hashing splits every community
 * between nodes; 4 nodes, 800 pages, community ordering on every node.
 *
 * - Embedded: each node's pages keep to communities far better than under host hashing (cohesion,
 *   precision and recall), URLs and link summaries cross the exchange, the live figures of the
 *   progress events match `shoal eval`'s, and the simulator, replaying the same strategy on the
 *   web's truth, finds the same.
 * - Over 2 worker threads, and over NATS with two `shoal node` processes: the same strategy runs,
 *   link counts travel both ways, and URLs are sent on the other node's votes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { channel } from 'node:diagnostics_channel';
import { Crawl } from '../../src/crawl/crawl.js';
import { CrawlChannel, type CrawlProgress } from '../../src/obs/events.js';
import type { CrawlSummary } from '../../src/node/crawl-stats.js';
import type { CrawlConfigInput } from '../../src/config/crawl-config.js';
import { readCommunityEval, type CommunityEval } from '../../src/cluster/read-community.js';
import { communityScores, meanCommunityScores, type MeanCommunityScores } from '../../src/eval/community-metrics.js';
import { orderingPolicyFrom, orderPolicySchema } from '../../src/order/registry.js';
import { createPartitioner } from '../../src/partition/registry.js';
import { loadTruthGraph } from '../../src/sim/graph/truth-graph.js';
import { simulate } from '../../src/sim/simulator.js';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../src/web/truth/read.js';
import { runInProcess, runNodeProcess } from '../helpers/cli.js';
import { startNatsServer, type TestNatsServer } from '../helpers/nats-server.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const NODES = 4;
const BUDGET = 800;
const WEB = { ...WEB_PRESETS.community, seed: 5, community: { ...WEB_PRESETS.community.community, hostsPerCommunity: 4 } };

// Started here, not in before(): the helper stops the server in an after() hook of the file.
const nats: TestNatsServer = await startNatsServer();
let web: TestWeb;
let dir: string;
let truth: Truth;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-community-partition-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
});

after(async () => {
  await web?.close();
  await nats.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function config(name: string, strategy: 'community' | 'host-hash', workers = 0): CrawlConfigInput {
  return {
    nodeId: 'c',
    seeds: { urls: [...web.seeds] },
    store: { outDir: join(dir, name) },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 4, maxPages: BUDGET },
    progressIntervalMs: 0,
    order: { policy: 'community' },
    cluster: { nodes: NODES, workers, partition: { strategy }, truthDir: join(dir, 'truth') },
  };
}

const crawls = new Map<string, Promise<{ summary: CrawlSummary; scores: CommunityEval; live: CrawlProgress | null }>>();
/** Runs a crawl once, keeping its last crawl-wide progress event, and scores each node's pages against the truth's communities. */
function crawl(name: string, strategy: 'community' | 'host-hash', workers = 0) {
  let run = crawls.get(name);
  if (run === undefined) {
    run = (async () => {
      let live: CrawlProgress | null = null;
      const onProgress = (m: unknown): void => {
        if ((m as CrawlProgress).node === 'c') live = m as CrawlProgress;
      };
      channel(CrawlChannel.progress).subscribe(onProgress);
      let summary: CrawlSummary;
      try {
        summary = await new Crawl({ ...config(name, strategy, workers), progressIntervalMs: 200 }).run();
      } finally {
        channel(CrawlChannel.progress).unsubscribe(onProgress);
      }
      const scores = await readCommunityEval(join(dir, name), truth);
      assert.ok(scores !== null);
      return { summary, scores, live };
    })();
    crawls.set(name, run);
  }
  return run;
}

/** The live figures of the last progress event agree with `shoal eval`'s, computed after the crawl. */
function assertLive(live: CrawlProgress | null, scores: CommunityEval, what: string): void {
  const figures = live?.collab?.community;
  assert.ok(figures != null, `${what}: live community figures ${JSON.stringify(live?.collab)}`);
  for (const key of ['cohesion', 'precision', 'recall'] as const) {
    assert.ok(Math.abs(figures[key] - scores.mean[key]) < 0.05, `${what}: live ${key} ${figures[key]} vs ${scores.mean[key]}`);
  }
}

const sum = (s: CrawlSummary, pick: (n: NonNullable<NonNullable<CrawlSummary['cluster']>['nodes'][number]['exchange']>) => number) =>
  (s.cluster?.nodes ?? []).reduce((a, n) => a + (n.exchange === undefined || n.exchange === null ? 0 : pick(n.exchange)), 0);

/** The simulator's run of the same crawl on the web's truth. */
async function simulated(strategy: 'community' | 'host-hash'): Promise<MeanCommunityScores> {
  const graph = await loadTruthGraph(join(dir, 'truth'));
  try {
    const run = await simulate({
      graph,
      nodeCount: NODES,
      partitioner: createPartitioner(strategy === 'community' ? { strategy, k: 32, trackedUrls: 1 << 17 } : { strategy }, NODES),
      createPolicy: () => orderingPolicyFrom(orderPolicySchema.parse({ policy: 'community' })),
      maxPages: BUDGET,
      concurrency: 4,
      latencyMs: 100,
      politeness: { minDelayMs: 0, delayFactor: 0 },
    });
    const sets: number[][] = Array.from({ length: NODES }, () => []);
    for (let i = 0; i < run.visits.count; i++) (sets[run.visits.nodes[i] as number] as number[]).push(run.visits.pages[i] as number);
    return meanCommunityScores(sets.map((pages) => communityScores(truth.graph, truth.community, pages)));
  } finally {
    await graph.close();
  }
}

const percent = (m: MeanCommunityScores): string =>
  `cohesion ${(m.cohesion * 100).toFixed(1)} %, precision ${(m.precision * 100).toFixed(1)} %, recall ${(m.recall * 100).toFixed(1)} %`;

describe('--partition community, 4 nodes, embedded', () => {
  test('nodes keep to communities far better than under host hashing, and the simulator finds the same', async () => {
    const community = await crawl('community', 'community');
    const hosts = await crawl('host-hash', 'host-hash');
    const c = community.scores.mean;
    const h = hosts.scores.mean;
    assert.equal(community.summary.cluster?.partitioner.id, 'community');
    assertLive(community.live, community.scores, 'embedded');
    assert.ok(c.cohesion > h.cohesion + 0.1, `community ${percent(c)}; host-hash ${percent(h)}`);
    assert.ok(c.precision > h.precision + 0.05, `community ${percent(c)}; host-hash ${percent(h)}`);
    assert.ok(c.recall > h.recall + 0.1, `community ${percent(c)}; host-hash ${percent(h)}`);
    // Links moved: URLs were sent on the other nodes' votes, which came in link summaries.
    assert.ok(sum(community.summary, (e) => e.router.sent) > 20, 'URLs sent');
    assert.ok(sum(community.summary, (e) => e.inbox.linkSummaries) >= NODES, 'link summaries received');

    const simCommunity = await simulated('community');
    const simHosts = await simulated('host-hash');
    assert.ok(
      simCommunity.precision > simHosts.precision + 0.05,
      `simulator: community ${percent(simCommunity)}; host-hash ${percent(simHosts)}`,
    );
    assert.ok(
      simCommunity.cohesion > simHosts.cohesion + 0.1,
      `simulator: community ${percent(simCommunity)}; host-hash ${percent(simHosts)}`,
    );
    assert.ok(Math.abs(simCommunity.precision - c.precision) < 0.15, `simulator ${percent(simCommunity)}; crawl ${percent(c)}`);
  });

  test('shoal eval prints the community lines of the crawl, and shoal crawl ends with them when it names the truth', async () => {
    await crawl('community', 'community');
    const printed = await runInProcess(['eval', join(dir, 'community'), '--truth', join(dir, 'truth')]);
    assert.equal(printed.code, 0, printed.err);
    assert.match(printed.out, /community precision +\d+\.\d%  recall \d+\.\d%/);
    const crawled = await runInProcess([
      'crawl',
      ...['--nodes', '2', '--partition', 'community', '--order', 'community', '--max-pages', '200', '--min-delay-ms', '0'],
      ...['--seeds-file', web.seedsFile, '--hosts-file', web.hostsFile, '--allow-loopback', '--out', join(dir, 'cli')],
      ...['--set', 'politeness.delayFactor=0', '--set', `cluster.truthDir=${join(dir, 'truth')}`],
    ]);
    assert.equal(crawled.code, 0, crawled.err);
    assert.match(crawled.out, /community cohesion +\d+\.\d%/);
    assert.match(crawled.out, /community precision +\d+\.\d%  recall \d+\.\d%/);
  });
});

describe('shoal simulate --partition community on the web’s truth', () => {
  test('prints the community scores of each run, the same as scoring its visits', async () => {
    const out = join(dir, 'sim-cli');
    const run = await runInProcess([
      'simulate',
      ...['--graph', join(dir, 'truth'), '--nodes', String(NODES), '--partition', 'community', '--order', 'community,bfs'],
      ...['--out', out, '--max-pages', String(BUDGET), '--concurrency', '4', '--min-delay-ms', '0', '--set', 'politeness.delayFactor=0'],
    ]);
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      /communities \(means over nodes\):\npolicy +cohesion +precision +recall +overlap +majorities\ncommunity +\d+\.\d%/,
    );
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      runs: { label: string; visitsFile: string; community: { mean: MeanCommunityScores } }[];
    };
    for (const r of result.runs) {
      const sets: number[][] = Array.from({ length: NODES }, () => []);
      for (const line of readFileSync(join(out, r.visitsFile), 'utf8').trim().split('\n').slice(1)) {
        const [, page, , , node] = line.split('\t');
        (sets[Number(node)] as number[]).push(Number(page));
      }
      const want = meanCommunityScores(sets.map((pages) => communityScores(truth.graph, truth.community, pages)).filter((x) => x.size > 0));
      assert.ok(
        Math.abs(r.community.mean.precision - want.precision) < 1e-9,
        `${r.label}: ${r.community.mean.precision} vs ${want.precision}`,
      );
      assert.ok(Math.abs(r.community.mean.cohesion - want.cohesion) < 1e-9, `${r.label}: cohesion`);
    }
  });
});

describe('--partition community over 2 worker threads', () => {
  test('the same strategy runs across threads: counts travel and nodes keep to communities', async () => {
    const threads = await crawl('threads', 'community', 2);
    const hosts = await crawl('host-hash', 'host-hash');
    assert.ok(sum(threads.summary, (e) => e.inbox.linkSummaries) >= NODES, 'link summaries received');
    assert.ok(sum(threads.summary, (e) => e.router.sent) > 20, 'URLs sent');
    assert.ok(threads.scores.mean.cohesion > hosts.scores.mean.cohesion + 0.1, `threads ${percent(threads.scores.mean)}`);
    assertLive(threads.live, threads.scores, 'threads');
  });
});

describe('--partition community over NATS', () => {
  function node(partition: number, out: string): Promise<{ code: number | null; stderr: string }> {
    const args = [
      bin,
      'node',
      ...['--nats', nats.url, '--crawl', 'community-a', '--nodes', '2', '--partition', 'community', '--partitions', String(partition)],
      ...['--node-id', `community${partition}`, '--out', out, '--order', 'community'],
      ...web.seeds.flatMap((s) => ['--seed', s]),
      ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
      ...['--allow-loopback', '--min-delay-ms', '0', '--max-pages', '300'],
    ];
    return runNodeProcess(args, {
      ...process.env,
      SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000',
      SHOAL_CRAWL_POLITENESS_DELAY_FACTOR: '0',
    });
  }

  test('two shoal node processes: link counts travel both ways and URLs go to the node that cites them more', async () => {
    const outs = [join(dir, 'nats0'), join(dir, 'nats1')] as const;
    const [a, b] = await Promise.all([node(0, outs[0]), node(1, outs[1])]);
    assert.equal(a.code, 0, a.stderr.slice(-2000));
    assert.equal(b.code, 0, b.stderr.slice(-2000));
    const totals = outs.map((out) => JSON.parse(readFileSync(join(out, 'exchange.json'), 'utf8')) as Record<string, number>);
    for (const [i, t] of totals.entries()) {
      assert.ok((t.linkSummariesSent as number) > 0 && (t.linkSummariesReceived as number) > 0, `node ${i}: ${JSON.stringify(t)}`);
    }
    assert.ok((totals[0]?.urlsSent as number) + (totals[1]?.urlsSent as number) > 0, 'URLs sent on the other node’s votes');
    for (const out of outs) {
      let pages = 0;
      for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) if (e.outcome === 'ok') pages++;
      assert.ok(pages > 50, `${out}: ${pages} pages`);
    }
  });
});
