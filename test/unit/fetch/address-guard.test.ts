import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAddress, classifyAddress } from '../../../src/fetch/address-guard.js';

describe('classifyAddress', () => {
  const cases: [string, string][] = [
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.0.1.77', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a00:1', 'private'],
    ['not an ip', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['', 'invalid'],
  ];
  for (const [ip, kind] of cases) it(`${ip || '(empty)'} is ${kind}`, () => assert.equal(classifyAddress(ip), kind));
});

describe('checkAddress', () => {
  const none = { allowLoopback: false, allowPrivate: false };
  it('allows public addresses only, by default', () => {
    assert.deepEqual(checkAddress('8.8.8.8', none), { isAllowed: true });
    assert.deepEqual(checkAddress('127.0.0.1', none), { isAllowed: false, reason: 'loopback' });
    assert.deepEqual(checkAddress('192.168.0.1', none), { isAllowed: false, reason: 'private' });
    assert.deepEqual(checkAddress('::ffff:127.0.0.1', none), { isAllowed: false, reason: 'loopback' });
  });
  it('opens loopback and private networks separately', () => {
    assert.equal(checkAddress('127.0.1.5', { allowLoopback: true, allowPrivate: false }).isAllowed, true);
    assert.equal(checkAddress('10.0.0.1', { allowLoopback: true, allowPrivate: false }).isAllowed, false);
    assert.equal(checkAddress('10.0.0.1', { allowLoopback: false, allowPrivate: true }).isAllowed, true);
    assert.equal(checkAddress('::1', { allowLoopback: false, allowPrivate: true }).isAllowed, false);
  });
  it('never allows link-local (cloud metadata), multicast, unspecified or reserved addresses', () => {
    const all = { allowLoopback: true, allowPrivate: true };
    for (const ip of ['169.254.169.254', 'fe80::1', '224.0.0.1', '0.0.0.0', '::', '255.255.255.255', 'garbage']) {
      assert.equal(checkAddress(ip, all).isAllowed, false, ip);
    }
  });
});
