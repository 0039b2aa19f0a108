/**
 * Topic partitioning by true labels (src/partition/topic/truth-topic.ts): URLs stay with the node
 * asking, pages go to the partition of their label, the category → partition assignment is dealt
 * round-robin or given, and pages of unknown topic go to the default category or stay.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionParamError } from '../../../../src/partition/partition-params.js';
import { canPlacePages } from '../../../../src/partition/partitioner.js';
import { TruthTopicPartitioner, type TopicModel } from '../../../../src/partition/topic/truth-topic.js';
import { DEFAULT_CATEGORIES } from '../../../../src/web/config.js';
import { pageOf, urlOf } from '../synthetic.js';

/** The test web's default labels; a page's label is the first path segment, upper-cased. */
const model: TopicModel = {
  categories: DEFAULT_CATEGORIES,
  topicOf: (url) => {
    const label = new URL(url).pathname.split('/')[1]?.toUpperCase() ?? '';
    return label === 'UNKNOWN' ? null : label;
  },
};

const page = (label: string) => pageOf(`http://www.site.test/${label.toLowerCase()}/page`, `sha1:${label}`);

describe('TruthTopicPartitioner', () => {
  test('spec: the effective assignment in category order and the default category', () => {
    const p = new TruthTopicPartitioner({ categories: ['ARTS', 'NEWS', 'WORLD'], topicOf: () => null }, 2, { defaultCategory: 'WORLD' });
    assert.deepEqual(p.spec, { id: 'truth-topic', params: { assignment: ['ARTS=0', 'NEWS=1', 'WORLD=0'], defaultCategory: 'WORLD' } });
    assert.equal(new TruthTopicPartitioner(model, 2).spec.params.defaultCategory, '');
    assert.equal(p.needsIp, false);
    assert.ok(canPlacePages(p));
  });

  test('placeUrl keeps every URL at self: topic crawling does not hash URLs', () => {
    const p = new TruthTopicPartitioner(model, 4);
    for (const self of [0, 1, 2, 3]) {
      assert.deepEqual(p.placeUrl(urlOf('http://www.site.test/sports/x'), self), [self]);
      assert.deepEqual(p.placeUrl(urlOf('http://other.test/'), self), [self]);
    }
  });

  test('default assignment: the 16 categories dealt round-robin to 4 partitions, several per partition', () => {
    const p = new TruthTopicPartitioner(model, 4);
    const expected: Record<string, number> = {
      ADULT: 0,
      ARTS: 1,
      BUSINESS: 2,
      COMPUTERS: 3,
      GAMES: 0,
      HEALTH: 1,
      HOME: 2,
      KIDS: 3,
      NEWS: 0,
      RECREATION: 1,
      REFERENCE: 2,
      SCIENCE: 3,
      SHOPPING: 0,
      SOCIETY: 1,
      SPORTS: 2,
      WORLD: 3,
    };
    for (const [label, partition] of Object.entries(expected)) {
      for (const self of [0, 3]) assert.deepEqual(p.placePage(page(label), self), [partition], `${label} fetched by ${self}`);
    }
  });

  test('more partitions than categories: category i owns partition i, the rest own none', () => {
    const small: TopicModel = { categories: ['ARTS', 'NEWS', 'WORLD'], topicOf: model.topicOf };
    const p = new TruthTopicPartitioner(small, 5);
    assert.deepEqual(
      ['ARTS', 'NEWS', 'WORLD'].map((c) => p.placePage(page(c), 4)),
      [[0], [1], [2]],
    );
  });

  test('explicit assignment', () => {
    const assignment = Object.fromEntries(DEFAULT_CATEGORIES.map((c) => [c, c === 'WORLD' ? 2 : c === 'NEWS' ? 1 : 0]));
    const p = new TruthTopicPartitioner(model, 3, { assignment });
    assert.deepEqual(p.placePage(page('WORLD'), 0), [2]);
    assert.deepEqual(p.placePage(page('NEWS'), 2), [1]);
    assert.deepEqual(p.placePage(page('ARTS'), 1), [0]);
  });

  test('unknown topic (null, or a label outside the categories) stays at self without a default', () => {
    const p = new TruthTopicPartitioner(model, 4);
    for (const self of [0, 1, 3]) {
      assert.deepEqual(p.placePage(page('UNKNOWN'), self), [self]);
      assert.deepEqual(p.placePage(page('GARDENING'), self), [self]);
    }
  });

  test('unknown topic goes to the default category’s partition when one is set', () => {
    const p = new TruthTopicPartitioner(model, 4, { defaultCategory: 'WORLD' });
    for (const self of [0, 1, 2]) {
      assert.deepEqual(p.placePage(page('UNKNOWN'), self), [3]);
      assert.deepEqual(p.placePage(page('GARDENING'), self), [3]);
    }
    assert.deepEqual(p.placePage(page('ARTS'), 0), [1], 'known topics still go to their own partition');
  });

  test('rejects an assignment that misses, invents or misplaces categories, and an unknown default', () => {
    const small: TopicModel = { categories: ['ARTS', 'NEWS'], topicOf: () => null };
    const bad: Record<string, number>[] = [
      { ARTS: 0 },
      { ARTS: 0, NEWS: 1, SPORTS: 1 },
      { ARTS: 0, NEWS: 2 },
      { ARTS: 0, NEWS: 0.5 },
      { ARTS: -1, NEWS: 0 },
    ];
    for (const assignment of bad) {
      assert.throws(
        () => new TruthTopicPartitioner(small, 2, { assignment }),
        (err: unknown) => err instanceof PartitionParamError && err.param === 'assignment',
      );
    }
    assert.throws(
      () => new TruthTopicPartitioner(small, 2, { defaultCategory: 'WORLD' }),
      (err: unknown) => err instanceof PartitionParamError && err.param === 'defaultCategory',
    );
    assert.throws(() => new TruthTopicPartitioner({ categories: [], topicOf: () => null }, 2), PartitionParamError);
    assert.throws(() => new TruthTopicPartitioner({ categories: ['A', 'A'], topicOf: () => null }, 2), PartitionParamError);
    assert.throws(() => new TruthTopicPartitioner(small, 0), PartitionParamError);
  });
});
