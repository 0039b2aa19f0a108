/**
 * A crawl's link graph (written by the crawl's own writer) read as a simulator graph: two node
 * directories merged, each page's first fetch winning, nofollow links marked, seeds from the crawl
 * log, per-host measured fetch times and addresses, anchors read back, and a collaborative crawl
 * directory (cluster.json) read through its manifest.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { CrawlLog } from '../../../src/store/crawl-log.js';
import { LinkFlag, LinkGraphWriter } from '../../../src/store/link-graph.js';
import { loadCrawlGraph } from '../../../src/sim/graph/crawl-graph.js';
import { detectGraphFormat, loadSimGraph } from '../../../src/sim/graph/load-graph.js';
import { SimPageKind, type SimGraph } from '../../../src/sim/graph/sim-graph.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-sim-crawl-graph-');
const u = (host: string, path: string): string => `http://${host}.test${path}`;

async function writeNode(
  dir: string,
  pages: readonly [string, readonly [string, string, number][]][],
  log: readonly [string, number, string | null, number, number?][],
): Promise<void> {
  const links = new LinkGraphWriter({ dir: join(dir, 'links') });
  await links.start();
  for (const [source, out] of pages)
    links.addLinks(
      source,
      out.map(([target, anchorText, flags]) => ({ target, anchorText, flags })),
    );
  await links.close();
  const crawlLog = new CrawlLog({ path: join(dir, 'crawl-log.jsonl') });
  await crawlLog.start();
  for (const [url, depth, from, durationMs, status = 200] of log) {
    crawlLog.append({
      ts: new Date(0).toISOString(),
      url,
      status,
      outcome: status === 200 ? 'ok' : 'http-error',
      bytes: 1000 + depth,
      durationMs,
      discoveredFrom: from,
      depth,
      ip: '10.0.0.9',
    });
  }
  await crawlLog.close();
}

const A = join(root, 'crawl', 'node-a');
const B = join(root, 'crawl', 'node-b');

/*
 * Node A fetched p1 (links p2 "two", p3 nofollow, p2 again), then p2 (→ p4), then p1 again after a
 * restart (→ p9, a second run of records that must not count). Node B fetched p2 as well (→ p5: A's
 * fetch wins) and p5 (→ p1, q7). /old redirected to p1; p3 answered 404.
 */
const prepared = (async () => {
  await writeNode(
    A,
    [
      [
        u('x', '/1'),
        [
          [u('x', '/2'), 'two', 0],
          [u('y', '/3'), 'three', LinkFlag.nofollow],
          [u('x', '/2'), 'two again', 0],
        ],
      ],
      [u('x', '/2'), [[u('y', '/4'), 'four', 0]]],
      [u('x', '/1'), [[u('z', '/9'), 'nine', 0]]],
      [u('x', '/old'), [[u('x', '/1'), '', LinkFlag.redirect]]],
    ],
    [
      [u('x', '/1'), 0, null, 40],
      [u('x', '/2'), 1, u('x', '/1'), 60],
      [u('y', '/3'), 1, u('x', '/1'), 5, 404],
    ],
  );
  await writeNode(
    B,
    [
      [u('x', '/2'), [[u('z', '/5'), 'five', 0]]],
      [
        u('z', '/5'),
        [
          [u('x', '/1'), 'one', 0],
          [u('q', '/7'), 'seven', 0],
        ],
      ],
    ],
    [[u('z', '/5'), 2, u('x', '/2'), 100]],
  );
  mkdirSync(join(root, 'crawl'), { recursive: true });
  writeFileSync(
    join(root, 'crawl', 'cluster.json'),
    JSON.stringify({
      format: 'shoal-cluster',
      version: 1,
      partitioner: { id: 'url-hash', params: {} },
      partitionCount: 2,
      forward: 'urls',
      nodes: [
        { nodeId: 'a', partitions: [0], dir: 'node-a' },
        { nodeId: 'b', partitions: [1], dir: 'node-b' },
      ],
    }),
  );
})();

