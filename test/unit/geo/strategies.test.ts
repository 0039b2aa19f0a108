import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NaiveBayesClassifier } from '../../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../../src/classify/naive-bayes-trainer.js';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import { createGeoStrategy } from '../../../src/geo/geo-strategies.js';
import { bestTarget, type GeoScores } from '../../../src/geo/geo-strategy.js';
import { RangeTableIpLocator } from '../../../src/geo/ip-range-table.js';

const g = Gazetteer.usTop();
const t = (label: string): number => {
  const i = g.indexOf(label);
  assert.ok(i >= 0, label);
  return i;
};
const labels = (s: GeoScores): string[] => [...s.keys()].map((i) => g.targets[i]?.label ?? '?').sort();
const page = (title: string, text: string, ip: string | null = null) => ({ url: 'http://a.test/', title, text, ip });

test('url: the first city met wins (host before path); ambiguous names are the most populous place', () => {
  const s = createGeoStrategy('url', { gazetteer: g });
  const scores = s.scoreLink({ url: 'http://glendale-news.test/dallas/' });
  assert.equal(bestTarget(scores), t('Glendale, AZ'));
  assert.deepEqual(labels(scores), ['Dallas, TX', 'Glendale, AZ']);
  assert.equal(s.scoreLink({ url: 'http://news.test/sports/' }).size, 0);
  assert.equal(s.scorePage(page('Denver, CO', 'Denver')).size, 0);
});

test('anchor: the city closest to the anchor wins, a state resolves the name, the window counts', () => {
  const s = createGeoStrategy('anchor', { gazetteer: g });
  const link = { url: 'http://x.test/', anchorText: 'hotels', anchorBefore: 'From Houston to', anchorAfter: 'Dallas and Austin' };
  assert.equal(bestTarget(s.scoreLink(link)), t('Dallas, TX'), 'right after the anchor beats one word away before it');
  assert.deepEqual(labels(s.scoreLink(link)), ['Austin, TX', 'Dallas, TX', 'Houston, TX']);
  assert.equal(bestTarget(s.scoreLink({ ...link, anchorText: 'Seattle hotels' })), t('Seattle, WA'), 'inside the anchor: distance 0');
  assert.equal(s.scoreLink({ url: 'http://x.test/', anchorText: 'Glendale, CA' }).size, 0, 'a same-name city that is no target');
  assert.equal(bestTarget(s.scoreLink({ url: 'http://x.test/', anchorText: 'Glendale' })), t('Glendale, AZ'));
});

test('content: the paper formula with α = 0.7, β = 0.5', () => {
  const s = createGeoStrategy('content', { gazetteer: g });
  // Two "Denver, CO" mentions: 2α = 1.4.
  assert.equal(s.scorePage(page('', 'Denver, CO and Denver, Colorado.')).get(t('Denver, CO')), 1.4);
  // One bare "Glendale", one mention of California: S(AZ) = pop_AZ / Σpop, S̃(AZ) = 0 → AZ (1−α)·β·S.
  const places = g.placesNamed('Glendale');
  const sum = places.reduce((a, p) => a + p.population, 0);
  const az = places.find((p) => p.state === 'AZ')?.population ?? 0;
  const scores = s.scorePage(page('', 'Glendale is sunny. California is big.'));
  assert.ok(Math.abs((scores.get(t('Glendale, AZ')) ?? 0) - 0.3 * 0.5 * (az / sum)) < 1e-12);
  assert.equal(scores.size, 1, 'Glendale, CA is no target');
  // State mentions pull an ambiguous name: "Arlington" with Texas named twice vs nothing.
  const withTexas = s.scorePage(page('', 'Arlington. Texas, Texas.')).get(t('Arlington, TX')) ?? 0;
  const bare = s.scorePage(page('', 'Arlington.')).get(t('Arlington, TX')) ?? 0;
  assert.ok(withTexas > bare && bare > 0);
  assert.equal(s.scoreLink({ url: 'http://denver.test/' }).size, 0);
  assert.equal(s.scorePage(page('', 'nothing here')).size, 0);
});

test('classifier: no city when "none" wins; Policy B cities at or above minProbability', () => {
  const model = trainNaiveBayes(
    [
      { label: 'Denver, CO', title: '', text: 'rockies broncos mountains snow '.repeat(20) },
      { label: 'Houston, TX', title: '', text: 'rockets bayou space humid '.repeat(20) },
      { label: 'none', title: '', text: 'poems recipes gardens paint '.repeat(20) },
    ],
    { minCount: 1 },
  );
  const s = createGeoStrategy('classifier', { gazetteer: g, classifier: new NaiveBayesClassifier(model), minProbability: 0.2 });
  assert.equal(bestTarget(s.scorePage(page('', 'rockies broncos snow mountains rockies'))), t('Denver, CO'));
  assert.equal(s.scorePage(page('', 'poems recipes gardens paint poems')).size, 0);
  assert.equal(s.scorePage(page('', '')).size, 0);
});

test('ip: the city of the address, if a target', () => {
  const locator = new RangeTableIpLocator('127.0.0.0,127.0.0.255,Denver,CO\n127.0.1.0,127.0.1.255,Glendale,CA\n', 'test');
  const s = createGeoStrategy('ip', { gazetteer: g, locator });
  assert.equal(bestTarget(s.scorePage(page('', '', '127.0.0.9'))), t('Denver, CO'));
  assert.equal(s.scorePage(page('', '', '127.0.1.9')).size, 0);
  assert.equal(s.scorePage(page('', '', '10.0.0.1')).size, 0);
  assert.equal(s.scorePage(page('', '', null)).size, 0);
});

test('combined: the first strategy of each kind that sees a city', () => {
  const s = createGeoStrategy('combined', { gazetteer: g, combine: ['anchor', 'url', 'content'] });
  assert.equal(s.spec.params['order'], 'anchor,url,content');
  assert.equal(bestTarget(s.scoreLink({ url: 'http://dallas.test/', anchorText: 'Seattle' })), t('Seattle, WA'));
  assert.equal(bestTarget(s.scoreLink({ url: 'http://dallas.test/', anchorText: 'more' })), t('Dallas, TX'));
  assert.equal(bestTarget(s.scorePage(page('', 'Boston, MA'))), t('Boston, MA'));
});
