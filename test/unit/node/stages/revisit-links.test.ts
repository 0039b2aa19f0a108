/**
 * The link set a re-crawl keeps per page (src/node/stages/revisit-links.ts): the distinct link
 * targets' fingerprints, sorted, so that the same links in any order and with repeats give the same
 * set, and a revisit can tell which of its links are new.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { linkSetOf, newLinksOf, onlyNewLinks } from '../../../../src/node/stages/revisit-links.js';
import { urlFingerprintInto } from '../../../../src/url/fingerprint.js';

function fingerprints(urls: readonly string[]): Uint32Array {
  const out = new Uint32Array(2 * urls.length);
  urls.forEach((u, i) => urlFingerprintInto(u, out, 2 * i));
  return out;
}

describe('revisit link sets', () => {
  test('the same links in another order, or repeated, make the same set; 8 bytes a distinct link', () => {
    const a = ['http://a.test/1', 'http://b.test/2', 'http://a.test/3'];
    const b = ['http://a.test/3', 'http://a.test/1', 'http://b.test/2', 'http://a.test/1'];
    const set = linkSetOf(fingerprints(a), a.length);
    assert.equal(linkSetOf(fingerprints(b), b.length), set);
    assert.equal(Buffer.from(set, 'base64').length, 24);
    assert.notEqual(linkSetOf(fingerprints(a), 2), set, 'a link fewer is another set');
    assert.equal(linkSetOf(new Uint32Array(0), 0), '', 'a page without links');
  });

  test('a revisit tells its new links from those of the last visit, repeats and order aside', () => {
    const before = ['http://a.test/1', 'http://a.test/2'];
    const previous = linkSetOf(fingerprints(before), before.length);
    const now = ['http://a.test/2', 'http://a.test/9', 'http://a.test/1', 'http://a.test/9', 'http://c.test/'];
    assert.deepEqual([...newLinksOf(previous, fingerprints(now), now.length)], [0, 1, 0, 1, 1]);
    assert.deepEqual([...newLinksOf('', fingerprints(now), now.length)], [1, 1, 1, 1, 1], 'none known: all new');
    assert.deepEqual([...newLinksOf(previous, fingerprints(before), before.length)], [0, 0], 'the same links: none new');
    const hostnames = now.map((u) => new URL(u).hostname);
    const fresh = onlyNewLinks(previous, now, hostnames, fingerprints(now));
    assert.deepEqual(fresh.links, ['http://a.test/9', 'http://a.test/9', 'http://c.test/']);
    assert.deepEqual(fresh.hostnames, ['a.test', 'a.test', 'c.test']);
    assert.deepEqual([...fresh.fingerprints], [...fingerprints(fresh.links)], 'the fingerprints stay parallel');
  });
});
