/**
 * The data files an ordering policy reads (src/node/order-models.ts): the reference idf table of
 * `similarity` with `idfSource: reference`, checked line by line, and the crawl configuration that
 * refuses that policy without a table.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { orderModelsOf, readIdfTable } from '../../../src/node/order-models.js';
import { orderingPolicyFrom } from '../../../src/order/registry.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-order-models-');

describe('reference idf tables', () => {
  it('reads term<TAB>idf lines, lowercases terms, skips comments and blank lines', () => {
    const path = join(root, 'idf.tsv');
    writeFileSync(path, '# term\tidf\nComputer\t2.5\n\nsoftware\t1\r\n');
    assert.deepEqual([...readIdfTable(path)], [['computer', 2.5], ['software', 1]]);
  });

  it('names every bad line with its number, and an unreadable file, at orderTables.idfFile', () => {
    const path = join(root, 'bad.tsv');
    writeFileSync(path, 'ok\t1\nno-tab\nneg\t-1\nthree\t1\t2\n');
    assert.throws(() => readIdfTable(path), (err: unknown) => err instanceof ConfigError && err.issues.length === 3
      && err.issues.every((i) => i.path === 'orderTables.idfFile') && /bad\.tsv:2:/.test(err.message) && /bad\.tsv:4:/.test(err.message));
    assert.throws(() => readIdfTable(join(root, 'missing.tsv')), (err: unknown) => err instanceof ConfigError && err.code === 'CONFIG_FILE_UNREADABLE');
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
