/**
 * Load balance (SPEC §5): per-node pages and bytes and their max/mean, on loads chosen by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadBalance, loadSpread } from '../../../src/eval/load-balance.js';

function crawl(node: string, sizes: number[]) {
  return { node, downloads: sizes.map((bytes, i) => ({ url: `http://${node}.test/${i}`, host: `${node}.test`, bytes })) };
}

describe('loadBalance', () => {
  it('reports every node and the max/mean of pages and of bytes', () => {
    // pages: a 3, b 1, c 0, d 4 → total 8, mean 2, max 4, min 0, max/mean 2
    // bytes: a 100+200+300 = 600, b 400, c 0, d 4·150 = 600 → total 1600, mean 400, max 600, min 0, max/mean 1.5
    const got = loadBalance([crawl('a', [100, 200, 300]), crawl('b', [400]), crawl('c', []), crawl('d', [150, 150, 150, 150])]);
    assert.deepEqual(got, {
      nodes: [
        { node: 'a', pages: 3, bytes: 600 },
        { node: 'b', pages: 1, bytes: 400 },
        { node: 'c', pages: 0, bytes: 0 },
        { node: 'd', pages: 4, bytes: 600 },
      ],
      pages: { total: 8, mean: 2, max: 4, min: 0, maxOverMean: 2 },
      bytes: { total: 1600, mean: 400, max: 600, min: 0, maxOverMean: 1.5 },
    });
  });

  it('is 1 for a perfect split', () => {
    // Two nodes with 2 pages of 5 bytes each: max = mean.
    const got = loadBalance([crawl('a', [5, 5]), crawl('b', [5, 5])]);
    assert.equal(got.pages.maxOverMean, 1);
    assert.equal(got.bytes.maxOverMean, 1);
  });

  it('is n when one node did everything', () => {
    // 3 nodes, only b downloaded (2 pages, 10 + 20 = 30 bytes): bytes mean 10, max 30, max/mean = 3 = n.
    const got = loadBalance([crawl('a', []), crawl('b', [10, 20]), crawl('c', [])]);
    assert.deepEqual(got.bytes, { total: 30, mean: 10, max: 30, min: 0, maxOverMean: 3 });
  });

  it('counts a page downloaded twice twice, with one node', () => {
    // One node, the same page twice (8 bytes each): 2 pages, 16 bytes, balance 1.
    const twice = {
      node: 'a',
      downloads: [
        { url: 'http://a.test/', host: 'a.test', bytes: 8 },
        { url: 'http://a.test/', host: 'a.test', bytes: 8 },
      ],
    };
    assert.deepEqual(loadBalance([twice]), {
      nodes: [{ node: 'a', pages: 2, bytes: 16 }],
      pages: { total: 2, mean: 2, max: 2, min: 2, maxOverMean: 1 },
      bytes: { total: 16, mean: 16, max: 16, min: 16, maxOverMean: 1 },
    });
  });

  it('gives null imbalance when nothing was downloaded or there are no nodes', () => {
    const idle = loadBalance([crawl('a', []), crawl('b', [])]);
    assert.deepEqual(idle.pages, { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null });
    assert.deepEqual(loadBalance([]), {
      nodes: [],
      pages: { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null },
      bytes: { total: 0, mean: 0, max: 0, min: 0, maxOverMean: null },
    });
  });
});

describe('loadSpread', () => {
  it('computes total, mean, max, min and max/mean', () => {
    // 1 + 2 + 3 + 6 = 12, mean 3, max 6 → 2.
    assert.deepEqual(loadSpread([1, 2, 3, 6]), { total: 12, mean: 3, max: 6, min: 1, maxOverMean: 2 });
  });
});
