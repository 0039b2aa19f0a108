/**
 * `readGeoEval` (src/cluster/read-geo.ts) on a real crawl: 3 nodes over loopback against a test web
 * with geographic pages for its 10 largest cities, judged with 6 targets (so the addresses of 4
 * cities count nowhere): a general partition and two geo partitions of 3 cities each. Every metric
 * is computed again here the plain way (sets, maps, a breadth-first walk per page), straight from the
 * crawl logs, the link graphs and the truth's entities.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readGeoEval } from '../../../src/cluster/read-geo.js';
import { addressKey } from '../../../src/geo/address-extractor.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { GeoMetrics } from '../../../src/eval/geo-metrics.js';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import { readCrawlLog } from '../../../src/store/crawl-log.js';
import { readLinkGraph } from '../../../src/store/link-graph-reader.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';

const WEB = {
  seed: 23,
  hosts: 20,
  pages: 700,
  seeds: 4,
  server: { addressCount: 20 },
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
  geo: { cities: 10, hostRate: 0.5 },
};
const CITY_PARTITIONS = [[], [0, 2, 4], [1, 3, 5]];
const gazetteer = Gazetteer.usTop(6);

let web: TestWeb;
let dir: string;
let truth: Truth;
let crawlDir: string;

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-geo-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
  crawlDir = join(dir, 'crawl');
  await new Crawl({
    nodeId: 'n',
    seeds: { urls: [...web.seeds] },
    store: { outDir: crawlDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 5, delayFactor: 1, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100, maxAttempts: 3 },
    limits: { concurrency: 12, maxPages: 450 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
    cluster: { nodes: 3 },
  }).run();
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The crawl as plain data: per node its downloads and cities, the links, every key a string. */
interface Plain {
  readonly nodes: { readonly dir: string; readonly downloads: string[]; readonly cities: Set<number> }[];
  readonly edges: Set<string>;
}

/** A page's key: `t<id>` for a truth page, else its URL. */
const keyOf = (url: string): string => {
  const p = truth.pageIdOf(url);
  return p < 0 ? url : `t${p}`;
};

async function readPlain(): Promise<Plain> {
  const manifest = JSON.parse(readFileSync(join(crawlDir, 'cluster.json'), 'utf8')) as {
    nodes: { nodeId: string; partitions: number[]; dir: string }[];
  };
  const nodes: Plain['nodes'] = [];
  const edges = new Set<string>();
  for (const m of manifest.nodes) {
    const nodeDir = join(crawlDir, m.dir);
    const downloads: string[] = [];
    for await (const e of readCrawlLog(join(nodeDir, 'crawl-log.jsonl')))
      if (e.status !== 0 && (e.node === null || e.node === m.nodeId)) downloads.push(keyOf(e.url));
    const graph = await readLinkGraph(join(nodeDir, 'links'));
    const keys = graph.urls.map(keyOf);
    for (let u = 0; u < graph.csr.nodeCount; u++)
      for (let e = graph.csr.offsets[u] as number; e < (graph.csr.offsets[u + 1] as number); e++)
        edges.add(`${keys[u]} ${keys[graph.csr.targets[e] as number]}`);
    graph.close();
    nodes.push({ dir: nodeDir, downloads, cities: new Set(m.partitions.flatMap((p) => CITY_PARTITIONS[p] as number[])) });
  }
  return { nodes, edges };
}

/** Target index of a `"Name, ST"` label, or −1. */
const targetOf = (label: string): number => gazetteer.targets.findIndex((t) => t.label === label);

