/**
 * The OrderingPolicy contract (src/order/policy.ts), run against every policy the registry knows,
 * built through orderingPolicyFrom with default parameters (plus the query, terms, categories or
 * components a policy requires, and a small topic model) and a few non-default variants: priorities
 * and estimates are finite; the same calls give the same answers; odd input never throws (extended
 * anchor texts present or not); changes name only URLs the policy prioritized and has not seen
 * fetched since; `spec.id` is the registry id. The registry rejects unknown ids and bad parameters
 * with configuration errors.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/core/errors.js';
import {
  canEstimateImportance,
  canObserveRemoteLinks,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type PriorityChanges,
} from '../../src/order/policy.js';
import {
  ORDER_POLICY_IDS,
  orderingPolicyFrom,
  orderPolicySchema,
  type OrderModels,
  type OrderPolicyConfig,
  type OrderPolicyId,
  type OrderPolicyInput,
} from '../../src/order/registry.js';
import { trainNaiveBayes } from '../../src/classify/naive-bayes-trainer.js';
import { NaiveBayesClassifier } from '../../src/classify/naive-bayes.js';
import { crawlFixture, type FixtureWeb } from '../helpers/order.js';
import { topicCorpus } from '../helpers/topic-corpus.js';

const CLASSIFIER = new NaiveBayesClassifier(trainNaiveBayes(topicCorpus()));
const MODELS: OrderModels = {
  idf: new Map([
    ['computer', 4],
    ['science', 2],
    ['the', 0.01],
  ]),
  topic: { classifier: CLASSIFIER, categories: ['COMPUTERS', 'HEALTH'] },
};

/** The section each id is tested with: defaults, plus what the policy cannot do without. */
const DEFAULT_SECTIONS: { readonly [K in OrderPolicyId]: OrderPolicyInput } = {
  bfs: { policy: 'bfs' },
  random: { policy: 'random' },
  backlink: { policy: 'backlink' },
  pagerank: { policy: 'pagerank' },
  'forward-links': { policy: 'forward-links' },
  location: { policy: 'location' },
  similarity: { policy: 'similarity', query: 'computer science' },
  'hot-queue': { policy: 'hot-queue', terms: ['computer'] },
  topic: { policy: 'topic', categories: ['SPORTS'] },
  community: { policy: 'community' },
  weighted: {
    policy: 'weighted',
    components: [
      { policy: { policy: 'pagerank' }, weight: 1 },
      { policy: { policy: 'similarity', query: 'computer' }, weight: 2 },
      { policy: { policy: 'hot-queue', terms: ['computer'] }, weight: 10 },
    ],
  },
};

/** Non-default variants that exercise more code under the same contract. */
const VARIANTS: readonly OrderPolicyInput[] = [
  { policy: 'pagerank', recomputeEvery: 1, sliceWork: 0, minChange: 0 },
  { policy: 'pagerank', recomputeEvery: 3, sliceWork: 7 },
  { policy: 'similarity', query: 'computer', idfSource: 'reference', urlWeight: 0 },
  { policy: 'hot-queue', terms: ['computer', 'science'], hotDistance: 0 },
  { policy: 'topic' },
  { policy: 'community', rank: 'citing' },
  { policy: 'community', representatives: 4, maxNeighbours: 3, k: 2 },
  {
    policy: 'weighted',
    components: [
      { policy: { policy: 'topic', categories: ['COMPUTERS'] }, weight: 1 },
      { policy: { policy: 'bfs' }, weight: 1 },
    ],
  },
  { policy: 'location', slashWeight: 0.5, suffixWeights: { test: -2 }, keywordWeights: { computer: 3 } },
  {
    policy: 'weighted',
    components: [
      { policy: { policy: 'backlink' }, weight: -1 },
      { policy: { policy: 'random', seed: 9 }, weight: 1e9 },
    ],
  },
];

const LONG = 'computer '.repeat(20_000);

