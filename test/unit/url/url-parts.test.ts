/** urlParts and hostKeyOf (src/url/url-parts.ts): the keys a node files a normalized URL under. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostKeyOf, urlParts } from '../../../src/url/url-parts.js';

test('urlParts cuts origin, politeness key and path with query; userinfo is no part of the keys', () => {
  assert.deepEqual(urlParts('https://user:pw@Site.test:8443/a/b?c=d@e'), {
    origin: 'https://Site.test:8443',
    hostKey: 'Site.test:8443',
    pathAndQuery: '/a/b?c=d@e',
  });
  assert.deepEqual(urlParts('http://[::1]:8080'), { origin: 'http://[::1]:8080', hostKey: '[::1]:8080', pathAndQuery: '/' });
});

test('hostKeyOf gives host[:port] without userinfo, whatever the URL holds, as urlParts does', () => {
  const keys: readonly (readonly [string, string])[] = [
    ['http://site.test/', 'site.test'],
    ['http://site.test', 'site.test'],
    ['https://site.test:8443/a/b.html?x=1', 'site.test:8443'],
    ['http://user@site.test/p', 'site.test'],
    ['http://user:pw@site.test:81', 'site.test:81'],
    ['http://site.test/mail@example.org', 'site.test'],
    ['http://site.test/?to=a@b', 'site.test'],
    ['http://[::1]:8080/x', '[::1]:8080'],
    ['http://a@b@site.test/x@y', 'site.test'],
    ['http://127.0.0.1:9/', '127.0.0.1:9'],
  ];
  for (const [url, key] of keys) {
    assert.equal(hostKeyOf(url), key, url);
    assert.equal(urlParts(url).hostKey, key, url);
  }
});
