/**
 * Consistent hashing (src/partition/hash/consistent-hash.ts). The property that justifies it: with
 * 20,000 synthetic hosts, going from 8 to 9 partitions moves about 1/9 of the hosts, all to the new
 * partition, and going back moves only the hosts of the removed one; modulo-style hashing moves far
 * more (`h mod n` about 8/9, our multiply-shift about 1/2), and to every partition.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsistentHashPartitioner } from '../../../../src/partition/hash/consistent-hash.js';
import { hash32, HashKey, HASH_RANGE, partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { PartitionParamError } from '../../../../src/partition/partition-params.js';
import type { Partitioner } from '../../../../src/partition/partitioner.js';
import { hostNames, partitionOf, urlOf } from '../synthetic.js';

const HOSTS = hostNames(20_000);

/** Each host's partition under `p`. */
function placeAll(p: Partitioner): number[] {
  return HOSTS.map((h) => partitionOf(p, urlOf(`http://${h}/`)));
}

/** The hosts whose partition differs between two placements. */
function movedIndexes(before: readonly number[], after: readonly number[]): number[] {
  return before.flatMap((p, i) => (p === after[i] ? [] : [i]));
}

describe('ConsistentHashPartitioner', () => {
  test('spec carries the effective key and virtual node count', () => {
    assert.deepEqual(new ConsistentHashPartitioner(4).spec, { id: 'consistent-hash', params: { key: 'host', virtualNodes: 128 } });
    assert.deepEqual(new ConsistentHashPartitioner(4, { key: HashKey.domain, virtualNodes: 16 }).spec.params, {
      key: 'domain',
      virtualNodes: 16,
    });
  });

  test('needs the address only when the key is ip', () => {
    assert.equal(new ConsistentHashPartitioner(4).needsIp, false);
    assert.equal(new ConsistentHashPartitioner(4, { key: HashKey.ip }).needsIp, true);
  });

  test('join, 8 -> 9: about 1/9 of the hosts move, and only to the new partition', () => {
    const before = placeAll(new ConsistentHashPartitioner(8));
    const after = placeAll(new ConsistentHashPartitioner(9));
    const moved = movedIndexes(before, after);
    const share = moved.length / HOSTS.length;
    assert.ok(Math.abs(share - 1 / 9) <= 0.03, `moved ${share}`);
    assert.ok(
      moved.every((i) => after[i] === 8),
      'a host moved to an old partition',
    );
  });

  test('leave, 9 -> 8: exactly the hosts of the removed partition move', () => {
    const before = placeAll(new ConsistentHashPartitioner(9));
    const after = placeAll(new ConsistentHashPartitioner(8));
    const moved = movedIndexes(before, after);
    const ofRemoved = before.flatMap((p, i) => (p === 8 ? [i] : []));
    assert.ok(ofRemoved.length > 0);
    assert.deepEqual(moved, ofRemoved);
  });

  test('contrast: host-hash (multiply-shift) moves about 1/2 of the hosts, h mod n about 8/9, to every partition', () => {
    const before = placeAll(new HostHashPartitioner(8));
    const after = placeAll(new HostHashPartitioner(9));
    const moved = movedIndexes(before, after);
    // ⌊8x⌋ = ⌊9x⌋ on Σ_k (8 − k)/72 = 1/2 of [0, 1).
    assert.ok(Math.abs(moved.length / HOSTS.length - 0.5) <= 0.03, `host-hash moved ${moved.length / HOSTS.length}`);
    assert.ok(new Set(moved.map((i) => after[i])).size > 1, 'host-hash moved hosts to one partition only');
    const mod = (n: number): number[] => HOSTS.map((h) => hash32(h) % n);
    const modMoved = movedIndexes(mod(8), mod(9)).length / HOSTS.length;
    assert.ok(Math.abs(modMoved - 8 / 9) <= 0.03, `h mod n moved ${modMoved}`);
  });

  test('the ring wraps: a key past the last point goes to the owner of the first point', () => {
    const p = new ConsistentHashPartitioner(5, { virtualNodes: 3 });
    assert.equal(p.ownerOf(HASH_RANGE - 1), p.ownerOf(0));
  });

  test('a key goes to the owner of the first point at or after its hash (one point each)', () => {
    // With one point per partition at h(`${p}#0`), sorting the points tells each arc's owner.
    const n = 6;
    const points = Array.from({ length: n }, (_, p) => ({ p, at: hash32(`${p}#0`) })).sort((a, b) => a.at - b.at);
    const ring = new ConsistentHashPartitioner(n, { virtualNodes: 1 });
    for (const [k, { p, at }] of points.entries()) {
      assert.equal(ring.ownerOf(at), p);
      if (k > 0) assert.equal(ring.ownerOf((points[k - 1] as { at: number }).at + 1), p);
    }
  });

  test('key domain keeps a.example.co.uk and b.example.co.uk together', () => {
    const ring = new ConsistentHashPartitioner(16, { key: HashKey.domain });
    for (let d = 0; d < 50; d++) {
      const expected = ring.ownerOf(hash32(`example${d}.co.uk`));
      for (const sub of ['a.', 'b.', 'www.', '']) assert.equal(partitionOf(ring, urlOf(`http://${sub}example${d}.co.uk/`)), expected);
    }
  });

  test('key url spreads one host; key ip follows the address and falls back to the host', () => {
    const byUrl = new ConsistentHashPartitioner(8, { key: HashKey.url });
    assert.ok(new Set(Array.from({ length: 100 }, (_, i) => partitionOf(byUrl, urlOf(`http://one.test/${i}`)))).size > 1);
    const byIp = new ConsistentHashPartitioner(8, { key: HashKey.ip });
    const byHost = new ConsistentHashPartitioner(8);
    for (const h of HOSTS.slice(0, 100)) {
      assert.equal(partitionOf(byIp, urlOf(`http://${h}/`, '10.9.8.7')), byIp.ownerOf(hash32('10.9.8.7')));
      assert.equal(partitionOf(byIp, urlOf(`http://${h}/`, null)), partitionOf(byHost, urlOf(`http://${h}/`)));
    }
  });

  test('more virtual nodes, better balance: 1024 points keep every share within ±10% of 1/8', () => {
    const counts = new Array<number>(8).fill(0);
    for (const p of placeAll(new ConsistentHashPartitioner(8, { virtualNodes: 1024 }))) counts[p] = (counts[p] as number) + 1;
    for (const c of counts) assert.ok(Math.abs((c * 8) / HOSTS.length - 1) <= 0.1, `share ${c / HOSTS.length}`);
    const few = new Array<number>(8).fill(0);
    for (const p of placeAll(new ConsistentHashPartitioner(8, { virtualNodes: 1 }))) few[p] = (few[p] as number) + 1;
    assert.ok(
      few.some((c) => Math.abs((c * 8) / HOSTS.length - 1) > 0.25),
      'one point each should be visibly unbalanced',
    );
  });

  test('with one partition every key goes to 0', () => {
    const ring = new ConsistentHashPartitioner(1);
    assert.ok(HOSTS.slice(0, 100).every((h) => partitionOf(ring, urlOf(`http://${h}/`)) === 0));
    assert.equal(partitionOfKey('x', 1), 0);
  });

  test('rejects bad parameters', () => {
    for (const virtualNodes of [0, 1.5, 4097]) assert.throws(() => new ConsistentHashPartitioner(4, { virtualNodes }), PartitionParamError);
    assert.throws(() => new ConsistentHashPartitioner(4, { key: 'path' as HashKey }), PartitionParamError);
    assert.throws(() => new ConsistentHashPartitioner(0), PartitionParamError);
  });
});
