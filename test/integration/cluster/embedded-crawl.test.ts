/**
 * Embedded collaborative crawls (src/cluster/embedded-cluster.ts) over real sockets against a small
 * test web, judged against a crawl of one node on the same web and against the server's own log:
 *
 * - coverage: the nodes together download exactly the pages the single node downloads;
 * - overlap 0: no page is downloaded by two nodes (hash partitioning);
 * - host-hash keeps each host on one node, so politeness stays per node: the server never sees two
 *   requests in flight for one host;
 * - the exchange carries the URLs the nodes found for each other: every URL a node downloaded that it
 *   did not find itself came in a URL batch, and what was sent equals what was received;
 * - a rerun on the same directory fetches nothing again;
 * - forwarded pages: with content-hash every page is stored by the node its content hashes to, and
 *   with truth-topic by the node of its true topic; the crawl still covers what one node covers.
 */
import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EmbeddedCluster } from '../../../src/cluster/embedded-cluster.js';
import { validateConfig } from '../../../src/config/load.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import { crawlConfigSchema, type CrawlConfigInput } from '../../../src/config/crawl-config.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { CrawlChannel, type CrawlProgress } from '../../../src/obs/events.js';
import { createPartitioner } from '../../../src/partition/registry.js';
import { canPlacePages } from '../../../src/partition/partitioner.js';
import { topicModelOf } from '../../../src/cluster/partition-models.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';

const WEB = {
  seed: 7,
  hosts: 16,
  pages: 700,
  seeds: 3,
  server: { addressCount: 16 },
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
};

let web: TestWeb;
let dir: string;

function config(outDir: string, extra: Partial<CrawlConfigInput> = {}): CrawlConfigInput {
  return { ...config0(outDir), ...extra };
}

function config0(outDir: string): CrawlConfigInput {
  return {
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100, maxAttempts: 3 },
    fetch: { bodyTimeoutMs: 5000, firstByteTimeoutMs: 5000, maxAttempts: 3 },
    limits: { concurrency: 12 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
  };
}

async function logOf(path: string): Promise<CrawlLogEntry[]> {
  const out: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(path)) out.push(e);
  return out;
}

/** URLs that got a response, per node directory. */
async function downloadsOf(summary: CrawlSummary): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const s of summary.cluster?.nodes ?? [summary]) {
    const entries = await logOf(join(s.outDir, 'crawl-log.jsonl'));
    out.set(s.node, new Set(entries.filter((e) => e.status !== 0).map((e) => e.url)));
  }
  return out;
}

let single: Set<string>;
let truth: Truth;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-cluster-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
  const one = await new Crawl(config(join(dir, 'single'))).run();
  assert.equal(one.stopReason, 'exhausted');
  single = (await downloadsOf(one)).get('n') as Set<string>;
  assert.ok(single.size > 300, `${single.size} pages`);
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

