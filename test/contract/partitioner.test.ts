/**
 * The Partitioner contract (src/partition/partitioner.ts), run against every strategy the registry
 * knows, built through createPartitioner for n ∈ {1, 2, 5, 16}: placements are non-empty arrays of
 * distinct integers in [0, n); they are deterministic; odd Web input never throws; `spec.id` is the
 * registry id; geo is run with each of its strategies and both policies. The hash family must also
 * spread hosts evenly.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canPlacePages, type PageToPlace, type Partitioner, type Placement, type UrlToPlace } from '../../src/partition/partitioner.js';
import { createPartitioner, PARTITIONER_IDS, partitionStrategySchema, type PartitionerId } from '../../src/partition/registry.js';
import type { TopicModel } from '../../src/partition/topic/truth-topic.js';
import type { GeoModel } from '../../src/partition/registry.js';
import { Gazetteer } from '../../src/geo/gazetteer.js';
import { createGeoStrategy, GEO_STRATEGY_IDS, type GeoStrategyId } from '../../src/geo/geo-strategies.js';
import { RangeTableIpLocator } from '../../src/geo/ip-range-table.js';
import { NaiveBayesClassifier } from '../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../src/classify/naive-bayes-trainer.js';

/** Three labels; a page's label is read from its path (`/arts/...`), anything else is unknown. */
const topics: TopicModel = {
  categories: ['ARTS', 'NEWS', 'WORLD'],
  topicOf: (url) => /\/(arts|news|world)\//.exec(url)?.[1]?.toUpperCase() ?? null,
};

const gazetteer = Gazetteer.usTop();
const cityClassifier = new NaiveBayesClassifier(
  trainNaiveBayes(
    [
      { label: 'Denver, CO', title: '', text: 'Denver mountains Colorado rockies denver broncos '.repeat(20) },
      { label: 'Houston, TX', title: '', text: 'Houston space center texas bayou houston rockets '.repeat(20) },
      { label: 'none', title: '', text: 'recipes gardening painting music poems stories '.repeat(20) },
    ],
    { minCount: 1 },
  ),
);
const ipTable = new RangeTableIpLocator('127.0.1.0,127.0.1.255,Denver,CO\n::1,::1,Houston,TX\n', 'contract');

/** A geo partitioner with strategy `strategy` and policy `policy`, every resource supplied. */
function geoModel(strategy: GeoStrategyId, policy: 'A' | 'B'): GeoModel {
  return {
    gazetteer,
    strategy: createGeoStrategy(strategy, { gazetteer, classifier: cityClassifier, locator: ipTable, minProbability: 0.05 }),
    policy,
    groups: null,
  };
}

function build(id: PartitionerId, n: number, geo: GeoModel = geoModel('combined', 'B')): Partitioner {
  return createPartitioner(partitionStrategySchema.parse({ strategy: id }), n, {
    topics,
    classifier: { labels: topics.categories, digest: '0'.repeat(64) },
    geo,
  });
}

const LONG_URL = `http://www.long.test/${'a/'.repeat(50_000)}`;

/** URLs as a node may meet them, odd ones included. */
const URLS: readonly UrlToPlace[] = [
  { url: 'http://www.site.test/', hostname: 'www.site.test', ip: '127.0.1.1' },
  { url: 'http://www.site.test/arts/page', hostname: 'www.site.test', ip: null, anchorText: 'arts', fromUrl: 'http://www.site.test/' },
  { url: 'http://[::1]:8080/x', hostname: '[::1]', ip: '::1' },
  { url: 'http://[::1]/', hostname: '::1', ip: null },
  { url: 'http://xn--bcher-kva.test/news/', hostname: 'xn--bcher-kva.test', ip: null },
  { url: 'https://www.xn--bcher-kva.co.uk:8443/a?b=c', hostname: 'www.xn--bcher-kva.co.uk', ip: '10.0.0.7' },
  { url: 'http://localhost:3000/', hostname: 'localhost', ip: '127.0.0.1' },
  { url: 'http://192.168.1.20/world/x', hostname: '192.168.1.20', ip: '192.168.1.20' },
  { url: 'http://co.uk/', hostname: 'co.uk', ip: null },
  { url: 'http://bücher.example/ä', hostname: 'bücher.example', ip: null, anchorText: '', anchorBefore: '', anchorAfter: '' },
  { url: LONG_URL, hostname: 'www.long.test', ip: null },
  { url: '', hostname: '', ip: null },
  {
    url: 'http://houston-guide.test/denver/new-york/',
    hostname: 'houston-guide.test',
    ip: null,
    anchorText: 'Hotels in LA',
    anchorBefore: 'Glendale, CA',
  },
  {
    url: 'http://www.site.test/x',
    hostname: 'www.site.test',
    ip: null,
    anchorText: 'more',
    anchorAfter: 'in Glendale and St. Louis',
    fromUrl: 'http://www.site.test/',
    fromPage: [0],
  },
];

