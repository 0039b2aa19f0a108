import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import { createGeoStrategy } from '../../../src/geo/geo-strategies.js';
import { GeoPartitioner } from '../../../src/partition/geo/geo.js';
import { PartitionParamError } from '../../../src/partition/partition-params.js';

const g = Gazetteer.usTop();
const url = (u: string, extra: object = {}) => ({ url: u, hostname: new URL(u).hostname, ip: null, ...extra });
const page = (text: string) => ({
  url: 'http://p.test/',
  hostname: 'p.test',
  ip: null,
  contentDigest: '',
  language: 'en',
  title: '',
  text,
});

test('default groups: five time-zone nodes, the rest general; every target owned once', () => {
  const p = new GeoPartitioner(createGeoStrategy('url', { gazetteer: g }), g, 6);
  assert.deepEqual(p.generalPartitions, [5]);
  const zoneOf = ['Eastern', 'Central', 'Mountain', 'Pacific'];
  for (const target of g.targets) {
    const expected = zoneOf.indexOf(target.timeZone);
    assert.equal(p.cityPartition[target.index], expected < 0 ? 4 : expected, target.label);
  }
  assert.equal(p.citiesOfPartitions.flat().length, 100);
  assert.equal((p.spec.params['cities'] as string[]).length, 100);
  // With 3 partitions: the five groups dealt to 0 and 1, partition 2 general.
  const small = new GeoPartitioner(createGeoStrategy('url', { gazetteer: g }), g, 3);
  assert.deepEqual(small.generalPartitions, [2]);
  assert.deepEqual([...new Set(small.cityPartition)].sort(), [0, 1]);
});

test('url strategy: a city in the URL goes to its node, anything else to a general node by host', () => {
  const p = new GeoPartitioner(createGeoStrategy('url', { gazetteer: g }), g, 8);
  assert.deepEqual(p.placeUrl(url('http://x.test/denver/'), 0), [2]);
  assert.deepEqual(p.placeUrl(url('http://x.test/boston/'), 3), [0]);
  const general = p.placeUrl(url('http://plain.test/a'), 0);
  assert.equal(general.length, 1);
  assert.ok((general[0] as number) >= 5);
  assert.deepEqual(p.placeUrl(url('http://plain.test/b'), 2), general, 'one host, one general node');
  // A link-reading strategy ignores the page's placement.
  assert.deepEqual(p.placeUrl(url('http://plain.test/a', { fromPage: [1] }), 0), general);
});

test('Policy A sends to the best city, Policy B to every city with a score', () => {
  const link = url('http://x.test/', { anchorText: 'Denver', anchorAfter: 'or Boston or Seattle' });
  const a = new GeoPartitioner(createGeoStrategy('anchor', { gazetteer: g }), g, 6, { policy: 'A' });
  const b = new GeoPartitioner(createGeoStrategy('anchor', { gazetteer: g }), g, 6, { policy: 'B' });
  assert.deepEqual(a.placeUrl(link, 0), [2]);
  assert.deepEqual(b.placeUrl(link, 0), [0, 2, 3]);
});

test('page strategies: links follow the page, the page goes to its city or a general node', () => {
  const p = new GeoPartitioner(createGeoStrategy('content', { gazetteer: g }), g, 6, { policy: 'B' });
  assert.deepEqual(p.placePage(page('Denver, CO and Houston, TX'), 0), [1, 2]);
  assert.deepEqual(p.placePage(page('nothing about places'), 0), [5]);
  assert.deepEqual(p.placeUrl(url('http://x.test/', { fromPage: [1, 2] }), 0), [1, 2]);
  assert.deepEqual(p.placeUrl(url('http://x.test/'), 0), [5], 'a seed: no page');
  // Two general nodes: the links of a page of no city go by their own host, not the page's.
  const two = new GeoPartitioner(createGeoStrategy('content', { gazetteer: g }), g, 7);
  const noCity = two.placePage({ ...page('nothing here'), hostname: 'a.test' }, 0);
  const hosts = Array.from({ length: 40 }, (_, i) => `h${i}.test`);
  const placed = new Set(hosts.map((h) => two.placeUrl(url(`http://${h}/`, { fromPage: noCity }), 0)[0]));
  assert.deepEqual([...placed].sort(), [5, 6]);
  assert.equal(p.cityOfPage({ url: 'http://p.test/', title: '', text: 'Denver, CO', ip: null }), g.indexOf('Denver, CO'));
});

test('explicit groups: labels and time zones; bad groupings are errors naming the problem', () => {
  const s = createGeoStrategy('url', { gazetteer: g });
  const east = g.targets.filter((t) => t.timeZone === 'Eastern').map((t) => t.label);
  const p = new GeoPartitioner(s, g, 4, {
    groups: [['Central', 'Mountain', 'Pacific', 'Alaska', 'Hawaii'], east.slice(0, 10), east.slice(10)],
  });
  assert.equal(p.cityPartition[g.indexOf('New York, NY')], 1);
  assert.deepEqual(p.generalPartitions, [3]);
  const err =
    (groups: string[][], n = 4) =>
    () =>
      new GeoPartitioner(s, g, n, { groups });
  assert.throws(err([['Eastern']]), (e: unknown) => e instanceof PartitionParamError && /targets in no group/.test(e.message));
  assert.throws(err([['Eastern', 'Central', 'Mountain', 'Pacific', 'Alaska', 'Hawaii'], ['Denver, CO']]), /in two groups/);
  assert.throws(err([['Atlantis, ZZ']]), /neither a time zone/);
  assert.throws(err([['Eastern'], ['Central'], ['Mountain', 'Pacific', 'Alaska', 'Hawaii']], 3), /need at least 4 partitions/);
});

test('a page is scored once when it is placed and then asked its city', () => {
  const content = createGeoStrategy('content', { gazetteer: g });
  let calls = 0;
  const counting = {
    ...content,
    spec: content.spec,
    readsLinks: false,
    readsPages: true,
    scoreLink: () => new Map(),
    scorePage: (p: Parameters<typeof content.scorePage>[0]) => (calls++, content.scorePage(p)),
  };
  const p = new GeoPartitioner(counting, g, 6);
  const denver = page('Denver, CO');
  assert.deepEqual(p.placePage(denver, 0), [2]);
  assert.equal(p.cityOfPage(denver), g.indexOf('Denver, CO'));
  assert.equal(calls, 1);
  // Another page is scored afresh.
  assert.equal(p.cityOfPage({ ...denver, text: 'Boston, MA' }), g.indexOf('Boston, MA'));
  assert.equal(calls, 2);
});