for (const strategy of ['host-hash', 'url-hash'] as const) {
  describe(`3 nodes, ${strategy}`, () => {
    let summary: CrawlSummary;
    let downloads: Map<string, Set<string>>;
    const out = (): string => join(dir, strategy);

    let last: CrawlProgress | null = null;

    before(async () => {
      web.log.clear();
      const onProgress = (m: unknown): void => {
        if ((m as CrawlProgress).node === 'n') last = m as CrawlProgress;
      };
      channel(CrawlChannel.progress).subscribe(onProgress);
      try {
        summary = await new Crawl(config(out(), { cluster: { nodes: 3, partition: { strategy } } })).run();
      } finally {
        channel(CrawlChannel.progress).unsubscribe(onProgress);
      }
      downloads = await downloadsOf(summary);
    });

    test('the crawl’s last progress event carries its collaboration metrics, live', () => {
      const p = last as CrawlProgress | null;
      assert.equal(p?.stopReason, 'exhausted');
      assert.equal(p?.collab?.downloads, summary.pages);
      assert.equal(p?.collab?.overlap, 0);
      assert.equal(
        p?.exchange?.urlsSent,
        (summary.cluster?.nodes ?? []).reduce((a, s) => a + (s.exchange?.endpoint.sent.urls ?? 0), 0),
      );
    });

    test('ends exhausted, with a summary per node and their sum', () => {
      assert.equal(summary.stopReason, 'exhausted');
      const nodes = summary.cluster?.nodes ?? [];
      assert.deepEqual(
        nodes.map((s) => s.node),
        ['n-0', 'n-1', 'n-2'],
      );
      assert.equal(
        summary.pages,
        nodes.reduce((a, s) => a + s.pages, 0),
      );
      assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
      assert.equal(summary.cluster?.partitioner.id, strategy);
      const manifest = JSON.parse(readFileSync(join(out(), 'cluster.json'), 'utf8')) as {
        partitionCount: number;
        nodes: { nodeId: string }[];
      };
      assert.equal(manifest.partitionCount, 3);
    });

    test('covers exactly what one node covers, and no page twice (overlap 0)', () => {
      const union = new Set<string>();
      let n = 0;
      for (const urls of downloads.values()) {
        for (const u of urls) union.add(u);
        n += urls.size;
      }
      assert.equal(n, union.size, 'no URL downloaded by two nodes');
      assert.deepEqual([...union].sort(), [...single].sort());
      for (const [node, urls] of downloads) assert.ok(urls.size > 20, `${node} downloaded ${urls.size}`);
    });

    test('what one node sent, another received; URLs crossed the exchange', () => {
      const nodes = summary.cluster?.nodes ?? [];
      const sent = nodes.reduce((a, s) => a + (s.exchange?.endpoint.sent.urls ?? 0), 0);
      const received = nodes.reduce((a, s) => a + (s.exchange?.endpoint.received.urls ?? 0), 0);
      assert.ok(sent > 0);
      assert.equal(received, sent);
      assert.equal(
        nodes.reduce((a, s) => a + (s.exchange?.inbox.urls ?? 0), 0),
        received,
      );
      for (const s of nodes)
        assert.equal(s.exchange?.router.sent, s.exchange?.endpoint.sent.urls, `${s.node}: the router sent what the endpoint counts`);
    });

    if (strategy === 'host-hash') {
      test('each host is crawled by one node, one request at a time', () => {
        const owner = new Map<string, string>();
        for (const [node, urls] of downloads) {
          for (const u of urls) {
            const host = new URL(u).host;
            assert.equal(owner.get(host) ?? node, node, `${host} crawled by ${owner.get(host)} and ${node}`);
            owner.set(host, node);
          }
        }
        for (const [host, n] of web.log.maxConcurrency().perHost) assert.equal(n, 1, `host ${host}`);
      });
    }

    test('a rerun on the same directory fetches nothing again', async () => {
      const again = await new Crawl(config(out(), { cluster: { nodes: 3, partition: { strategy } } })).run();
      assert.equal(again.stopReason, 'exhausted');
      assert.equal(again.pages, 0);
    });

    test('a rerun with other partitioning is refused', async () => {
      await assert.rejects(new Crawl(config(out(), { cluster: { nodes: 4, partition: { strategy } } })).run(), /describes another crawl/);
    });
  });
}

/** Every node's crawl-log lines, by node directory. */
async function logsOf(summary: CrawlSummary): Promise<Map<string, CrawlLogEntry[]>> {
  const out = new Map<string, CrawlLogEntry[]>();
  for (const s of summary.cluster?.nodes ?? []) out.set(s.node, await logOf(join(s.outDir, 'crawl-log.jsonl')));
  return out;
}

/** The union of what the nodes downloaded themselves (a forwarded page's line at its receiver names the fetching node). */
function ownDownloads(logs: Map<string, CrawlLogEntry[]>): Set<string> {
  const union = new Set<string>();
  for (const [node, entries] of logs) for (const e of entries) if (e.status !== 0 && e.node === node) union.add(e.url);
  return union;
}

