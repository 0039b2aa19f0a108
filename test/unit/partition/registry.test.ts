/**
 * The partitioner registry (src/partition/registry.ts): the schema knows exactly PARTITIONER_IDS,
 * rejects an unknown id by listing the valid ones, fills in defaults and documents every field;
 * createPartitioner reports every problem as a ConfigError at its `partition.*` path; and each
 * strategy has the forward mode it was designed for.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listFields } from '../../../src/config/describe.js';
import { ConfigError } from '../../../src/core/errors.js';
import type { Partitioner } from '../../../src/partition/partitioner.js';
import {
  createPartitioner,
  defaultForwardMode,
  defaultLinkSummaryIntervalMs,
  PARTITIONER_IDS,
  partitionStrategySchema,
  type PartitionStrategyConfig,
} from '../../../src/partition/registry.js';
import type { TopicModel } from '../../../src/partition/topic/truth-topic.js';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import { createGeoStrategy } from '../../../src/geo/geo-strategies.js';

const topics: TopicModel = { categories: ['ARTS', 'NEWS'], topicOf: () => 'NEWS' };
const classifier = { labels: ['ARTS', 'NEWS', 'WORLD'], digest: 'f'.repeat(64) };

/** Asserts `fn` throws a ConfigError with exactly one issue at `path` whose message matches `message`. */
function assertConfigError(fn: () => unknown, path: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
    assert.deepEqual(
      err.issues.map((i) => i.path),
      [path],
    );
    assert.match(err.issues[0]?.message ?? '', message);
    return true;
  });
}

describe('partitionStrategySchema', () => {
  test('knows exactly the ids of PARTITIONER_IDS', () => {
    const ids = partitionStrategySchema.options.map((o) => o.shape.strategy.value);
    assert.deepEqual(ids, [...PARTITIONER_IDS]);
    for (const id of PARTITIONER_IDS) assert.equal(partitionStrategySchema.parse({ strategy: id }).strategy, id);
  });

  test('an unknown id fails at strategy, listing every valid id', () => {
    const result = partitionStrategySchema.safeParse({ strategy: 'geo-hash' });
    assert.equal(result.success, false);
    const issue = result.error?.issues[0];
    assert.deepEqual(issue?.path, ['strategy']);
    assert.match(issue?.message ?? '', /unknown partition strategy "geo-hash"/);
    for (const id of PARTITIONER_IDS) assert.ok(issue?.message.includes(id), `message lacks ${id}`);
  });

  test('a missing id fails too, listing the valid ids', () => {
    const result = partitionStrategySchema.safeParse({});
    assert.equal(result.success, false);
    assert.match(result.error?.issues[0]?.message ?? '', /no partition strategy given; valid: url-hash, host-hash/);
  });

  test('applies the defaults of each strategy', () => {
    assert.deepEqual(partitionStrategySchema.parse({ strategy: 'consistent-hash' }), {
      strategy: 'consistent-hash',
      key: 'host',
      virtualNodes: 128,
    });
    assert.deepEqual(partitionStrategySchema.parse({ strategy: 'content-hash' }), { strategy: 'content-hash', urls: 'url-hash' });
    assert.deepEqual(partitionStrategySchema.parse({ strategy: 'truth-topic' }), {
      strategy: 'truth-topic',
      assignment: null,
      defaultCategory: null,
    });
    assert.deepEqual(partitionStrategySchema.parse({ strategy: 'host-hash' }), { strategy: 'host-hash' });
  });

  test('rejects options of another strategy and bad values', () => {
    assert.equal(partitionStrategySchema.safeParse({ strategy: 'host-hash', virtualNodes: 64 }).success, false);
    assert.equal(partitionStrategySchema.safeParse({ strategy: 'consistent-hash', key: 'path' }).success, false);
    assert.equal(partitionStrategySchema.safeParse({ strategy: 'consistent-hash', virtualNodes: 0 }).success, false);
    assert.equal(partitionStrategySchema.safeParse({ strategy: 'content-hash', urls: 'ip-hash' }).success, false);
  });

  test('documents every field of every strategy', () => {
    for (const member of partitionStrategySchema.options) {
      for (const field of listFields(member))
        assert.ok(field.doc.length > 0, `${member.shape.strategy.value}.${field.path} has no description`);
    }
  });
});