/** Fetched pages, odd ones included. */
const PAGES: readonly PageToPlace[] = [
  {
    url: 'http://www.site.test/arts/1',
    hostname: 'www.site.test',
    ip: '127.0.1.1',
    contentDigest: 'sha1:AAAA',
    language: 'en',
    title: 'Arts',
    text: 'paint',
  },
  {
    url: 'http://www.site.test/news/2',
    hostname: 'www.site.test',
    ip: null,
    contentDigest: 'sha1:BBBB',
    language: null,
    title: null,
    text: null,
  },
  { url: 'http://[::1]:8080/world/3', hostname: '[::1]', ip: '::1', contentDigest: 'sha1:CCCC', language: 'de', title: '', text: '' },
  { url: 'http://xn--bcher-kva.test/', hostname: 'xn--bcher-kva.test', ip: null, contentDigest: '', language: 'de', title: '', text: '' },
  {
    url: LONG_URL,
    hostname: 'www.long.test',
    ip: null,
    contentDigest: 'sha1:DDDD',
    language: 'en',
    title: 'x'.repeat(10_000),
    text: 'y'.repeat(100_000),
  },
  {
    url: 'http://www.site.test/p',
    hostname: 'www.site.test',
    ip: null,
    contentDigest: 'sha1:EEEE',
    language: 'en',
    title: '',
    text: '',
    category: 'NEWS',
  },
  {
    url: 'http://www.site.test/q',
    hostname: 'www.site.test',
    ip: null,
    contentDigest: 'sha1:FFFF',
    language: 'en',
    title: '',
    text: '',
    category: 'NOT-A-LABEL',
  },
  {
    url: 'http://denver.test/',
    hostname: 'denver.test',
    ip: '127.0.1.9',
    contentDigest: 'sha1:GGGG',
    language: 'en',
    title: 'Houston, TX and Denver',
    text: '1200 Main Street, Houston, TX 77002. Denver, Colorado. Glendale. Springfield, IL. Portland, Maine. rockies denver broncos',
  },
];

function assertValid(placement: Placement, n: number, what: string): void {
  assert.ok(Array.isArray(placement), `${what}: not an array`);
  assert.ok(placement.length > 0, `${what}: empty`);
  for (const p of placement) assert.ok(Number.isInteger(p) && p >= 0 && p < n, `${what}: ${p} is not a partition in [0, ${n})`);
  assert.equal(new Set(placement).size, placement.length, `${what}: repeats in ${JSON.stringify(placement)}`);
}

const CASES: readonly { readonly id: PartitionerId; readonly name: string; readonly geo?: () => GeoModel }[] = [
  ...PARTITIONER_IDS.filter((id) => id !== 'geo').map((id) => ({ id, name: id })),
  ...GEO_STRATEGY_IDS.flatMap((strategy) =>
    (['A', 'B'] as const).map((policy) => ({
      id: 'geo' as const,
      name: `geo ${strategy} ${policy}`,
      geo: () => geoModel(strategy, policy),
    })),
  ),
];

for (const { id, name, geo } of CASES) {
  describe(`Partitioner contract: ${name}`, () => {
    for (const n of [1, 2, 5, 16]) {
      test(`n = ${n}: identity, valid placements, determinism, odd input`, () => {
        const a = build(id, n, geo?.());
        const b = build(id, n, geo?.());
        assert.equal(a.spec.id, id);
        assert.equal(a.partitionCount, n);
        assert.equal(typeof a.needsIp, 'boolean');
        assert.deepEqual(a.spec, b.spec);
        for (const value of Object.values(a.spec.params)) {
          const isScalar = ['string', 'number', 'boolean'].includes(typeof value);
          assert.ok(isScalar || (Array.isArray(value) && value.every((v) => typeof v === 'string')), `${id}: param ${String(value)}`);
        }
        for (const self of new Set([0, n - 1])) {
          for (const url of URLS) {
            const what = `${id} n=${n} self=${self} placeUrl(${url.url.slice(0, 60)})`;
            const placement = a.placeUrl(url, self);
            assertValid(placement, n, what);
            assert.deepEqual(b.placeUrl(url, self), placement, `${what}: not deterministic`);
          }
          if (!canPlacePages(a) || !canPlacePages(b)) continue;
          for (const page of PAGES) {
            const what = `${id} n=${n} self=${self} placePage(${page.url.slice(0, 60)})`;
            const placement = a.placePage(page, self);
            assertValid(placement, n, what);
            assert.deepEqual(b.placePage(page, self), placement, `${what}: not deterministic`);
          }
        }
      });
    }
  });
}

describe('Partitioner contract: hash family balance', () => {
  const HOSTS = 10_000;
  const urls = Array.from({ length: HOSTS }, (_, i): UrlToPlace => ({
    url: `http://www.site${i}.test/`,
    hostname: `www.site${i}.test`,
    ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  }));
  const pages = urls.map((u, i): PageToPlace => ({ ...u, contentDigest: `sha1:digest-${i}`, language: 'en', title: null, text: null }));

  /** The largest relative deviation of a partition's share from 1/n. */
  function worstDeviation(n: number, place: (i: number) => Placement): number {
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < HOSTS; i++) for (const p of place(i)) counts[p] = (counts[p] as number) + 1;
    return Math.max(...counts.map((c) => Math.abs((c * n) / HOSTS - 1)));
  }

  // Topic and geo strategies place by content, not by hash.
  for (const id of PARTITIONER_IDS.filter((i) => i !== 'truth-topic' && i !== 'topic' && i !== 'geo')) {
    test(`${id}: over ${HOSTS} hosts every partition's share is within ±25% of 1/n, n = 2..16`, () => {
      for (let n = 2; n <= 16; n++) {
        const p = build(id, n);
        const deviation = worstDeviation(n, (i) => p.placeUrl(urls[i] as UrlToPlace, 0));
        assert.ok(deviation <= 0.25, `${id} n=${n}: placeUrl share off by ${(deviation * 100).toFixed(1)}%`);
        if (!canPlacePages(p)) continue;
        const pageDeviation = worstDeviation(n, (i) => p.placePage(pages[i] as PageToPlace, 0));
        assert.ok(pageDeviation <= 0.25, `${id} n=${n}: placePage share off by ${(pageDeviation * 100).toFixed(1)}%`);
      }
    });
  }
});
