/**
 * The data files an ordering policy reads (src/node/order-models.ts): the reference idf table of
 * `similarity` with `idfSource: reference`, checked line by line, and the crawl configuration that
 * refuses that policy without a table; the topic model and a node's own categories for `topic`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { orderModelsOf, ownCategoriesOf, readIdfTable } from '../../../src/node/order-models.js';
import { orderingPolicyFrom } from '../../../src/order/registry.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-order-models-');

describe('reference idf tables', () => {
  it('reads term<TAB>idf lines, lowercases terms, skips comments and blank lines', () => {
    const path = join(root, 'idf.tsv');
    writeFileSync(path, '# term\tidf\nComputer\t2.5\n\nsoftware\t1\r\n');
    assert.deepEqual(
      [...readIdfTable(path)],
      [
        ['computer', 2.5],
        ['software', 1],
      ],
    );
  });

  it('names every bad line with its number, and an unreadable file, at orderTables.idfFile', () => {
    const path = join(root, 'bad.tsv');
    writeFileSync(path, 'ok\t1\nno-tab\nneg\t-1\nthree\t1\t2\n');
    assert.throws(
      () => readIdfTable(path),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.issues.length === 3 &&
        err.issues.every((i) => i.path === 'orderTables.idfFile') &&
        /bad\.tsv:2:/.test(err.message) &&
        /bad\.tsv:4:/.test(err.message),
    );
    assert.throws(
      () => readIdfTable(join(root, 'missing.tsv')),
      (err: unknown) => err instanceof ConfigError && err.code === 'CONFIG_FILE_UNREADABLE',
    );
  });

  it('a crawl ordered by similarity to a query with reference idf needs the table, and its policy uses it', () => {
    const order = { policy: 'similarity', query: 'computer science', idfSource: 'reference' } as const;
    const missing = crawlConfigSchema.safeParse({ order });
    assert.equal(missing.success, false);
    assert.ok(missing.error?.issues.some((i) => i.path.join('.') === 'orderTables.idfFile'));
    const path = join(root, 'idf2.tsv');
    writeFileSync(path, 'computer\t3\nscience\t1\n');
    const config = crawlConfigSchema.parse({ order, orderTables: { idfFile: path } });
    const policy = orderingPolicyFrom(config.order, orderModelsOf(config));
    const rare = policy.prioritize({ id: 0, url: 'http://a.test/x', depth: 1, anchorText: 'computer' });
    const common = policy.prioritize({ id: 1, url: 'http://a.test/y', depth: 1, anchorText: 'science' });
    assert.ok(rare > common, `the rarer term weighs more (${rare} vs ${common})`);
  });
});

describe('topic ordering models', () => {
  const placement = (partitions: number[], assignment: unknown = ['ARTS=0', 'COMPUTERS=1', 'SPORTS=0', 'WORLD=1']) => ({
    partitioner: { spec: { id: 'topic', params: { assignment: assignment as readonly string[], model: 'x' } } },
    partitions,
  });

  it("a node's own categories are those the partitioner's assignment gives its partitions", () => {
    assert.deepEqual(ownCategoriesOf(placement([0])), ['ARTS', 'SPORTS']);
    assert.deepEqual(ownCategoriesOf(placement([1, 0])), ['ARTS', 'COMPUTERS', 'SPORTS', 'WORLD']);
    assert.deepEqual(ownCategoriesOf(placement([2])), []);
    assert.equal(ownCategoriesOf(null), null, 'a node of its own');
    assert.equal(ownCategoriesOf({ partitioner: { spec: { id: 'host-hash', params: {} } }, partitions: [0] }), null);
  });

  it("a topic order gets the model and the node's categories the model knows; others load no model", () => {
    const config = crawlConfigSchema.parse({ order: { policy: 'topic' }, cluster: { nodes: 2, partition: { strategy: 'topic' } } });
    const models = orderModelsOf(config, placement([1]));
    assert.ok(models.topic !== undefined);
    assert.ok(models.topic.classifier.categories.includes('COMPUTERS'));
    assert.deepEqual(models.topic.categories, ['COMPUTERS'], "WORLD is a rule category, not the model's");
    assert.deepEqual(orderingPolicyFrom(config.order, models).spec.params, { categories: ['COMPUTERS'] });
    assert.equal(orderModelsOf(crawlConfigSchema.parse({})).topic, undefined);
  });

  it('outside a topic-partitioned crawl, a topic order must name its categories', () => {
    const bare = crawlConfigSchema.safeParse({ order: { policy: 'topic' } });
    assert.equal(bare.success, false);
    assert.ok(bare.error?.issues.some((i) => i.path.join('.') === 'order.categories'));
    const focused = crawlConfigSchema.parse({ order: { policy: 'topic', categories: ['SPORTS'] } });
    const policy = orderingPolicyFrom(focused.order, orderModelsOf(focused));
    const sports = policy.prioritize({ id: 0, url: 'http://a.test/x', depth: 1, anchorText: 'football league championship' });
    const other = policy.prioritize({ id: 1, url: 'http://a.test/y', depth: 1, anchorText: 'software compiler database' });
    assert.ok(sports > other, `the shipped model favours the sports link (${sports} vs ${other})`);
  });
});