/** Every metric, the plain way. */
async function expected(plain: Plain) {
  const cities = new Map<string, Set<number>>();
  const keys = new Map<string, string[]>();
  for (const e of await truth.entities()) {
    const t = targetOf(`${e.city}, ${e.state}`);
    if (t < 0) continue;
    const page = `t${e.page}`;
    cities.set(page, (cities.get(page) ?? new Set()).add(t));
    keys.set(page, [...(keys.get(page) ?? []), `${e.number}|${expandType(e.street)}|${e.city}|${e.state}`]);
  }
  const isGeo = (page: string): boolean => cities.has(page);
  const all = plain.nodes.flatMap((n) => n.downloads);
  const unique = new Set(all);
  const focus = plain.nodes.map((n) => {
    const geo = [...new Set(n.downloads)].filter(isGeo);
    const own = geo.filter((p) => [...(cities.get(p) as Set<number>)].some((c) => n.cities.has(c)));
    return n.cities.size === 0 || geo.length === 0 ? null : own.length / geo.length;
  });
  const defined = focus.filter((f): f is number => f !== null);
  const entityList = all.flatMap((p) => keys.get(p) ?? []);

  const out = new Map<string, Set<string>>();
  for (const edge of plain.edges) {
    const [a, b] = edge.split(' ') as [string, string];
    if (!unique.has(a) || !unique.has(b)) continue;
    out.set(a, (out.get(a) ?? new Set()).add(b));
  }
  let gcSum = 0;
  for (const p of unique) {
    const dist = new Map([[p, 0]]);
    let frontier = [p];
    for (let d = 1; d <= 2; d++) {
      const next: string[] = [];
      for (const u of frontier)
        for (const v of out.get(u) ?? []) {
          if (dist.has(v)) continue;
          dist.set(v, d);
          next.push(v);
        }
      frontier = next;
    }
    for (const [q, d] of dist) if (isGeo(q)) gcSum += 0.1 ** d;
  }

  const cityOfPage = (page: string): number => {
    const p = page.startsWith('t') ? Number(page.slice(1)) : -1;
    const c = p < 0 ? -1 : (truth.city[p] as number);
    return c < 0 ? -1 : targetOf(`${truth.manifest.cities[c]?.name}, ${truth.manifest.cities[c]?.state}`);
  };
  const linked = new Set<string>();
  for (const [a, targets] of out) for (const b of targets) if (a !== b) linked.add(a < b ? `${a} ${b}` : `${b} ${a}`);
  const share = (pairs: Iterable<[string, string]>) => {
    let counted = 0;
    let same = 0;
    let count = 0;
    for (const [a, b] of pairs) {
      count++;
      const ca = cityOfPage(a);
      const cb = cityOfPage(b);
      if (ca < 0 && cb < 0) continue;
      counted++;
      if (ca === cb) same++;
    }
    return { pairs: count, counted, same, share: counted === 0 ? null : same / counted };
  };
  const pages = [...unique].sort();
  const unlinked: [string, string][] = [];
  for (let i = 0; i < pages.length; i++)
    for (let j = i + 1; j < pages.length; j++) {
      const a = pages[i] as string;
      const b = pages[j] as string;
      if (!linked.has(`${a} ${b}`)) unlinked.push([a, b]);
    }
  return {
    downloads: all.length,
    geoDownloads: all.filter(isGeo).length,
    uniquePages: unique.size,
    uniqueGeoPages: [...unique].filter(isGeo).length,
    focus,
    focusMean: defined.length === 0 ? null : defined.reduce((a, b) => a + b, 0) / defined.length,
    entities: entityList.length,
    uniqueEntities: new Set(entityList).size,
    gc: gcSum / unique.size,
    linked: share([...linked].map((s) => s.split(' ') as [string, string])),
    unlinked: share(unlinked),
  };
}

function expandType(street: string): string {
  const words = street.split(' ');
  // USPS abbreviations of the test web's street types.
  const short: Record<string, string> = {
    St: 'Street',
    Ave: 'Avenue',
    Blvd: 'Boulevard',
    Rd: 'Road',
    Dr: 'Drive',
    Ln: 'Lane',
    Ct: 'Court',
    Pl: 'Place',
    Ter: 'Terrace',
    Pkwy: 'Parkway',
    Cir: 'Circle',
    Hwy: 'Highway',
    Sq: 'Square',
    Trl: 'Trail',
  };
  const last = words.pop() as string;
  return [...words, short[last] ?? last].join(' ').toLowerCase();
}

