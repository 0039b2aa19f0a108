/**
 * The GeoStrategy contract (src/geo/geo-strategy.ts), run against every strategy of the registry
 * (src/geo/geo-strategies.ts) with every resource supplied: scores name targets of the gazetteer
 * with positive scores; the same input gives the same scores; a strategy answers nothing for the
 * kind of input it does not read; odd Web input never throws; `spec.id` is the registry id.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NaiveBayesClassifier } from '../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../src/classify/naive-bayes-trainer.js';
import { Gazetteer } from '../../src/geo/gazetteer.js';
import { createGeoStrategy, GEO_STRATEGY_IDS, GeoParamError } from '../../src/geo/geo-strategies.js';
import type { GeoLink, GeoPage, GeoScores } from '../../src/geo/geo-strategy.js';
import { RangeTableIpLocator } from '../../src/geo/ip-range-table.js';

const gazetteer = Gazetteer.usTop();
const classifier = new NaiveBayesClassifier(
  trainNaiveBayes(
    [
      { label: 'Denver, CO', title: '', text: 'denver mountains colorado rockies broncos '.repeat(20) },
      { label: 'none', title: '', text: 'recipes gardening painting music poems '.repeat(20) },
    ],
    { minCount: 1 },
  ),
);
const locator = new RangeTableIpLocator('127.0.1.0,127.0.1.255,Denver,CO\n::1,::1,Houston,TX\n', 'contract');

const LINKS: readonly GeoLink[] = [
  { url: 'http://houston-guide.test/denver/' },
  { url: 'http://www.site.test/', anchorText: 'Hotels in New York City', anchorBefore: 'near Glendale, CA', anchorAfter: 'and St. Louis' },
  { url: '' },
  { url: 'http://%zz/%e0%a4%a/', anchorText: '', anchorBefore: '', anchorAfter: '' },
  { url: `http://x.test/${'san-antonio/'.repeat(20_000)}`, anchorText: 'Denver, '.repeat(10_000) },
  { url: 'mailto:someone@chicago.test', anchorText: '\u0000\uffff Ω 東京' },
];

const PAGES: readonly GeoPage[] = [
  { url: 'http://a.test/', title: 'Denver, CO', text: '1200 Main Street, Denver, CO 80202. rockies broncos denver', ip: '127.0.1.4' },
  { url: 'http://a.test/', title: null, text: null, ip: null },
  { url: 'http://a.test/', title: '', text: '', ip: 'not an address' },
  { url: 'http://a.test/', title: 'x'.repeat(10_000), text: 'Glendale Arlington Portland, Maine. Springfield. '.repeat(5_000), ip: '::1' },
  { url: 'http://a.test/', title: 'NY', text: 'NEW YORK new york New-York LA la L.A. DC D.C. Washington, D.C.', ip: '::ffff:127.0.1.1' },
];

function assertScores(scores: GeoScores, what: string): void {
  assert.ok(scores instanceof Map, `${what}: not a Map`);
  for (const [t, s] of scores) {
    assert.ok(Number.isInteger(t) && t >= 0 && t < gazetteer.targets.length, `${what}: target ${t}`);
    assert.ok(Number.isFinite(s) && s > 0, `${what}: score ${s}`);
  }
}

for (const id of GEO_STRATEGY_IDS) {
  describe(`GeoStrategy contract: ${id}`, () => {
    const build = () =>
      createGeoStrategy(id, { gazetteer, classifier, locator, combine: ['anchor', 'url', 'content', 'classifier', 'ip'] });

    test('identity, valid and deterministic scores, nothing for what it does not read, odd input', () => {
      const a = build();
      const b = build();
      assert.equal(a.spec.id, id);
      assert.deepEqual(a.spec, b.spec);
      assert.ok(a.readsLinks || a.readsPages, 'reads something');
      let sawLinkCity = false;
      let sawPageCity = false;
      for (const link of LINKS) {
        const s = a.scoreLink(link);
        assertScores(s, `${id} scoreLink(${link.url.slice(0, 40)})`);
        assert.deepEqual(b.scoreLink(link), s);
        if (!a.readsLinks) assert.equal(s.size, 0);
        sawLinkCity ||= s.size > 0;
      }
      for (const page of PAGES) {
        const s = a.scorePage(page);
        assertScores(s, `${id} scorePage(${page.title?.slice(0, 20) ?? 'null'})`);
        assert.deepEqual(b.scorePage(page), s);
        if (!a.readsPages) assert.equal(s.size, 0);
        sawPageCity ||= s.size > 0;
      }
      // Each strategy finds a city in the inputs made for it.
      assert.equal(sawLinkCity, a.readsLinks, `${id}: a city among the links`);
      assert.equal(sawPageCity, a.readsPages, `${id}: a city among the pages`);
    });
  });
}

test('GeoStrategy contract: a missing resource or a bad parameter throws at construction, naming the option', () => {
  assert.throws(
    () => createGeoStrategy('classifier', { gazetteer }),
    (e: unknown) => e instanceof GeoParamError && /cluster\.geo\.model/.test(e.message),
  );
  assert.throws(
    () => createGeoStrategy('ip', { gazetteer }),
    (e: unknown) => e instanceof GeoParamError && /cluster\.geo\.ipDatabase/.test(e.message),
  );
  assert.throws(() => createGeoStrategy('content', { gazetteer, alpha: 1.5 }), GeoParamError);
  assert.throws(() => createGeoStrategy('combined', { gazetteer, combine: ['url', 'url'] }), GeoParamError);
  const topicModel = new NaiveBayesClassifier(
    trainNaiveBayes(
      [
        { label: 'ARTS', title: '', text: 'paint '.repeat(30) },
        { label: 'NEWS', title: '', text: 'report '.repeat(30) },
      ],
      { minCount: 1 },
    ),
  );
  assert.throws(() => createGeoStrategy('classifier', { gazetteer, classifier: topicModel }), /name no target city/);
});
