import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIp, parseIp, parseRecordedIp } from '../../../src/geo/ip-address.js';

describe('parseIp', () => {
  it('reads dotted quads as 32-bit values', () => {
    assert.deepEqual(parseIp('0.0.0.0'), { version: 4, value: 0n });
    assert.deepEqual(parseIp('127.0.1.1'), { version: 4, value: 0x7f000101n });
    assert.deepEqual(parseIp('255.255.255.255'), { version: 4, value: 0xffffffffn });
  });

  it('reads IPv6 in full, compressed and IPv4-tail forms', () => {
    assert.deepEqual(parseIp('2001:db8:0:0:0:0:0:1'), { version: 6, value: (0x20010db8n << 96n) | 1n });
    assert.deepEqual(parseIp('2001:DB8::1'), { version: 6, value: (0x20010db8n << 96n) | 1n });
    assert.deepEqual(parseIp('::'), { version: 6, value: 0n });
    assert.deepEqual(parseIp('::1'), { version: 6, value: 1n });
    assert.deepEqual(parseIp('1::'), { version: 6, value: 1n << 112n });
    assert.deepEqual(parseIp('1:2:3:4:5:6:7::'), { version: 6, value: 0x0001000200030004000500060007_0000n });
    assert.deepEqual(parseIp('64:ff9b::1.2.3.4'), { version: 6, value: (0x64ff9bn << 96n) | 0x01020304n });
    assert.deepEqual(parseIp('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), { version: 6, value: (1n << 128n) - 1n });
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address, an IPv4-compatible one as IPv6', () => {
    assert.deepEqual(parseIp('::ffff:127.0.1.1'), { version: 4, value: 0x7f000101n });
    assert.deepEqual(parseIp('::FFFF:7f00:101'), { version: 4, value: 0x7f000101n });
    assert.deepEqual(parseIp('::127.0.1.1'), { version: 6, value: 0x7f000101n });
  });

  it('returns null for anything else', () => {
    for (const bad of [
      '',
      'localhost',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.-4',
      ' 1.2.3.4',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7:8::',
      '1::2::3',
      ':::',
      '12345::',
      'g::1',
      '::1.2.3',
      '1.2.3.4::',
      '[::1]',
      'fe80::1%eth0',
    ]) {
      assert.equal(parseIp(bad), null, bad);
    }
  });
});

describe('parseRecordedIp', () => {
  it('drops spaces, URL brackets and an IPv6 zone before parsing', () => {
    assert.deepEqual(parseRecordedIp(' 127.0.0.1 '), { version: 4, value: 0x7f000001n });
    assert.deepEqual(parseRecordedIp('[::1]'), { version: 6, value: 1n });
    assert.deepEqual(parseRecordedIp('fe80::1%eth0'), { version: 6, value: (0xfe80n << 112n) | 1n });
    assert.equal(parseRecordedIp('1.2.3.4%eth0'), null);
    assert.equal(parseRecordedIp('[1.2.3.4'), null);
  });
});

describe('formatIp', () => {
  it('writes what parseIp reads back', () => {
    for (const text of ['0.0.0.0', '127.0.1.1', '255.255.255.255', '2001:db8::1', '::', '::127.0.0.1', 'ffff::ffff']) {
      const ip = parseIp(text);
      assert.ok(ip !== null);
      assert.deepEqual(parseIp(formatIp(ip)), ip, text);
    }
    assert.equal(formatIp({ version: 4, value: 0x7f000101n }), '127.0.1.1');
    assert.equal(formatIp({ version: 6, value: 1n }), '0:0:0:0:0:0:0:1');
  });
});