/** One call of the scripted crawl. */
type Step =
  | { readonly kind: 'prioritize'; readonly url: DiscoveredUrl }
  | { readonly kind: 'observe'; readonly page: FetchedPage }
  | {
      readonly kind: 'remote';
      readonly ids: readonly number[];
      readonly counts: readonly number[];
      readonly shares?: readonly number[];
      readonly outDegrees?: readonly number[];
    };

/**
 * A deterministic crawl of 60 pages with odd input mixed in: repeated and invalid link ids, links
 * without anchors, anchor arrays shorter than the links, empty and huge texts, unknown discovering
 * pages, repeated observes of one page, hints that are not numbers, and remote counts.
 */
function script(): Step[] {
  let s = 12345;
  const rnd = (n: number): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
  const steps: Step[] = [];
  const urlOf = (id: number): string => (id % 7 === 0 ? '' : `http://h${id % 5}.test/${id % 3 === 0 ? 'computer/' : ''}p/${id}`);
  const queued: number[] = [0];
  const known = new Set<number>([0]);
  steps.push({ kind: 'prioritize', url: { id: 0, url: urlOf(0), depth: 0 } });
  steps.push({
    kind: 'prioritize',
    url: { id: 200, url: 'http://x.test/', depth: 0, backlinkHint: Number.NaN, priorityHint: Number.POSITIVE_INFINITY },
  });
  steps.push({ kind: 'prioritize', url: { id: 201, url: 'not a url', depth: 0, backlinkHint: -3, anchorText: '' } });
  for (let fetch = 0; fetch < 60 && queued.length > 0; fetch++) {
    const id = queued.splice(rnd(queued.length), 1)[0] as number;
    const out = Array.from({ length: rnd(6) }, () => rnd(80));
    if (fetch % 9 === 4) out.push(out[0] ?? 1, -1, 2.5, Number.NaN);
    const anchors = out.map((t) => (t % 4 === 0 ? 'Computer science' : t % 4 === 1 ? '' : `link ${t}`));
    const page: FetchedPage = {
      id,
      url: urlOf(id),
      depth: 1,
      outIds: out,
      outUrls: out.map((t) => (Number.isInteger(t) && t >= 0 ? urlOf(t) : '')),
      anchors: fetch % 5 === 2 ? anchors.slice(0, 1) : anchors,
      ...(fetch % 4 === 1
        ? { anchorContexts: out.slice(1).map((t) => (t % 3 === 0 ? 'computer software and the database server' : '')) }
        : {}),
      ...(fetch % 3 === 0 ? {} : { title: fetch % 4 === 0 ? 'Computer' : 'misc' }),
      ...(fetch % 6 === 1 ? { text: LONG } : fetch % 6 === 2 ? { text: '' } : {}),
    };
    steps.push({ kind: 'observe', page });
    if (fetch % 10 === 3) steps.push({ kind: 'observe', page });
    for (const t of out) {
      if (!Number.isInteger(t) || t < 0 || known.has(t)) continue;
      known.add(t);
      queued.push(t);
      const anchorText = anchors[out.indexOf(t)] ?? '';
      steps.push({
        kind: 'prioritize',
        url: { id: t, url: urlOf(t), depth: 2, fromId: fetch % 8 === 0 ? 9999 : id, ...(anchorText === '' ? {} : { anchorText }) },
      });
    }
    if (fetch % 11 === 5) steps.push({ kind: 'remote', ids: [queued[0] ?? 1, -4, 77, 3], counts: [2, 1, Number.NaN] });
    // Shares and out-degrees as a sender may give them, odd values included (skipped, never thrown on).
    if (fetch % 11 === 8)
      steps.push({
        kind: 'remote',
        ids: [queued[1] ?? 2, queued[2] ?? 3, -1, 5],
        counts: [1, 3, 1, 2],
        shares: [0.5, Number.NaN, 2, -1],
        outDegrees: [40, Number.POSITIVE_INFINITY, 3, -2],
      });
  }
  steps.push({ kind: 'observe', page: { id: 9998, url: '', depth: 0, outIds: [] } });
  return steps;
}

const SCRIPT = script();

