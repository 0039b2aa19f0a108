/**
 * Exact content fingerprints: WARC payload digests checked against a base32 written here from
 * RFC 4648 (itself checked on the RFC's test vectors) and against the digest every WARC tool writes
 * for an empty payload; text digests equal across white space, encodings and Unicode forms, and
 * different for different words.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { normalizeText, payloadDigest, textDigest } from '../../../src/dedup/content-digest.js';
import { Rng } from '../../../src/core/prng.js';

/** RFC 4648 §6 base32 the slow way: bytes → bit string → 5-bit groups, with `=` padding. */
function referenceBase32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const sha1Base32 = (bytes: Uint8Array): string => referenceBase32(createHash('sha1').update(bytes).digest());

describe('reference base32 of this test', () => {
  test('matches the RFC 4648 §10 test vectors', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY======'],
      ['fo', 'MZXQ===='],
      ['foo', 'MZXW6==='],
      ['foob', 'MZXW6YQ='],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI======'],
    ];
    for (const [input, expected] of vectors) assert.equal(referenceBase32(utf8(input)), expected, input);
  });
});

describe('payloadDigest', () => {
  test('empty payload: the digest WARC files carry for every empty record', () => {
    assert.equal(payloadDigest(new Uint8Array(0)), 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  test("'abc' (FIPS 180 vector a9993e36…d89d) in base32", () => {
    const hex = createHash('sha1').update('abc').digest('hex');
    assert.equal(hex, 'a9993e364706816aba3e25717850c26c9cd0d89d');
    assert.equal(payloadDigest(utf8('abc')), `sha1:${sha1Base32(utf8('abc'))}`);
  });

  test('is sha1: + 32 upper-case base32 characters, no padding, for bodies of every length', () => {
    const rng = new Rng(5, 1, 1);
    for (let length = 0; length < 300; length += 1 + rng.int(7)) {
      const body = new Uint8Array(length).map(() => rng.int(256));
      const digest = payloadDigest(body);
      assert.match(digest, /^sha1:[A-Z2-7]{32}$/);
      assert.equal(digest, `sha1:${sha1Base32(body)}`, `length ${length}`);
    }
  });

  test('reads only the bytes of a view, not its whole buffer', () => {
    const buffer = utf8('xxabcxx');
    assert.equal(payloadDigest(buffer.subarray(2, 5)), payloadDigest(utf8('abc')));
  });

  test('differs when one byte differs', () => {
    assert.notEqual(payloadDigest(utf8('<p>same page</p>')), payloadDigest(utf8('<p>same Page</p>')));
  });
});

describe('textDigest', () => {
  const sha256 = (s: string): string => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex');

  test('is sha256 of the UTF-8 of the normalized text', () => {
    assert.equal(textDigest('a b'), sha256('a b'));
    assert.equal(textDigest('  a \t\r\n b\n'), sha256('a b'));
    assert.equal(textDigest('café'), sha256('caf\u00e9'));
    assert.match(textDigest('x'), /^sha256:[0-9a-f]{64}$/);
    assert.equal(textDigest(''), sha256(''));
  });

  test('copies that differ only in white space are the same content', () => {
    const a = 'The quick brown fox\njumps over the lazy dog.';
    const variants = [
      '  The quick brown fox jumps over the lazy dog.  ',
      'The\tquick  brown\r\nfox\n\n\njumps over the lazy dog.',
      '\uFEFFThe quick\u00a0brown fox\u2003jumps over\u2028the lazy dog.',
    ];
    for (const v of variants) assert.equal(textDigest(v), textDigest(a), JSON.stringify(v));
  });

  test('copies served in different encodings decode to the same content', () => {
    // Letters of the Latin-1 range only: Node 20's decoder reads windows-1252 as ISO-8859-1.
    const text = 'Crème brûlée à Zürich';
    const windows1252 = Uint8Array.from([
      0x43, 0x72, 0xe8, 0x6d, 0x65, 0x20, 0x62, 0x72, 0xfb, 0x6c, 0xe9, 0x65, 0x20, 0xe0, 0x20, 0x5a, 0xfc, 0x72, 0x69, 0x63, 0x68,
    ]);
    const latin = new TextDecoder('windows-1252').decode(windows1252);
    const fromUtf8 = new TextDecoder('utf-8').decode(utf8(text));
    assert.equal(latin, text);
    assert.equal(textDigest(latin), textDigest(fromUtf8));
    // The bytes on the wire differ, so the payload digests do.
    assert.notEqual(payloadDigest(windows1252), payloadDigest(utf8(text)));
  });

  test('composed and decomposed accents are the same content (NFC)', () => {
    assert.equal(textDigest('Cre\u0300me bru\u0302le\u0301e'), textDigest('Crème brûlée'));
    assert.equal(normalizeText('e\u0301'), '\u00e9');
  });

  test('different words, case or punctuation are different content', () => {
    const base = textDigest('The quick brown fox.');
    for (const other of ['The quick brown fox!', 'the quick brown fox.', 'The quick brown cat.', 'Thequick brown fox.']) {
      assert.notEqual(textDigest(other), base, other);
    }
  });

  test('normalizeText collapses white space runs, trims, keeps everything else', () => {
    assert.equal(normalizeText('\n  Hello,\t\tWORLD!  \u00a0'), 'Hello, WORLD!');
    assert.equal(normalizeText(' \t\n'), '');
  });
});
