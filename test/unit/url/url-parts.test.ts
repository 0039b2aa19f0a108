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

test('hostKeyOf gives the hostKey of urlParts, whatever the URL holds', () => {
  const urls = [
    'http://site.test/',
    'http://site.test',
    'https://site.test:8443/a/b.html?x=1',
    'http://user@site.test/p',
    'http://user:pw@site.test:81',
    'http://site.test/mail@example.org',
    'http://site.test/?to=a@b',
    'http://[::1]:8080/x',
    'http://a@b@site.test/x@y',
    'http://127.0.0.1:9/',
  ];
  for (const url of urls) assert.equal(hostKeyOf(url), urlParts(url).hostKey, url);
});