/** Runs the script, checking the contract on the way; returns everything the policy answered. */
function run(policy: OrderingPolicy, what: string): number[] {
  const answers: number[] = [];
  const waiting = new Set<number>();
  const checkChanges = (changes: PriorityChanges, call: string): void => {
    assert.ok(Number.isInteger(changes.length) && changes.length >= 0, `${what} ${call}: length`);
    answers.push(changes.length);
    for (let i = 0; i < changes.length; i++) {
      const id = changes.ids[i] as number;
      const p = changes.priorities[i] as number;
      assert.ok(Number.isFinite(p), `${what} ${call}: change to ${p} for ${id}`);
      assert.ok(waiting.has(id), `${what} ${call}: change for ${id}, which is not prioritized-and-unfetched`);
      answers.push(id, p);
    }
  };
  for (const step of SCRIPT) {
    if (step.kind === 'prioritize') {
      const p = policy.prioritize(step.url);
      assert.ok(Number.isFinite(p), `${what}: priority ${p} for ${step.url.id}`);
      answers.push(p);
      waiting.add(step.url.id);
    } else if (step.kind === 'observe') {
      waiting.delete(step.page.id);
      checkChanges(policy.observe(step.page), `observe(${step.page.id})`);
    } else if (canObserveRemoteLinks(policy)) {
      checkChanges(policy.observeRemoteLinks(step.ids, step.counts, step.shares, step.outDegrees), 'observeRemoteLinks');
    }
  }
  if (canEstimateImportance(policy)) {
    for (const id of [0, 1, 5, 30, 79, 200, 9998, 123_456, -1]) {
      const e = policy.estimate(id);
      assert.ok(Number.isFinite(e), `${what}: estimate(${id}) = ${e}`);
      answers.push(e);
    }
  }
  return answers;
}

const build = (section: OrderPolicyInput): OrderingPolicy => orderingPolicyFrom(orderPolicySchema.parse(section), MODELS);

for (const section of [...ORDER_POLICY_IDS.map((id) => DEFAULT_SECTIONS[id]), ...VARIANTS]) {
  const what = JSON.stringify(section);
  describe(`OrderingPolicy contract: ${what}`, () => {
    test('identity: spec names the registry id and scalar parameters; needs are booleans', () => {
      const policy = build(section);
      assert.equal(policy.spec.id, section.policy);
      assert.deepEqual(build(section).spec, policy.spec);
      for (const [name, value] of Object.entries(policy.spec.params)) {
        const isScalar = ['string', 'number', 'boolean'].includes(typeof value);
        assert.ok(isScalar || (Array.isArray(value) && value.every((v) => typeof v === 'string')), `${what}: param ${name}`);
      }
      for (const key of ['ids', 'urls', 'anchors', 'text'] as const) assert.equal(typeof policy.needs[key], 'boolean');
      assert.ok(['boolean', 'undefined'].includes(typeof policy.needs.anchorContext), `${what}: needs.anchorContext`);
    });

    test('finite answers, changes only for queued URLs, no throw on odd input, and deterministic', () => {
      const first = run(build(section), what);
      const second = run(build(section), what);
      assert.deepEqual(second, first);
      assert.ok(first.length > SCRIPT.length / 2);
    });
  });
}

