/**
 * Topic-partitioned crawls (`--partition topic`, SPEC §4.2) with the model shipped with shoal, over
 * real sockets against a test web with its ground truth:
 *
 * - embedded, 4 nodes: every page a node stores has a category that node owns (or none, kept where
 *   fetched); boundary pages went to their owners; pages.jsonl and the crawl log say category,
 *   probability and reason; `readTopicEval` reports locality, accuracy against the truth and τ;
 * - 4 nodes over 2 worker threads: the same placement rule holds;
 * - `cluster.forward: urls`: no page travels, the links of boundary pages do;
 * - `order: topic`: each node orders its frontier by the categories it owns, and the crawl ends;
 * - distributed: two `shoal node` processes over a private nats-server classify with the same model
 *   and store pages by category; a node that loads another model is refused, naming cluster.model.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../src/config/crawl-config.js';
import type { CrawlSummary } from '../../src/node/crawl-stats.js';
import { readTopicEval } from '../../src/cluster/read-topic.js';
import { readCrawlLog, type CrawlLogEntry } from '../../src/store/crawl-log.js';
import { readPageMetadata } from '../../src/store/page-metadata.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../src/web/truth/read.js';
import { encodeModelFile } from '../../src/classify/model-file.js';
import { trainNaiveBayes } from '../../src/classify/naive-bayes-trainer.js';
import { startNatsServer, type TestNatsServer } from '../helpers/nats-server.js';
import { topicCorpus } from '../helpers/topic-corpus.js';
import { waitUntil } from '../helpers/wait.js';
import { runNodeProcess } from '../helpers/cli.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const WEB = {
  seed: 11,
  hosts: 24,
  pages: 900,
  seeds: 6,
  server: { addressCount: 24 },
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
};
const nats: TestNatsServer = await startNatsServer();
let web: TestWeb;
let dir: string;
let truth: Truth;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-topic-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function config(outDir: string, cluster: CrawlConfigInput['cluster']): CrawlConfigInput {
  return {
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100, maxAttempts: 3 },
    limits: { concurrency: 12, maxPages: 400 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    cluster,
  };
}

async function logOf(path: string): Promise<CrawlLogEntry[]> {
  const out: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(path)) out.push(e);
  return out;
}

/** Category → partition from the spec the crawl recorded (`CATEGORY=p` entries). */
function assignmentOf(summary: CrawlSummary): Map<string, number> {
  const entries = summary.cluster?.partitioner.params.assignment as readonly string[];
  return new Map(
    entries.map((e) => {
      const [c, p] = e.split('=');
      return [c as string, Number(p)];
    }),
  );
}

/** Checks that each node stored only pages of its own categories; returns how many pages were checked. */
async function assertStoredByCategory(summary: CrawlSummary): Promise<number> {
  const assignment = assignmentOf(summary);
  let checked = 0;
  for (const [i, s] of (summary.cluster?.nodes ?? []).entries()) {
    for await (const p of readPageMetadata(join(s.outDir, 'pages.jsonl'))) {
      if (p.category === null) continue;
      assert.equal(assignment.get(p.category), i, `${p.url} (${p.category}) stored on node ${i}`);
      checked++;
    }
  }
  return checked;
}

describe('embedded, 4 nodes, --partition topic with the shipped model', () => {
  let summary: CrawlSummary;
  before(async () => {
    summary = await new Crawl(config(join(dir, 'embedded'), { nodes: 4, partition: { strategy: 'topic' } })).run();
  });

  test('each node stores only pages of its categories, and boundary pages travelled', async () => {
    assert.equal(summary.cluster?.partitioner.id, 'topic');
    assert.match(String(summary.cluster?.partitioner.params.model), /^[0-9a-f]{64}$/);
    const checked = await assertStoredByCategory(summary);
    assert.ok(checked > 150, `${checked} pages checked`);
    const received = (summary.cluster?.nodes ?? []).reduce((a, s) => a + (s.exchange?.inbox.pages ?? 0), 0);
    assert.ok(received > 20, `${received} boundary pages received`);
  });

  test('pages.jsonl and the crawl log carry category, probability and reason', async () => {
    const node = summary.cluster?.nodes[0] as CrawlSummary;
    const reasons = new Set<string>();
    for await (const p of readPageMetadata(join(node.outDir, 'pages.jsonl'))) {
      if (p.categoryReason !== null) reasons.add(p.categoryReason);
      if (p.categoryReason === 'classifier')
        assert.ok(p.categoryProbability !== null && p.categoryProbability > 0 && p.categoryProbability <= 1);
      if (p.categoryReason === 'language') assert.equal(p.category, 'WORLD');
    }
    assert.ok(reasons.has('classifier'), [...reasons].join());
    const all = (await Promise.all((summary.cluster?.nodes ?? []).map((s) => logOf(join(s.outDir, 'crawl-log.jsonl'))))).flat();
    const classified = all.filter((e) => e.categoryReason === 'classifier');
    assert.ok(classified.length > 100);
    assert.ok(
      all.some((e) => e.categoryReason === 'language' && e.category === 'WORLD'),
      'the test web has non-English pages',
    );
  });

  test('eval reports topic locality, accuracy against the truth and Kendall tau', async () => {
    const t = await readTopicEval(join(dir, 'embedded'), truth);
    assert.ok(t.locality.pairs > 100 && t.locality.locality !== null && t.locality.locality > 0.25, JSON.stringify(t.locality));
    assert.ok(t.locality.trueLocality !== null);
    assert.ok(t.accuracy !== null && t.accuracy.pairs > 150 && (t.accuracy.accuracy as number) > 0.3, `${t.accuracy?.accuracy}`);
    assert.equal(t.taus.length, 4);
    assert.equal(t.hashTaus.length, 4);
  });
});

