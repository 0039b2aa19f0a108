/** sha1Text: the `sha1:` + base32 form of WARC digests (values checked against Python's base64.b32encode). */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sha1Text } from '../../../src/core/digest-text.js';

const sha1 = (data: string | Buffer): Buffer => createHash('sha1').update(data).digest();

test('known digests', () => {
  assert.equal(sha1Text(sha1('abc')), 'sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5');
  assert.equal(sha1Text(sha1('')), 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
});

test('each call gives its own string, even though the text is assembled in one shared buffer', () => {
  const inputs = Array.from({ length: 200 }, () => randomBytes(40));
  const texts = inputs.map((b) => sha1Text(sha1(b)));
  for (let i = 0; i < inputs.length; i++) {
    // An independent base32: 5 bits at a time from a bit string.
    const bits = [...sha1(inputs[i] as Buffer)].map((x) => x.toString(2).padStart(8, '0')).join('');
    let expected = 'sha1:';
    for (let j = 0; j < 160; j += 5) expected += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(j, j + 5), 2)];
    assert.equal(texts[i], expected);
  }
  assert.equal(new Set(texts).size, inputs.length);
});

test('anything but 20 bytes is refused', () => {
  assert.throws(() => sha1Text(new Uint8Array(19)), RangeError);
  assert.throws(() => sha1Text(new Uint8Array(32)), RangeError);
});
