/** Exact duplicates within a crawl: first capture per content digest, bounded. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DedupIndex } from '../../../src/node/dedup-index.js';
import { urlParts } from '../../../src/node/url-parts.js';

const capture = (url: string) => ({ url, payloadDigest: `sha1:${url}`, recordId: `<urn:uuid:${url}>`, warcDate: '2024-01-01T00:00:00.000Z' });

describe('DedupIndex', () => {
  test('remembers the first capture of each digest and forgets the least recently matched beyond its size', () => {
    const index = new DedupIndex(2);
    index.remember('d1', capture('a'));
    index.remember('d2', capture('b'));
    assert.equal(index.find('d1')?.url, 'a');
    index.remember('d3', capture('c'));
    assert.equal(index.size, 2);
    assert.equal(index.find('d2'), undefined, 'd2 was the least recently matched');
    assert.equal(index.find('d1')?.url, 'a');
  });

  test('size 0 turns detection off', () => {
    const index = new DedupIndex(0);
    index.remember('d', capture('a'));
    assert.equal(index.find('d'), undefined);
  });
});

describe('urlParts', () => {
  test('cuts origin, politeness key and robots path out of a normalized URL', () => {
    assert.deepEqual(urlParts('http://user:pw@a.test:8080/x/y?q=1'), { origin: 'http://a.test:8080', hostKey: 'a.test:8080', pathAndQuery: '/x/y?q=1' });
    assert.deepEqual(urlParts('https://[::1]/'), { origin: 'https://[::1]', hostKey: '[::1]', pathAndQuery: '/' });
  });
});