describe('4 nodes over 2 worker threads, --partition topic', () => {
  test('the same placement rule holds', async () => {
    const summary = await new Crawl(config(join(dir, 'threads'), { nodes: 4, workers: 2, partition: { strategy: 'topic' } })).run();
    assert.ok((await assertStoredByCategory(summary)) > 150);
  });
});

describe('--partition topic with cluster.forward urls', () => {
  test('no page travels; the links of boundary pages do', async () => {
    const summary = await new Crawl(config(join(dir, 'urls'), { nodes: 4, partition: { strategy: 'topic' }, forward: 'urls' })).run();
    const nodes = summary.cluster?.nodes ?? [];
    assert.equal(
      nodes.reduce((a, s) => a + (s.exchange?.inbox.pages ?? 0), 0),
      0,
    );
    const urls = nodes.reduce((a, s) => a + (s.exchange?.inbox.urls ?? 0), 0);
    assert.ok(urls > 50, `${urls} URLs received`);
  });
});

describe('--partition topic with order: topic', () => {
  test('each node favours the categories its partitions own, and the crawl ends at its budget', async () => {
    const summary = await new Crawl({
      ...config(join(dir, 'ordered'), { nodes: 4, partition: { strategy: 'topic' } }),
      order: { policy: 'topic' },
    }).run();
    assert.equal(summary.stopReason, 'max-pages');
    const assignment = assignmentOf(summary);
    const seen = new Set<string>();
    for (const [i, s] of (summary.cluster?.nodes ?? []).entries()) {
      assert.equal(s.order.id, 'topic');
      const own = s.order.params.categories as readonly string[];
      assert.ok(own.length > 0, `node ${i} owns model categories`);
      for (const c of own) {
        assert.equal(assignment.get(c), i, `${c} ordered for by node ${i}`);
        seen.add(c);
      }
    }
    assert.ok(seen.size >= 12, `${seen.size} categories favoured by some node`);
    assert.ok((await assertStoredByCategory(summary)) > 150);
  });
});

describe('distributed over NATS, --partition topic', () => {
  const ENV = {
    ...process.env,
    SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000',
    SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
    SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
  };
  function node(
    crawlId: string,
    partition: number,
    out: string,
    extra: readonly string[] = [],
  ): Promise<{ code: number | null; stderr: string }> {
    const args = [
      bin,
      'node',
      '--nats',
      nats.url,
      '--crawl',
      crawlId,
      '--nodes',
      '2',
      '--partition',
      'topic',
      '--partitions',
      String(partition),
      '--node-id',
      `node${partition}`,
      '--out',
      out,
      ...web.seeds.flatMap((s) => ['--seed', s]),
      ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
      '--allow-loopback',
      '--min-delay-ms',
      '5',
      '--max-pages',
      '150',
      ...extra,
    ];
    return runNodeProcess(args, ENV);
  }

  test('two nodes store pages by category with the same model', async () => {
    const [a, b] = await Promise.all([node('topic-a', 0, join(dir, 'nats0')), node('topic-a', 1, join(dir, 'nats1'))]);
    assert.equal(a.code, 0, a.stderr.slice(-2000));
    assert.equal(b.code, 0, b.stderr.slice(-2000));
    const spec = JSON.parse(readFileSync(join(dir, 'nats0', 'node.json'), 'utf8')) as { partitions: number[] };
    assert.deepEqual(spec.partitions, [0]);
    let received = 0;
    for (const [i, out] of [join(dir, 'nats0'), join(dir, 'nats1')].entries()) {
      const exchange = JSON.parse(readFileSync(join(out, 'exchange.json'), 'utf8')) as { pagesReceived: number };
      received += exchange.pagesReceived;
      let stored = 0;
      for await (const p of readPageMetadata(join(out, 'pages.jsonl'))) if (p.category !== null) stored++;
      assert.ok(stored > 10, `node ${i} stored ${stored} categorised pages`);
    }
    assert.ok(received > 0, 'boundary pages crossed the broker');
  });

  test('a node with another model is refused, naming cluster.model', async () => {
    const model = join(dir, 'other-model.json');
    writeFileSync(model, encodeModelFile(trainNaiveBayes(topicCorpus({ perCategory: 10 })), {}, false));
    const first = node('topic-b', 0, join(dir, 'b0'), ['--max-pages', '20']);
    // The second node joins once the first has put the crawl's config in the KV bucket (it then writes node.json).
    await waitUntil(() => existsSync(join(dir, 'b0', 'node.json')), { what: 'the first node to join', timeoutMs: 60_000 });
    const second = await node('topic-b', 1, join(dir, 'b1'), ['--set', `cluster.model=${model}`]);
    assert.equal(second.code, 2, second.stderr.slice(-2000));
    assert.match(second.stderr, /cluster\.model: crawl topic-b classifies with another topic model/);
    await first;
  });
});