describe('4 nodes spread over 2 worker threads, host-hash', () => {
  test('cover what one node covers, without overlap; what was sent was received', async () => {
    let last: CrawlProgress | null = null;
    const onProgress = (m: unknown): void => {
      if ((m as CrawlProgress).node === 'n') last = m as CrawlProgress;
    };
    channel(CrawlChannel.progress).subscribe(onProgress);
    let summary: CrawlSummary;
    try {
      summary = await new Crawl(
        config(join(dir, 'threads'), { cluster: { nodes: 4, workers: 2, partition: { strategy: 'host-hash' } } }),
      ).run();
    } finally {
      channel(CrawlChannel.progress).unsubscribe(onProgress);
    }
    assert.equal((last as CrawlProgress | null)?.collab?.downloads, summary.pages, 'fetch records relayed from the threads');
    assert.equal(summary.stopReason, 'exhausted');
    const nodes = summary.cluster?.nodes ?? [];
    assert.deepEqual(
      nodes.map((s) => s.node),
      ['n-0', 'n-1', 'n-2', 'n-3'],
    );
    const logs = await logsOf(summary);
    assert.deepEqual([...ownDownloads(logs)].sort(), [...single].sort());
    let downloads = 0;
    for (const [node, entries] of logs) downloads += entries.filter((e) => e.status !== 0 && e.node === node).length;
    assert.equal(downloads, single.size, 'overlap 0');
    const sent = nodes.reduce((a, s) => a + (s.exchange?.endpoint.sent.urls ?? 0), 0);
    assert.ok(sent > 0);
    assert.equal(
      nodes.reduce((a, s) => a + (s.exchange?.inbox.urls ?? 0), 0),
      sent,
    );
  });

  test('a shared page limit holds across the threads', async () => {
    const summary = await new Crawl(
      config(join(dir, 'threads-limit'), {
        cluster: { nodes: 4, workers: 2, partition: { strategy: 'host-hash' } },
        limits: { concurrency: 12, maxPages: 100 },
      }),
    ).run();
    assert.equal(summary.stopReason, 'max-pages');
    const started = (summary.cluster?.nodes ?? []).reduce((a, s) => a + s.pages + (s.outcomes['robots-denied'] ?? 0), 0);
    assert.ok(summary.pages <= 100 && summary.pages >= 90, `${summary.pages} pages (${started} with robots decisions)`);
  });
});

describe('3 nodes, content-hash: pages go to the node their content hashes to', () => {
  let summary: CrawlSummary;
  let logs: Map<string, CrawlLogEntry[]>;

  before(async () => {
    summary = await new Crawl(config(join(dir, 'content'), { cluster: { nodes: 3, partition: { strategy: 'content-hash' } } })).run();
    logs = await logsOf(summary);
  });

  test('covers what one node covers, each page downloaded once', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual([...ownDownloads(logs)].sort(), [...single].sort());
    let downloads = 0;
    for (const [node, entries] of logs) downloads += entries.filter((e) => e.status !== 0 && e.node === node).length;
    assert.equal(downloads, single.size, 'overlap 0: URLs are placed by url-hash');
  });

  test('equal contents are stored by one node only; boundary pages were forwarded, not stored where fetched', () => {
    const nodes = summary.cluster?.nodes ?? [];
    const storedBy = new Map<string, string>();
    let forwarded = 0;
    let received = 0;
    let logged = 0;
    for (const [i, s] of nodes.entries()) {
      forwarded += s.exchange?.endpoint.sent.pages ?? 0;
      received += s.exchange?.inbox.pages ?? 0;
      for (const e of logs.get(s.node) ?? []) {
        if (e.outcome === 'ok' && e.warc !== null && e.digest !== null) {
          assert.equal(storedBy.get(e.digest) ?? s.node, s.node, `content ${e.digest} stored by ${storedBy.get(e.digest)} and ${s.node}`);
          storedBy.set(e.digest, s.node);
        }
        if (e.node === s.node && e.reason?.startsWith('forwarded to partition') === true) {
          logged++;
          assert.equal(e.warc, null, `${e.url}: a forwarded page is not stored where it was fetched`);
          assert.ok(!e.reason.split(' ').includes(String(i)), `${e.url} forwarded to its own partition`);
        }
      }
    }
    // With 3 nodes about 2/3 of the pages belong elsewhere (SPEC §4.1: exported share (n - 1)/n).
    assert.ok(forwarded > single.size / 3, `${forwarded} pages forwarded of ${single.size}`);
    assert.equal(logged, forwarded);
    assert.equal(received, forwarded);
  });
});