describe('OrderingPolicy registry', () => {
  test('every id builds from its default section: the spec names the id and every parameter, and the policy crawls', () => {
    //   /  ──▶ /a, /b, /computer      /a ──▶ /c, /a (itself)      /b ──▶ /c, /d      /d ──▶ /
    const s = 'http://s.test';
    const web: FixtureWeb = {
      [`${s}/`]: [`${s}/a`, `${s}/b`, `${s}/computer`],
      [`${s}/a`]: [`${s}/c`, `${s}/a`],
      [`${s}/b`]: [`${s}/c`, `${s}/d`],
      [`${s}/d`]: [`${s}/`],
    };
    const pages = [`${s}/`, `${s}/a`, `${s}/b`, `${s}/c`, `${s}/computer`, `${s}/d`];
    const content = (url: string) => ({
      title: url.endsWith('/b') ? 'Computer science' : 'misc',
      text: 'computer '.repeat(url.length % 12),
    });
    for (const id of ORDER_POLICY_IDS) {
      const section = orderPolicySchema.parse(DEFAULT_SECTIONS[id]);
      const policy = orderingPolicyFrom(section, MODELS);
      assert.equal(policy.spec.id, id);
      const params: Record<string, unknown> = { ...section };
      delete params.policy;
      assert.deepEqual(Object.keys(policy.spec.params).sort(), Object.keys(params).sort(), `${id}: the spec names every parameter`);
      for (const [name, value] of Object.entries(params)) {
        const given = policy.spec.params[name];
        if (typeof value !== 'object') assert.equal(given, value, `${id}.${name}`);
        else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) assert.deepEqual(given, value, `${id}.${name}`);
        else if (!Array.isArray(value))
          assert.deepEqual(
            [...(given as string[])].sort(),
            Object.entries(value as Record<string, number>)
              .map(([k, w]) => `${k}=${w}`)
              .sort(),
            `${id}.${name}`,
          );
      }
      const order = crawlFixture(web, [`${s}/`], policy, { content });
      assert.equal(order[0], `${s}/`, `${id}: the seed first`);
      assert.deepEqual([...order].sort(), pages, `${id}: every page once`);
    }
  });

  test('an unknown or missing id fails, listing every valid id', () => {
    for (const section of [{ policy: 'fastest' }, {}, { policy: 'weighted', components: [{ policy: { policy: 'nope' }, weight: 1 }] }]) {
      const parsed = orderPolicySchema.safeParse(section);
      assert.equal(parsed.success, false);
      const message = parsed.error?.issues.map((i) => i.message).join('\n') ?? '';
      for (const id of ['bfs', 'pagerank', 'hot-queue']) assert.ok(message.includes(id), `${JSON.stringify(section)}: ${message}`);
    }
  });

  test('bad parameters fail in the schema, and in orderingPolicyFrom with order.* paths', () => {
    const bad: unknown[] = [
      { policy: 'pagerank', recomputeEvery: 0 },
      { policy: 'pagerank', damping: 1 },
      { policy: 'random', seed: -1 },
      { policy: 'bfs', extra: true },
      { policy: 'similarity' },
      { policy: 'hot-queue', terms: [] },
      { policy: 'hot-queue', terms: ['x'], hotDistance: 9 },
      { policy: 'weighted', components: [] },
      { policy: 'weighted', components: [{ policy: { policy: 'weighted', components: [] }, weight: 1 }] },
      { policy: 'location', suffixWeights: { com: 'high' } },
    ];
    for (const section of bad) assert.equal(orderPolicySchema.safeParse(section).success, false, JSON.stringify(section));
    const paths = (section: unknown, models: OrderModels = {}): string[] => {
      try {
        orderingPolicyFrom(section as OrderPolicyConfig, models);
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.issues.map((i) => i.path);
      }
      return assert.fail(`${JSON.stringify(section)} was accepted`);
    };
    assert.deepEqual(paths({ policy: 'pagerank', recomputeEvery: -5 }), ['order.recomputeEvery']);
    assert.deepEqual(paths(orderPolicySchema.parse({ policy: 'similarity', query: '?!' })), ['order.query']);
    assert.deepEqual(paths(orderPolicySchema.parse({ policy: 'similarity', query: 'x', idfSource: 'reference' })), ['order.idfSource']);
    assert.deepEqual(paths(orderPolicySchema.parse({ policy: 'hot-queue', terms: ['two words'] })), ['order.terms']);
    assert.deepEqual(paths(orderPolicySchema.parse({ policy: 'topic', categories: ['CHESS'] }), MODELS), ['order.categories']);
    assert.deepEqual(paths(orderPolicySchema.parse({ policy: 'topic' }), { topic: { classifier: CLASSIFIER, categories: null } }), [
      'order.categories',
    ]);
    assert.deepEqual(
      paths(
        orderPolicySchema.parse({
          policy: 'weighted',
          components: [
            { policy: { policy: 'bfs' }, weight: 1 },
            { policy: { policy: 'similarity', query: '…' }, weight: 1 },
          ],
        }),
      ),
      ['order.components.1.policy.query'],
    );
  });
});
