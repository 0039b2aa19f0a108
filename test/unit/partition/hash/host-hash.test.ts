/**
 * Host hashing (src/partition/hash/host-hash.ts): every URL of a host in one partition (ports,
 * paths, queries, schemes do not matter), hosts spread over partitions, and links stay local at
 * least as often as they are same-host.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { hostNames, localLinkShare, partitionOf, randomGraph, urlOf } from '../synthetic.js';

describe('HostHashPartitioner', () => {
  test('spec, count, no address needed', () => {
    const p = new HostHashPartitioner(8);
    assert.deepEqual(p.spec, { id: 'host-hash', params: {} });
    assert.equal(p.partitionCount, 8);
    assert.equal(p.needsIp, false);
  });

  test('keeps every URL of one host together, for every host', () => {
    const p = new HostHashPartitioner(16);
    for (const host of hostNames(100)) {
      const expected = partitionOfKey(host, 16);
      const urls = [`http://${host}/`, `https://${host}/a/b?c=d`, `http://${host}:8080/x`, `http://${host}/page/${host.length}`];
      for (const url of urls) assert.equal(partitionOf(p, urlOf(url, '10.1.2.3')), expected, url);
    }
  });

  test('different hosts spread over every partition', () => {
    const p = new HostHashPartitioner(8);
    const used = new Set(hostNames(200).map((h) => partitionOf(p, urlOf(`http://${h}/`))));
    assert.equal(used.size, 8);
  });

  test('hosts of one domain are hashed apart (it is host-, not domain-hashing)', () => {
    const p = new HostHashPartitioner(8);
    const used = new Set(
      ['www', 'shop', 'blog', 'news', 'mail', 'docs', 'api', 'cdn'].map((s) => partitionOf(p, urlOf(`http://${s}.example.co.uk/`))),
    );
    assert.ok(used.size > 1);
  });

  test('p_l on a graph where 80% of links are same-host is at least 0.8', () => {
    const links = randomGraph(50_000, 2_000, 25, 0.8, 3);
    const pl = localLinkShare(new HostHashPartitioner(4), links);
    // 0.8 of the links stay on their host, and a quarter of the rest land locally by chance: ≈ 0.85.
    assert.ok(pl >= 0.8, `p_l = ${pl}`);
    assert.ok(pl <= 0.9, `p_l = ${pl}`);
  });
});
