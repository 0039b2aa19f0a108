/**
 * The Partitioner contract (src/partition/partitioner.ts), run against every strategy the registry
 * knows, built through createPartitioner for n ∈ {1, 2, 5, 16}: placements are non-empty arrays of
 * distinct integers in [0, n); they are deterministic; odd Web input never throws; `spec.id` is the
 * registry id. The hash family must also spread hosts evenly.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canPlacePages, type PageToPlace, type Partitioner, type Placement, type UrlToPlace } from '../../src/partition/partitioner.js';
import { createPartitioner, PARTITIONER_IDS, partitionStrategySchema, type PartitionerId } from '../../src/partition/registry.js';
import type { TopicModel } from '../../src/partition/topic/truth-topic.js';

/** Three labels; a page's label is read from its path (`/arts/...`), anything else is unknown. */
const topics: TopicModel = {
  categories: ['ARTS', 'NEWS', 'WORLD'],
  topicOf: (url) => /\/(arts|news|world)\//.exec(url)?.[1]?.toUpperCase() ?? null,
};

function build(id: PartitionerId, n: number): Partitioner {
  return createPartitioner(partitionStrategySchema.parse({ strategy: id }), n, {
    topics,
    classifier: { labels: topics.categories, digest: '0'.repeat(64) },
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
];

function assertValid(placement: Placement, n: number, what: string): void {
  assert.ok(Array.isArray(placement), `${what}: not an array`);
  assert.ok(placement.length > 0, `${what}: empty`);
  for (const p of placement) assert.ok(Number.isInteger(p) && p >= 0 && p < n, `${what}: ${p} is not a partition in [0, ${n})`);
  assert.equal(new Set(placement).size, placement.length, `${what}: repeats in ${JSON.stringify(placement)}`);
}

for (const id of PARTITIONER_IDS) {
  describe(`Partitioner contract: ${id}`, () => {
    for (const n of [1, 2, 5, 16]) {
      test(`n = ${n}: identity, valid placements, determinism, odd input`, () => {
        const a = build(id, n);
        const b = build(id, n);
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

  for (const id of PARTITIONER_IDS.filter((i) => i !== 'truth-topic' && i !== 'topic')) {
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
