/**
 * URL hashing (src/partition/hash/url-hash.ts): one partition per URL, h of the whole normalized URL,
 * so the URLs of one host spread over every partition and a link stays local with p_l = 1/n.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { UrlHashPartitioner } from '../../../../src/partition/hash/url-hash.js';
import { PartitionParamError } from '../../../../src/partition/partition-params.js';
import { localLinkShare, partitionOf, randomGraph, urlOf } from '../synthetic.js';

describe('UrlHashPartitioner', () => {
  test('spec, count, no address needed', () => {
    const p = new UrlHashPartitioner(4);
    assert.deepEqual(p.spec, { id: 'url-hash', params: {} });
    assert.equal(p.partitionCount, 4);
    assert.equal(p.needsIp, false);
  });

  test('places a URL by the hash of the whole normalized URL, whatever self, host address or anchor', () => {
    const p = new UrlHashPartitioner(16);
    for (const url of ['http://a.test/', 'http://a.test/x?y=1', 'https://b.test:8443/']) {
      const expected = partitionOfKey(url, 16);
      assert.deepEqual(p.placeUrl(urlOf(url), 0), [expected]);
      assert.deepEqual(p.placeUrl({ ...urlOf(url, '10.0.0.1'), anchorText: 'x' }, 15), [expected]);
    }
  });

  test('the URLs of one host spread over every partition', () => {
    const p = new UrlHashPartitioner(4);
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionOf(p, urlOf(`http://one.test/page/${i}`))));
    assert.deepEqual([...used].sort(), [0, 1, 2, 3]);
  });

  test('p_l over a random graph of 50,000 links, n = 4, is within 0.02 of 1/4', () => {
    const links = randomGraph(50_000, 2_000, 25, 0, 1);
    const pl = localLinkShare(new UrlHashPartitioner(4), links);
    assert.ok(Math.abs(pl - 0.25) <= 0.02, `p_l = ${pl}`);
  });

  test('p_l stays near 1/n even when most links are same-host: url-hash ignores the host', () => {
    const links = randomGraph(20_000, 500, 25, 0.8, 2);
    const pl = localLinkShare(new UrlHashPartitioner(4), links);
    assert.ok(Math.abs(pl - 0.25) <= 0.03, `p_l = ${pl}`);
  });

  test('rejects a partition count that is not an integer in [1, 65536]', () => {
    for (const n of [0, -1, 1.5, Number.NaN, 65_537]) assert.throws(() => new UrlHashPartitioner(n), PartitionParamError);
    assert.equal(new UrlHashPartitioner(65_536).partitionCount, 65_536);
  });
});
