import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesFingerprintInto, urlFingerprint, urlFingerprintHex, urlFingerprintInto } from '../../../src/url/fingerprint.js';

/**
 * The hash written plainly from the formula in fingerprint.ts's header (bytes from TextEncoder, one
 * word at a time), so that the documented formula and the fast code cannot drift apart.
 */
function formulaHex(s: string): string {
  const bytes = new TextEncoder().encode(s);
  const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));
  const fmix = (h: number): number => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return h ^ (h >>> 16);
  };
  let a = 0x9747b28c | 0;
  let b = 0x2f6b1d35 | 0;
  for (let i = 0; i < bytes.length; i += 4) {
    let w = 0;
    for (let j = 0; j < 4; j++) w |= (bytes[i + j] ?? 0) << (8 * j);
    a ^= Math.imul(rotl(Math.imul(w, 0xcc9e2d51), 15), 0x1b873593);
    a = (rotl(a, 19) + b) | 0;
    a = (Math.imul(a, 5) + 0x561ccd1b) | 0;
    b ^= Math.imul(rotl(Math.imul(w, 0x85ebca6b), 17), 0xc2b2ae35);
    b = (rotl(b, 13) + a) | 0;
    b = (Math.imul(b, 5) + 0x0bcaa747) | 0;
  }
  a ^= bytes.length;
  b ^= bytes.length;
  a = (a + b) | 0;
  b = (b + a) | 0;
  a = fmix(a);
  b = fmix(b);
  a = (a + b) | 0;
  b = (b + a) | 0;
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

const SAMPLES = [
  '',
  'a',
  'ab',
  'abc',
  'abcd',
  'abcde',
  'http://example.com/',
  'http://a/b/c/d;p?q',
  'ü',
  'http://example.com/ü?日本',
  '\ud800x',
];

test('fingerprints are fixed values: the same on every run and machine', () => {
  // Pinned once: changing the hash invalidates every stored seen set and crawl directory.
  assert.equal(urlFingerprintHex(''), '3202af11db86a600');
  assert.equal(urlFingerprintHex('a'), 'a589317643dcdbea');
  assert.equal(urlFingerprintHex('http://example.com/'), '4a4d511668e04736');
  assert.equal(urlFingerprintHex('http://xn--bcher-kva.example/a?b=1'), 'dd8ea4087d4cfc69');
  assert.equal(urlFingerprintHex('http://a/b/c/d;p?q'), 'afea70c6f2f0efac');
  assert.equal(urlFingerprintHex('ü'), 'cfd73c1c76cb6211');
});

test('the code computes the documented formula, for every tail length and for non-ASCII text', () => {
  for (const s of SAMPLES) assert.equal(urlFingerprintHex(s), formulaHex(s), JSON.stringify(s));
  for (let n = 0; n < 40; n++) {
    const s = 'http://h.test/' + 'xyz'.repeat(n).slice(0, n);
    assert.equal(urlFingerprintHex(s), formulaHex(s), s);
  }
});

test('string and byte forms agree (UTF-8, lone surrogates as U+FFFD)', () => {
  const fromString = new Uint32Array(2);
  const fromBytes = new Uint32Array(2);
  for (const s of SAMPLES) {
    urlFingerprintInto(s, fromString);
    bytesFingerprintInto(new TextEncoder().encode(s), fromBytes);
    assert.deepEqual(fromString, fromBytes, JSON.stringify(s));
  }
});

test('bigint, hex and word forms are one value', () => {
  const words = new Uint32Array(6);
  let sawLeadingZero = false;
  for (let i = 0; i < 2000; i++) {
    const url = `http://host-${i % 7}.test/page-${i}.html`;
    const hex = urlFingerprintHex(url);
    assert.match(hex, /^[0-9a-f]{16}$/);
    const fp = urlFingerprint(url);
    assert.ok(fp >= 0n && fp < 1n << 64n);
    assert.equal(fp, BigInt('0x' + hex));
    urlFingerprintInto(url, words, 2);
    assert.equal(BigInt(words[2] as number) * 2n ** 32n + BigInt(words[3] as number), fp);
    if (hex.startsWith('0')) sawLeadingZero = true;
  }
  assert.equal(words[0], 0, 'words outside [index, index + 2) untouched');
  assert.equal(words[4], 0);
  assert.ok(sawLeadingZero, 'hex keeps leading zeros');
});

test('200k distinct URLs: no collision, balanced bits, both halves well spread', () => {
  const n = 200_000;
  const words = new Uint32Array(2);
  const seen = new Set<string>();
  const his = new Set<number>();
  const los = new Set<number>();
  const ones = new Float64Array(64);
  for (let i = 0; i < n; i++) {
    // Near-identical URLs, as a crawl sees them: one host, paths that differ by a digit or two.
    const url = `http://www.site-${i % 97}.example/dir-${i % 13}/item-${i}.html${i % 3 === 0 ? `?page=${i % 50}` : ''}`;
    urlFingerprintInto(url, words);
    const hi = words[0] as number;
    const lo = words[1] as number;
    seen.add(hi.toString(16) + ':' + lo.toString(16));
    his.add(hi);
    los.add(lo);
    for (let bit = 0; bit < 32; bit++) {
      ones[bit] = (ones[bit] as number) + ((hi >>> bit) & 1);
      ones[32 + bit] = (ones[32 + bit] as number) + ((lo >>> bit) & 1);
    }
  }
  assert.equal(seen.size, n, 'no 64-bit collision');
  // 32-bit halves alone expect about n²/2³³ ≈ 4.7 colliding pairs; far more would mean weak lanes.
  assert.ok(n - his.size < 25 && n - los.size < 25, `${n - his.size} and ${n - los.size} 32-bit collisions`);
  for (let bit = 0; bit < 64; bit++) {
    const share = (ones[bit] as number) / n;
    assert.ok(Math.abs(share - 0.5) < 0.01, `bit ${bit} set in ${share} of fingerprints`);
  }
});

test('avalanche: changing one character flips about half of the 64 bits', () => {
  let total = 0;
  const count = 4000;
  for (let i = 0; i < count; i++) {
    const url = `http://example-${i % 31}.test/a/b-${i}/page.html?x=${i * 7}`;
    const at = (i * 2654435761) % url.length;
    // Another printable character (the shift of 33 to 37 places, modulo 95, never comes back to it).
    const changed = url.slice(0, at) + String.fromCharCode(((url.charCodeAt(at) + 1 + (i % 5)) % 95) + 32) + url.slice(at + 1);
    let diff = urlFingerprint(url) ^ urlFingerprint(changed);
    while (diff > 0n) {
      total += Number(diff & 1n);
      diff >>= 1n;
    }
  }
  const mean = total / count;
  assert.ok(mean > 31 && mean < 33, `mean ${mean} bits flipped`);
});