describe('3 nodes, content-hash, with a transport that carries at most 8 KB per message', () => {
  test('pages too big to forward are kept where they were fetched: nothing is lost', async () => {
    const out = join(dir, 'content-small');
    const config = validateConfig(crawlConfigSchema, { ...config0(out), cluster: { nodes: 3, partition: { strategy: 'content-hash' } } });
    const summary = await new EmbeddedCluster(config, { maxMessageBytes: 8192 }).run(new AbortController().signal);
    assert.equal(summary.stopReason, 'exhausted');
    const logs = await logsOf(summary);
    assert.deepEqual([...ownDownloads(logs)].sort(), [...single].sort());
    let kept = 0;
    let forwarded = 0;
    for (const [node, entries] of logs) {
      for (const e of entries) {
        if (e.node !== node || e.outcome !== 'ok') continue;
        if (e.reason?.startsWith('forwarded') === true) {
          forwarded++;
          assert.ok(e.bytes < 8192, `${e.url} (${e.bytes} bytes) was forwarded`);
        } else if (e.bytes >= 8192) {
          kept++;
          assert.notEqual(e.warc, null, `${e.url} kept and stored where fetched`);
        }
      }
    }
    assert.ok(kept > 0, 'some pages were too big to forward');
    assert.ok(forwarded > 0, 'small pages were still forwarded');
  });
});

describe('3 nodes, truth-topic: pages go to the node of their true topic', () => {
  let summary: CrawlSummary;
  let logs: Map<string, CrawlLogEntry[]>;

  before(async () => {
    summary = await new Crawl(
      config(join(dir, 'topic'), {
        cluster: { nodes: 3, partition: { strategy: 'truth-topic' }, truthDir: join(dir, 'truth') },
      }),
    ).run();
    logs = await logsOf(summary);
  });

  test('covers what one node covers', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual([...ownDownloads(logs)].sort(), [...single].sort());
  });

  test('every HTML page stored by a node has a topic that node owns', () => {
    const partitioner = createPartitioner({ strategy: 'truth-topic', assignment: null, defaultCategory: null }, 3, {
      topics: topicModelOf(truth),
    });
    assert.ok(canPlacePages(partitioner));
    const nodes = summary.cluster?.nodes ?? [];
    let checked = 0;
    for (const [i, s] of nodes.entries()) {
      for (const e of logs.get(s.node) ?? []) {
        if (e.outcome !== 'ok' || e.warc === null || e.contentType !== 'text/html' || truth.pageIdOf(e.url) < 0) continue;
        const placement = partitioner.placePage(
          { url: e.url, hostname: new URL(e.url).hostname, ip: null, contentDigest: '', language: null, title: null, text: null },
          i,
        );
        assert.deepEqual(placement, [i], `${e.url} (topic ${topicModelOf(truth).topicOf(e.url)}) stored on node ${i}`);
        checked++;
      }
    }
    assert.ok(checked > 300, `${checked} pages checked`);
    assert.ok(
      nodes.every((s) => (s.exchange?.inbox.pages ?? 0) > 0),
      'every node received boundary pages',
    );
  });
});
