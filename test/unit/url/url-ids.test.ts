/** Dense URL ids (src/url/url-ids.ts): first-sight numbering, fingerprints back from ids, growth, collisions of the index. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { urlFingerprintInto } from '../../../src/url/fingerprint.js';
import { UrlIds } from '../../../src/url/url-ids.js';

describe('UrlIds', () => {
  test('numbers URLs 0, 1, 2, ... in order of first sight and gives the fingerprint back', () => {
    const ids = new UrlIds();
    assert.equal(ids.peek('http://a.test/'), -1);
    assert.equal(ids.idOf('http://a.test/'), 0);
    assert.equal(ids.idOf('http://b.test/'), 1);
    assert.equal(ids.idOf('http://a.test/'), 0, 'a URL seen again keeps its id');
    assert.equal(ids.peek('http://b.test/'), 1);
    assert.equal(ids.size, 2);
    const fp = new Uint32Array(2);
    urlFingerprintInto('http://b.test/', fp);
    assert.deepEqual([ids.hiOf(1), ids.loOf(1)], [fp[0], fp[1]]);
    assert.throws(() => ids.hiOf(2), RangeError);
    assert.throws(() => ids.loOf(-1), RangeError);
  });

  test('keeps every id through many doublings of its index, with fingerprints that share slots and words', () => {
    const ids = new UrlIds();
    const n = 200_000;
    // Keys that differ in one word only, the all-zero key among them, and many that collide in the low bits.
    for (let i = 0; i < n; i++) assert.equal(ids.idOfFingerprint(i % 3 === 0 ? 0 : 7, i), i);
    for (let i = n - 1; i >= 0; i -= 997) {
      assert.equal(ids.idOfFingerprint(i % 3 === 0 ? 0 : 7, i), i, 'found again after growth');
      assert.deepEqual([ids.hiOf(i), ids.loOf(i)], [i % 3 === 0 ? 0 : 7, i]);
    }
    assert.equal(ids.size, n);
    assert.equal(ids.idOfFingerprint(0xffffffff, 0xffffffff), n, 'words above 2^31 are unsigned keys');
    assert.equal(ids.idOfFingerprint(-1, -1), n, 'the same key given as signed words');
    // 8 bytes of words per URL (in whole pages) and 4 per index slot at 35–70 % load: 14–20 in all.
    assert.ok(ids.bytes / ids.size < 20, `${ids.bytes / ids.size} bytes per URL`);
  });

  test('gives the fingerprints of a batch of ids, in arrays emptied when released', () => {
    const ids = new UrlIds();
    for (let i = 0; i < 10; i++) ids.idOfFingerprint(1000 + i, 2000 + i);
    const { his, los } = ids.fingerprintsOf(new Uint32Array([7, 2, 7, 0]), 3);
    assert.deepEqual(
      [[...his], [...los]],
      [
        [1007, 1002, 1007],
        [2007, 2002, 2007],
      ],
    );
    ids.releaseFingerprints();
    assert.deepEqual([his.length, los.length], [0, 0]);
    assert.throws(() => ids.fingerprintsOf([3, 10], 2), /no URL has id 10/);
    const again = ids.fingerprintsOf([9], 1);
    assert.deepEqual([again.his[0], again.los[0]], [1009, 2009]);
  });
});
