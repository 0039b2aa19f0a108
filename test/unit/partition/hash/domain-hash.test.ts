/**
 * Domain hashing (src/partition/hash/domain-hash.ts): every host of a registrable domain in one
 * partition, the test web's `.test` hosts by their last two labels, IP hosts and single labels by
 * the host name itself.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainHashPartitioner } from '../../../../src/partition/hash/domain-hash.js';
import { partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { partitionOf, urlOf } from '../synthetic.js';

const SUBDOMAINS = ['', 'www.', 'a.', 'b.', 'shop.', 'x.y.z.'];

describe('DomainHashPartitioner', () => {
  test('spec, count, no address needed', () => {
    const p = new DomainHashPartitioner(8);
    assert.deepEqual(p.spec, { id: 'domain-hash', params: {} });
    assert.equal(p.needsIp, false);
  });

  test('keeps a.example.co.uk, b.example.co.uk and every other host of the domain together', () => {
    for (const n of [2, 5, 16]) {
      const p = new DomainHashPartitioner(n);
      for (let d = 0; d < 50; d++) {
        const expected = partitionOfKey(`example${d}.co.uk`, n);
        for (const sub of SUBDOMAINS)
          assert.equal(partitionOf(p, urlOf(`http://${sub}example${d}.co.uk/p`)), expected, `${sub}example${d}.co.uk, n=${n}`);
      }
    }
  });

  test('keeps the hosts of one test-web domain together (www.something.test with something.test)', () => {
    const p = new DomainHashPartitioner(16);
    for (let d = 0; d < 50; d++) {
      const expected = partitionOfKey(`site${d}.test`, 16);
      for (const sub of SUBDOMAINS) assert.equal(partitionOf(p, urlOf(`http://${sub}site${d}.test/`)), expected);
    }
  });

  test('splits what host hashing splits: the same hosts under host-hash do not all go together', () => {
    const host = new HostHashPartitioner(16);
    const used = new Set(SUBDOMAINS.map((sub) => partitionOf(host, urlOf(`http://${sub}example0.co.uk/`))));
    assert.ok(used.size > 1);
  });

  test('IP-address hosts, localhost and single labels are hashed as the host name itself', () => {
    const p = new DomainHashPartitioner(16);
    for (const url of ['http://10.0.0.1/', 'http://10.0.0.2/', 'http://[::1]/', 'http://localhost/', 'http://intranet/']) {
      const u = urlOf(url);
      assert.equal(partitionOf(p, u), partitionOfKey(u.hostname, 16), url);
    }
  });
});