function outLinks(g: SimGraph, url: string): string[] {
  const p = g.pageIdOf(url);
  const out: string[] = [];
  for (let e = g.csr.offsets[p] as number; e < (g.csr.offsets[p + 1] as number); e++)
    out.push(`${g.urlOf(g.csr.targets[e] as number)}${g.edgeNofollow?.[e] === 1 ? ' nofollow' : ''}`);
  return out;
}

describe('crawl graph', () => {
  it('merges node directories: each page keeps the links of its first fetch', async () => {
    await prepared;
    const g = await loadCrawlGraph([A, B]);
    try {
      assert.equal(g.format, 'crawl');
      assert.deepEqual(outLinks(g, u('x', '/1')), [u('x', '/2'), `${u('y', '/3')} nofollow`, u('x', '/2')]);
      assert.deepEqual(outLinks(g, u('x', '/2')), [u('y', '/4')]);
      assert.deepEqual(outLinks(g, u('z', '/5')), [u('x', '/1'), u('q', '/7')]);
      assert.deepEqual(outLinks(g, u('z', '/9')), []);
      assert.equal(g.linkCount, 7);
      assert.equal(g.pageCount, 8);
      const kindOf = (url: string): number | undefined => g.pageKinds?.[g.pageIdOf(url)];
      assert.deepEqual(
        [kindOf(u('x', '/1')), kindOf(u('x', '/old')), kindOf(u('y', '/3')), kindOf(u('z', '/9'))],
        [SimPageKind.page, SimPageKind.redirect, SimPageKind.noContent, SimPageKind.page],
      );
      assert.deepEqual(
        Array.from(g.seeds, (s) => g.urlOf(s)),
        [u('x', '/1')],
      );
      const p1 = g.pageIdOf(u('x', '/1'));
      const first = g.csr.offsets[p1] as number;
      assert.deepEqual(
        [0, 1, 2].map((i) => g.anchorOf?.(first + i)),
        ['two', 'three', 'two again'],
      );
    } finally {
      g.close();
    }
  });

  it('keeps per-host fetch times, addresses and page sizes from the crawl logs', async () => {
    await prepared;
    const g = await loadCrawlGraph([A, B]);
    try {
      const host = (url: string): number => g.pageHost[g.pageIdOf(url)] as number;
      assert.equal(g.hosts.nameOf(host(u('x', '/1'))), 'x.test');
      assert.equal(g.hosts.measuredLatencyMs?.[host(u('x', '/1'))], 50);
      assert.equal(g.hosts.measuredLatencyMs?.[host(u('z', '/5'))], 100);
      assert.equal(g.hosts.measuredLatencyMs?.[host(u('y', '/4'))], 5);
      assert.ok(Number.isNaN(g.hosts.measuredLatencyMs?.[host(u('q', '/7'))]), 'a host the crawl never fetched from');
      assert.equal(g.hosts.ips?.[host(u('x', '/2'))], '10.0.0.9');
      assert.equal(g.pageBytes?.[g.pageIdOf(u('x', '/2'))], 1001);
    } finally {
      g.close();
    }
  });

  it('reads a collaborative crawl directory through its cluster.json', async () => {
    await prepared;
    const crawlDir = join(root, 'crawl');
    assert.equal(detectGraphFormat([crawlDir]), 'crawl');
    const g = await loadSimGraph([crawlDir]);
    try {
      assert.equal(g.linkCount, 7);
      assert.deepEqual(outLinks(g, u('x', '/2')), [u('y', '/4')]);
    } finally {
      g.close();
    }
  });

  it('names the directory that holds no link graph', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty, { recursive: true });
    await assert.rejects(
      loadCrawlGraph([empty]),
      (err: unknown) => err instanceof ShoalError && err.message.includes(empty) && /no link graph/.test(err.message),
    );
  });
});
