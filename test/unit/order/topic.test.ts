/**
 * The topic ordering (src/order/topic.ts): a link is scored by the topic model's probability that
 * its anchor, extended anchor text and URL words are on the node's own categories, with a small
 * model trained on the test web's topic vocabularies (test/helpers/topic-corpus.ts). A SPORTS node
 * and a COMPUTERS node order the same two links in opposite ways; a better link to a queued URL
 * raises it; the parameters are checked.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { trainNaiveBayes } from '../../../src/classify/naive-bayes-trainer.js';
import { NaiveBayesClassifier } from '../../../src/classify/naive-bayes.js';
import { OrderParamError } from '../../../src/order/order-params.js';
import { orderingPolicyFrom, orderPolicySchema } from '../../../src/order/registry.js';
import { TopicPolicy } from '../../../src/order/topic.js';
import { ConfigError } from '../../../src/core/errors.js';
import { changesOf, crawlFixture, type FixtureWeb } from '../../helpers/order.js';
import { topicCorpus } from '../../helpers/topic-corpus.js';

const classifier = new NaiveBayesClassifier(trainNaiveBayes(topicCorpus()));
const SPORTS_LINK = 'football match goal';
const COMPUTERS_LINK = 'database server code';

const link = (id: number, anchorText: string, url = `http://s.test/p${id}`) => ({ id, url, depth: 1, anchorText });

describe('TopicPolicy', () => {
  test('spec and needs', () => {
    const p = new TopicPolicy({ classifier, categories: ['SPORTS', 'ARTS', 'SPORTS'] });
    assert.deepEqual(p.spec, { id: 'topic', params: { categories: ['SPORTS', 'ARTS'] } });
    assert.deepEqual(p.needs, { ids: true, urls: true, anchors: true, text: false, anchorContext: true });
  });

  test('a sports anchor ranks above a computers anchor for a SPORTS node, and below for a COMPUTERS node', () => {
    const sports = new TopicPolicy({ classifier, categories: ['SPORTS'] });
    const computers = new TopicPolicy({ classifier, categories: ['COMPUTERS'] });
    const s1 = sports.prioritize(link(1, SPORTS_LINK));
    const s2 = sports.prioritize(link(2, COMPUTERS_LINK));
    const c1 = computers.prioritize(link(1, SPORTS_LINK));
    const c2 = computers.prioritize(link(2, COMPUTERS_LINK));
    assert.ok(s1 > s2, `SPORTS node: ${s1} > ${s2}`);
    assert.ok(c2 > c1, `COMPUTERS node: ${c2} > ${c1}`);
    for (const p of [s1, s2, c1, c2]) assert.ok(p >= 0 && p <= 1);
    const both = new TopicPolicy({ classifier, categories: ['SPORTS', 'COMPUTERS'] });
    const b = both.prioritize(link(1, SPORTS_LINK));
    assert.ok(Math.abs(b - (s1 + c1)) < 1e-9, 'several categories: the sum of their probabilities');
  });

  test('URL words and extended anchor text count; a link without known words gets the prior', () => {
    const p = new TopicPolicy({ classifier, categories: ['SPORTS'] });
    const byUrl = p.prioritize({ id: 1, url: 'http://s.test/football/soccer-league', depth: 1 });
    const plain = p.prioritize({ id: 2, url: 'http://s.test/p2', depth: 1 });
    assert.ok(byUrl > plain, `URL words: ${byUrl} > ${plain}`);
    assert.ok(Math.abs(plain - 0.25) < 1e-9, `no known word: the uniform prior of 4 categories, got ${plain}`);
    const q = new TopicPolicy({ classifier, categories: ['SPORTS'] });
    q.observe({
      id: 0,
      url: 'http://s.test/',
      depth: 0,
      outIds: [5, 6],
      outUrls: ['http://s.test/p5', 'http://s.test/p6'],
      anchors: ['more', 'more'],
      anchorContexts: ['the tennis tournament and the rugby league', ''],
    });
    const withContext = q.prioritize({ id: 5, url: 'http://s.test/p5', depth: 1, fromId: 0, anchorText: 'more' });
    const without = q.prioritize({ id: 6, url: 'http://s.test/p6', depth: 1, fromId: 0, anchorText: 'more' });
    assert.ok(withContext > without, `extended anchor text: ${withContext} > ${without}`);
  });

  test('a queued URL found again through a better link rises (a change); a worse link changes nothing', () => {
    const p = new TopicPolicy({ classifier, categories: ['SPORTS'] });
    const before = p.prioritize(link(7, COMPUTERS_LINK));
    const changes = changesOf(
      p.observe({
        id: 1,
        url: 'http://s.test/p1',
        depth: 1,
        outIds: [7, 8],
        anchors: [SPORTS_LINK, SPORTS_LINK],
        outUrls: ['http://s.test/p7', 'http://s.test/p8'],
      }),
    );
    assert.deepEqual(Object.keys(changes), ['7'], '8 is not queued: no change for it');
    assert.ok((changes[7] as number) > before);
    assert.equal(p.prioritize({ id: 8, url: 'http://s.test/p8', depth: 2, fromId: 1, anchorText: SPORTS_LINK }), changes[7]);
    assert.deepEqual(changesOf(p.observe({ id: 2, url: 'http://s.test/p2', depth: 1, outIds: [7], anchors: [COMPUTERS_LINK] })), {});
  });

  test('a SPORTS node crawls the sports side first; deterministic', () => {
    //   /  ──▶ /server, /database, /football      /football ──▶ /soccer      /server ──▶ /compiler
    const s = 'http://s.test';
    const web: FixtureWeb = {
      [`${s}/`]: [`${s}/server`, `${s}/database`, `${s}/football`],
      [`${s}/football`]: [`${s}/soccer`],
      [`${s}/server`]: [`${s}/compiler`],
    };
    const crawl = () => crawlFixture(web, [`${s}/`], new TopicPolicy({ classifier, categories: ['SPORTS'] }));
    const order = crawl();
    assert.deepEqual(order.slice(0, 3), [`${s}/`, `${s}/football`, `${s}/soccer`]);
    assert.deepEqual(crawl(), order);
  });

  test("parameters: a classifier is required; categories must be the model's; an empty list (a node without model categories) is allowed", () => {
    assert.throws(() => new TopicPolicy({ classifier: undefined, categories: ['SPORTS'] }), OrderParamError);
    assert.throws(
      () => new TopicPolicy({ classifier, categories: null }),
      (e: unknown) => e instanceof OrderParamError && e.param === 'categories',
    );
    assert.throws(() => new TopicPolicy({ classifier, categories: ['CHESS'] }), /CHESS/);
    assert.equal(new TopicPolicy({ classifier, categories: [] }).prioritize(link(1, SPORTS_LINK)), 0);
  });

  test("registry: the section's categories, else the node's from the models; neither given is a configuration error", () => {
    const section = orderPolicySchema.parse({ policy: 'topic' });
    assert.throws(
      () => orderingPolicyFrom(section, { topic: { classifier, categories: null } }),
      (e: unknown) => e instanceof ConfigError && e.issues[0]?.path === 'order.categories',
    );
    assert.throws(
      () => orderingPolicyFrom(section),
      (e: unknown) => e instanceof ConfigError && e.issues[0]?.path === 'order.policy',
    );
    assert.deepEqual(orderingPolicyFrom(section, { topic: { classifier, categories: ['HEALTH'] } }).spec.params, {
      categories: ['HEALTH'],
    });
    const named = orderPolicySchema.parse({ policy: 'topic', categories: ['ARTS'] });
    assert.deepEqual(orderingPolicyFrom(named, { topic: { classifier, categories: ['HEALTH'] } }).spec.params, { categories: ['ARTS'] });
  });
});
