/**
 * Content hashing (src/partition/hash/content-hash.ts): pages by the hash of their content digest
 * alone, URLs by url-hash or host-hash, and an exported page share of about (n − 1)/n.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ContentHashPartitioner, type ContentHashUrls } from '../../../../src/partition/hash/content-hash.js';
import { partitionOfKey } from '../../../../src/partition/hash/hash-key.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { UrlHashPartitioner } from '../../../../src/partition/hash/url-hash.js';
import { PartitionParamError } from '../../../../src/partition/partition-params.js';
import { canPlacePages } from '../../../../src/partition/partitioner.js';
import { hostNames, pageOf, partitionOf, urlOf } from '../synthetic.js';

describe('ContentHashPartitioner', () => {
  test('spec with its default, can place pages, no address needed', () => {
    const p = new ContentHashPartitioner(4);
    assert.deepEqual(p.spec, { id: 'content-hash', params: { urls: 'url-hash' } });
    assert.equal(p.needsIp, false);
    assert.ok(canPlacePages(p));
  });

  test('equal digests go together, whatever URL, host, address or self they were fetched with', () => {
    const p = new ContentHashPartitioner(16);
    for (let d = 0; d < 20; d++) {
      const digest = `sha1:DIGEST${d}`;
      const expected = [partitionOfKey(digest, 16)];
      for (const [i, host] of hostNames(30).entries()) {
        assert.deepEqual(p.placePage(pageOf(`http://${host}/copy/${i}`, digest, `10.0.0.${i}`), i % 16), expected);
      }
    }
  });

  test('places a page independently of its URL: one URL with different bodies spreads over partitions', () => {
    const p = new ContentHashPartitioner(8);
    const used = new Set(Array.from({ length: 100 }, (_, i) => p.placePage(pageOf('http://www.same.test/', `sha1:V${i}`), 0)[0]));
    assert.equal(used.size, 8);
  });

  test('placeUrl is url-hash by default and host-hash on request', () => {
    const urls: readonly ContentHashUrls[] = ['url-hash', 'host-hash'];
    for (const mode of urls) {
      const p = new ContentHashPartitioner(16, { urls: mode });
      const reference = mode === 'url-hash' ? new UrlHashPartitioner(16) : new HostHashPartitioner(16);
      assert.deepEqual(p.spec.params, { urls: mode });
      for (const [i, host] of hostNames(200).entries()) {
        const u = urlOf(`http://${host}/page/${i}`);
        assert.equal(partitionOf(p, u), partitionOf(reference, u), `${mode}: ${u.url}`);
      }
    }
  });

  test('exported share: with n = 4, about 3/4 of the pages leave the node that fetched them', () => {
    const p = new ContentHashPartitioner(4);
    let exported = 0;
    const pages = 20_000;
    for (let i = 0; i < pages; i++) {
      const url = `http://www.site${i % 500}.test/page/${i}`;
      const fetchedBy = partitionOf(p, urlOf(url));
      if (!p.placePage(pageOf(url, `sha1:BODY${i}`), fetchedBy).includes(fetchedBy)) exported++;
    }
    assert.ok(Math.abs(exported / pages - 0.75) <= 0.02, `exported share ${exported / pages}`);
  });

  test('rejects an unknown urls mode', () => {
    assert.throws(() => new ContentHashPartitioner(4, { urls: 'ip-hash' as ContentHashUrls }), PartitionParamError);
  });
});