describe('createPartitioner', () => {
  test('builds each strategy with the configured parameters', () => {
    const ring = createPartitioner(partitionStrategySchema.parse({ strategy: 'consistent-hash', key: 'domain', virtualNodes: 32 }), 3);
    assert.deepEqual(ring.spec, { id: 'consistent-hash', params: { key: 'domain', virtualNodes: 32 } });
    assert.equal(ring.partitionCount, 3);
    const content = createPartitioner(partitionStrategySchema.parse({ strategy: 'content-hash', urls: 'host-hash' }), 2);
    assert.deepEqual(content.spec.params, { urls: 'host-hash' });
    const topic = createPartitioner(
      partitionStrategySchema.parse({ strategy: 'truth-topic', assignment: { ARTS: 1, NEWS: 0 }, defaultCategory: 'ARTS' }),
      2,
      { topics },
    );
    assert.deepEqual(topic.spec.params, { assignment: ['ARTS=1', 'NEWS=0'], defaultCategory: 'ARTS' });
  });

  test('truth-topic without a topic model is a ConfigError at partition.strategy', () => {
    assertConfigError(
      () => createPartitioner(partitionStrategySchema.parse({ strategy: 'truth-topic' }), 4, {}),
      'partition.strategy',
      /topic model/,
    );
  });

  test('a partition count below 1 (or not an integer) is a ConfigError at partition.strategy', () => {
    for (const n of [0, -3, 2.5]) {
      assertConfigError(
        () => createPartitioner(partitionStrategySchema.parse({ strategy: 'host-hash' }), n),
        'partition.strategy',
        /partition count/,
      );
    }
  });

  test('a parameter the strategy rejects is a ConfigError at its own path', () => {
    const config = partitionStrategySchema.parse({ strategy: 'truth-topic', assignment: { ARTS: 0 } });
    assertConfigError(() => createPartitioner(config, 2, { topics }), 'partition.assignment', /NEWS/);
    const unknownDefault = partitionStrategySchema.parse({ strategy: 'truth-topic', defaultCategory: 'WORLD' });
    assertConfigError(() => createPartitioner(unknownDefault, 2, { topics }), 'partition.defaultCategory', /WORLD/);
  });

  test('validates hand-built objects again', () => {
    const handMade = { strategy: 'consistent-hash', key: 'host', virtualNodes: 0 } as PartitionStrategyConfig;
    assertConfigError(() => createPartitioner(handMade, 2), 'partition.virtualNodes', /./);
    const unknown = { strategy: 'random' } as unknown as PartitionStrategyConfig;
    assertConfigError(() => createPartitioner(unknown, 2), 'partition.strategy', /valid: url-hash/);
  });
});

describe('defaultForwardMode', () => {
  test('urls for hash strategies, both for content-hash, pages for the topic strategies, urls for geo and community', () => {
    const gazetteer = Gazetteer.usTop();
    const geo = { gazetteer, strategy: createGeoStrategy('url', { gazetteer }), policy: 'A' as const, groups: null };
    const modes = Object.fromEntries(
      PARTITIONER_IDS.map((id) => [
        id,
        defaultForwardMode(createPartitioner(partitionStrategySchema.parse({ strategy: id }), 4, { topics, classifier, geo })),
      ]),
    );
    assert.deepEqual(modes, {
      'url-hash': 'urls',
      'host-hash': 'urls',
      'domain-hash': 'urls',
      'ip-hash': 'urls',
      'consistent-hash': 'urls',
      'content-hash': 'both',
      topic: 'pages',
      'truth-topic': 'pages',
      geo: 'urls',
      community: 'urls',
    });
  });

  test('link summaries every second for community (its placements read them), every 10 s for the others', () => {
    assert.equal(defaultLinkSummaryIntervalMs(createPartitioner({ strategy: 'community', k: 32, trackedUrls: 10 }, 2)), 1_000);
    assert.equal(defaultLinkSummaryIntervalMs(createPartitioner({ strategy: 'host-hash' }, 2)), 10_000);
  });

  test('topic needs the classifier labels, places pages by their category and names the model in its spec', () => {
    assertConfigError(
      () => createPartitioner(partitionStrategySchema.parse({ strategy: 'topic' }), 2, { topics }),
      'partition.strategy',
      /topic model/,
    );
    const p = createPartitioner(partitionStrategySchema.parse({ strategy: 'topic', defaultCategory: 'WORLD' }), 2, { classifier });
    assert.deepEqual(p.spec.params.assignment, ['ARTS=0', 'NEWS=1', 'WORLD=0']);
    assert.equal(p.spec.params.model, classifier.digest);
    const page = { url: 'http://a.test/', hostname: 'a.test', ip: null, contentDigest: 'sha1:X', language: 'en', title: null, text: null };
    const placer = p as Partitioner & { placePage: (page: unknown, self: number) => readonly number[] };
    assert.deepEqual(placer.placePage({ ...page, category: 'NEWS' }, 0), [1]);
    assert.deepEqual(placer.placePage({ ...page, category: null }, 1), [0], "no category: the default category's partition");
    assert.deepEqual(placer.placePage({ ...page, category: 'SPORTS' }, 1), [0], 'a category the labels do not name: the default');
    assert.deepEqual(p.placeUrl({ url: 'http://a.test/x', hostname: 'a.test', ip: null }, 1), [1], 'URLs stay where found');
  });

  test('a strategy outside the registry: pages when it can place pages, else urls', () => {
    const base: Partitioner = { spec: { id: 'custom', params: {} }, partitionCount: 1, needsIp: false, placeUrl: () => [0] };
    assert.equal(defaultForwardMode(base), 'urls');
    assert.equal(defaultForwardMode({ ...base, placePage: () => [0] } as Partitioner), 'pages');
  });
});
