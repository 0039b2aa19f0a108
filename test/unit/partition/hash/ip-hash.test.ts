/**
 * IP hashing (src/partition/hash/ip-hash.ts): needs the address, hosts sharing one address go
 * together, and an unknown address falls back to the host name.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { IpHashPartitioner } from '../../../../src/partition/hash/ip-hash.js';
import { hostNames, partitionOf, urlOf } from '../synthetic.js';

describe('IpHashPartitioner', () => {
  test('spec, count, and it asks for the address', () => {
    const p = new IpHashPartitioner(8);
    assert.deepEqual(p.spec, { id: 'ip-hash', params: {} });
    assert.equal(p.needsIp, true);
  });

  test('places by the address: many hosts on one address go together', () => {
    const p = new IpHashPartitioner(16);
    for (const ip of ['127.0.1.1', '127.0.1.2', '2001:db8::1']) {
      const expected = partitionOfKey(ip, 16);
      for (const host of hostNames(100)) assert.equal(partitionOf(p, urlOf(`http://${host}/`, ip)), expected);
    }
  });

  test('the address, not the host, decides: one host on two addresses may go to two partitions', () => {
    const p = new IpHashPartitioner(16);
    const used = new Set(Array.from({ length: 50 }, (_, i) => partitionOf(p, urlOf('http://www.moving.test/', `10.0.0.${i}`))));
    assert.ok(used.size > 1);
  });

  test('ip null falls back to hashing the host name, the same as host-hash', () => {
    const p = new IpHashPartitioner(16);
    const host = new HostHashPartitioner(16);
    for (const h of hostNames(100)) {
      const u = urlOf(`http://${h}/x`, null);
      assert.equal(partitionOf(p, u), partitionOf(host, u));
    }
  });
});
