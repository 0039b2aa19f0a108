/**
 * The shared hashing of the hash strategies (src/partition/hash/hash-key.ts): h is fixed (pinned
 * values: a per-process seed would change them), the range reduction is ⌊h · n / 2^32⌋, and each
 * key kind reads the documented part of the URL, with its fallback.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HASH_RANGE,
  hash32,
  hashKeyOf,
  HashKey,
  partitionOfHash,
  partitionOfKey,
  registrableDomainOf,
} from '../../../../src/partition/hash/hash-key.js';
import { urlFingerprintInto } from '../../../../src/url/fingerprint.js';
import { urlOf } from '../synthetic.js';

describe('hash32', () => {
  test('is the high word of the URL fingerprint', () => {
    const words = new Uint32Array(2);
    for (const s of ['http://a.test/', 'www.something.test', '10.0.0.1']) {
      urlFingerprintInto(s, words);
      assert.equal(hash32(s), words[0]);
    }
  });

  test('is pinned: the same values in every process and on every machine', () => {
    assert.equal(hash32(''), 839036689);
    assert.equal(hash32('http://a.test/'), 3575133087);
    assert.equal(hash32('www.something.test'), 4215576851);
    assert.equal(hash32('bücher.example'), 2386081459);
  });
});

describe('partitionOfHash: ⌊h · n / 2^32⌋', () => {
  test('maps the ends of the range to the first and last partition', () => {
    for (const n of [1, 2, 7, 16, 65_536]) {
      assert.equal(partitionOfHash(0, n), 0);
      assert.equal(partitionOfHash(HASH_RANGE - 1, n), n - 1);
    }
  });

  test('cuts the range into n equal runs', () => {
    assert.equal(partitionOfHash(2 ** 30 - 1, 4), 0);
    assert.equal(partitionOfHash(2 ** 30, 4), 1);
    assert.equal(partitionOfHash(3 * 2 ** 30 - 1, 4), 2);
    assert.equal(partitionOfHash(3 * 2 ** 30, 4), 3);
  });

  test('partitionOfKey reduces hash32 of the key', () => {
    assert.equal(partitionOfKey('http://a.test/', 16), 13);
    assert.equal(partitionOfKey('www.something.test', 16), 15);
    assert.equal(partitionOfKey('anything', 1), 0);
  });
});

describe('registrableDomainOf', () => {
  const cases: readonly (readonly [string, string, string])[] = [
    ['a.b.example.co.uk', 'example.co.uk', 'public suffix list'],
    ['example.co.uk', 'example.co.uk', 'already a domain'],
    ['www.something.test', 'something.test', 'unknown TLD: last two labels'],
    ['shop.deep.something.test', 'something.test', 'unknown TLD, deeper'],
    ['something.test', 'something.test', 'test web domain itself'],
    ['www.xn--bcher-kva.test', 'xn--bcher-kva.test', 'punycode'],
    ['alice.github.io', 'alice.github.io', 'private suffix counted, as url/scope.ts does'],
    ['127.0.0.1', '127.0.0.1', 'IPv4: the host itself'],
    ['[::1]', '[::1]', 'IPv6 in brackets: the host itself'],
    ['::1', '::1', 'bare IPv6: the host itself'],
    ['localhost', 'localhost', 'localhost: the host itself'],
    ['intranet', 'intranet', 'single label: the host itself'],
    ['co.uk', 'co.uk', 'a bare public suffix: the host itself'],
    ['', '', 'empty: itself'],
  ];
  for (const [host, domain, why] of cases) {
    test(`${host || '(empty)'} -> ${domain || '(empty)'} (${why})`, () => assert.equal(registrableDomainOf(host), domain));
  }
});

describe('hashKeyOf', () => {
  const url = urlOf('http://shop.example.co.uk:8080/a?b=1', '192.0.2.1');
  test('reads the URL, the host, the domain or the address', () => {
    assert.equal(hashKeyOf(HashKey.url, url), 'http://shop.example.co.uk:8080/a?b=1');
    assert.equal(hashKeyOf(HashKey.host, url), 'shop.example.co.uk');
    assert.equal(hashKeyOf(HashKey.domain, url), 'example.co.uk');
    assert.equal(hashKeyOf(HashKey.ip, url), '192.0.2.1');
  });

  test('an unknown address falls back to the host name', () => {
    assert.equal(hashKeyOf(HashKey.ip, { ...url, ip: null }), 'shop.example.co.uk');
  });
});