const near = (actual: number | null, wanted: number | null, what: string): void => {
  if (wanted === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null && Math.abs(actual - wanted) < 1e-9, `${what}: ${actual} vs ${wanted}`);
};

describe('readGeoEval on a 3-node crawl', () => {
  let plain: Plain;
  let want: Awaited<ReturnType<typeof expected>>;
  let got: GeoMetrics;
  before(async () => {
    plain = await readPlain();
    want = await expected(plain);
    got = await readGeoEval(crawlDir, truth, { cityPartitions: CITY_PARTITIONS, gazetteer, metrics: { unlinkedSamples: 10_000_000 } });
  });

  test('geo coverage and the unique-entity ratio match the plain count', () => {
    assert.ok(want.downloads > 300 && want.uniqueGeoPages > 20, JSON.stringify(want).slice(0, 300));
    assert.deepEqual(
      [got.coverage.downloads, got.coverage.geoDownloads, got.coverage.uniquePages, got.coverage.uniqueGeoPages],
      [want.downloads, want.geoDownloads, want.uniquePages, want.uniqueGeoPages],
    );
    assert.deepEqual([got.uniqueEntities.entities, got.uniqueEntities.unique], [want.entities, want.uniqueEntities]);
  });

  test('geo focus per node: the general node has none, each geo node its own share', () => {
    assert.deepEqual(
      got.focus.nodes.map((r) => r.cities),
      [0, 3, 3],
    );
    got.focus.nodes.forEach((r, i) => near(r.focus, want.focus[i] ?? null, `focus of node ${i}`));
    near(got.focus.mean, want.focusMean, 'mean focus');
  });

  test('geo centrality over the links recorded between downloaded pages', () => {
    assert.equal(got.centrality.pages, want.uniquePages);
    near(got.centrality.mean, want.gc, 'mean GC_2');
  });

  test('δ over linked pairs and δ̃ over every unlinked pair, by the truth city', () => {
    assert.deepEqual(got.locality.linked, want.linked);
    assert.deepEqual(got.locality.unlinked, { ...want.unlinked, isExact: true });
    // The test web links pages of one city more often than chance.
    assert.ok((want.linked.share as number) > (want.unlinked.share as number), `${want.linked.share} vs ${want.unlinked.share}`);
  });

  test('entity keys: the type word spelled out, the ZIP left out', () => {
    const key = addressKey({ number: 12, street: 'Oak St', city: 'Denver', state: 'CO' });
    assert.equal(key, addressKey({ number: 12, street: 'Oak Street', city: 'Denver', state: 'CO' }));
    assert.notEqual(key, addressKey({ number: 12, street: 'Oak Ave', city: 'Denver', state: 'CO' }));
  });
});

describe('readGeoEval options and errors', () => {
  test('one node read alone owns every partition; cityOf replaces the truth city', async () => {
    const node = (await readPlain()).nodes[1] as Plain['nodes'][number];
    const seen: string[] = [];
    const r = await readGeoEval(node.dir, truth, {
      cityPartitions: [[0], [1]],
      gazetteer,
      cityOf: (page, url) => {
        assert.equal(truth.pageIdOf(url), page, url);
        seen.push(url);
        return 4;
      },
    });
    assert.equal(seen.length, new Set(node.downloads).size, 'asked once per downloaded page');
    assert.equal(r.focus.nodes[0]?.cities, 2);
    // Every page has city 4: every linked pair counts and is the same.
    assert.ok(r.locality.linked.counted > 0);
    assert.equal(r.locality.linked.share, 1);
  });

  test('partitions that do not match the crawl, or a target that does not exist, are refused', async () => {
    await assert.rejects(readGeoEval(crawlDir, truth, { cityPartitions: [[], [0]], gazetteer }), /3 partitions, cityPartitions lists 2/);
    await assert.rejects(readGeoEval(crawlDir, truth, { cityPartitions: [[], [0], [6]], gazetteer }), /target 6/);
  });
});
