/**
 * 64-bit fingerprints of normalized URLs (SPEC §2.2 and §2.4: the URL-seen set stores these, not
 * the URLs).
 *
 * The hash: two 32-bit lanes in the style of MurmurHash3, crossed at every step, over the UTF-8
 * bytes read as little-endian 32-bit words (the last 1–3 bytes zero-padded):
 *
 *   for each word w:  a ^= rotl(w·c1, 15)·c2;  a = rotl(a, 19) + b;  a = a·5 + 0x561ccd1b
 *                     b ^= rotl(w·c3, 17)·c4;  b = rotl(b, 13) + a;  b = b·5 + 0x0bcaa747
 *   a ^= len;  b ^= len;  a += b;  b += a;  a = fmix32(a);  b = fmix32(b);  a += b;  b += a
 *   fingerprint = a · 2^32 + b
 *
 * with Murmur3's multipliers and finalizer (fmix32). Why this shape: JavaScript multiplies 32-bit
 * integers natively (`Math.imul`) but has no 64-bit integer multiply outside BigInt, which is tens
 * of times slower; so the 64 bits come from two 32-bit lanes. Each word enters both lanes through
 * different multipliers and rotations, and each lane adds the other after every word (as
 * MurmurHash3_x86_128 does with its four lanes), so a collision needs both lanes to collide on
 * the same input pair rather than two independent 32-bit hashes agreeing by chance. Not
 * cryptographic: a site could craft colliding URLs on purpose, at worst hiding its own pages.
 *
 * Normalized URLs are ASCII (the normalizer percent-encodes everything else), so the hot path
 * reads char codes directly; any other string is hashed over its UTF-8 encoding, with the same result
 * as {@link bytesFingerprintInto} on those bytes. Fixed seeds: fingerprints are the same on every run
 * and machine, so they can be stored and exchanged between nodes.
 */
import { fmix32 } from '../core/hash.js';

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const C3 = 0x85ebca6b;
const C4 = 0xc2b2ae35;
const SEED_A = 0x9747b28c;
const SEED_B = 0x2f6b1d35;

const encoder = new TextEncoder();

/**
 * Writes the fingerprint of `url` as two unsigned 32-bit words, high word at `out[index]` and low
 * word at `out[index + 1]`: the allocation-free form for hot paths and typed-array sets.
 */
export function urlFingerprintInto(url: string, out: Uint32Array, index = 0): void {
  const n = url.length;
  let a = SEED_A;
  let b = SEED_B;
  // OR of every char code: a separate scan for non-ASCII would cost as much as the hash itself.
  let seen = 0;
  const whole = n & ~3;
  let i = 0;
  for (; i < whole; i += 4) {
    const c0 = url.charCodeAt(i);
    const c1 = url.charCodeAt(i + 1);
    const c2 = url.charCodeAt(i + 2);
    const c3 = url.charCodeAt(i + 3);
    seen |= c0 | c1 | c2 | c3;
    const w = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
    a = laneA(a, b, w);
    b = laneB(b, a, w);
  }
  if (i < n) {
    let w = 0;
    for (let shift = 0; i < n; i++, shift += 8) {
      const c = url.charCodeAt(i);
      seen |= c;
      w |= c << shift;
    }
    a = laneA(a, b, w);
    b = laneB(b, a, w);
  }
  // Not ASCII: the words above were not the UTF-8 bytes; hash those instead.
  if (seen > 127) bytesFingerprintInto(encoder.encode(url), out, index);
  else finish(a, b, n, out, index);
}

/** Like {@link urlFingerprintInto}, over bytes (a URL as it was read off the wire). */
export function bytesFingerprintInto(bytes: Uint8Array, out: Uint32Array, index = 0): void {
  const n = bytes.length;
  let a = SEED_A;
  let b = SEED_B;
  const whole = n & ~3;
  let i = 0;
  for (; i < whole; i += 4) {
    const w = (bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24);
    a = laneA(a, b, w);
    b = laneB(b, a, w);
  }
  if (i < n) {
    let w = 0;
    for (let shift = 0; i < n; i++, shift += 8) w |= (bytes[i] as number) << shift;
    a = laneA(a, b, w);
    b = laneB(b, a, w);
  }
  finish(a, b, n, out, index);
}

function laneA(a: number, b: number, w: number): number {
  let k = Math.imul(w, C1);
  k = Math.imul((k << 15) | (k >>> 17), C2);
  a ^= k;
  a = (((a << 19) | (a >>> 13)) + b) | 0;
  return (Math.imul(a, 5) + 0x561ccd1b) | 0;
}

function laneB(b: number, a: number, w: number): number {
  let k = Math.imul(w, C3);
  k = Math.imul((k << 17) | (k >>> 15), C4);
  b ^= k;
  b = (((b << 13) | (b >>> 19)) + a) | 0;
  return (Math.imul(b, 5) + 0x0bcaa747) | 0;
}

function finish(a: number, b: number, length: number, out: Uint32Array, index: number): void {
  // The length enters as a 32-bit value: no URL is 4 GiB long.
  a ^= length;
  b ^= length;
  a = (a + b) | 0;
  b = (b + a) | 0;
  a = fmix32(a);
  b = fmix32(b);
  a = (a + b) | 0;
  b = (b + a) | 0;
  out[index] = a >>> 0;
  out[index + 1] = b >>> 0;
}

// One scratch pair for the convenience forms below; nothing in them can re-enter.
const scratch = new Uint32Array(2);

/** The fingerprint of a normalized URL, as an unsigned 64-bit integer. */
export function urlFingerprint(url: string): bigint {
  urlFingerprintInto(url, scratch);
  return (BigInt(scratch[0] as number) << 32n) | BigInt(scratch[1] as number);
}

/** The fingerprint of a normalized URL as 16 lower-case hex digits (its form in logs and files). */
export function urlFingerprintHex(url: string): string {
  urlFingerprintInto(url, scratch);
  return (scratch[0] as number).toString(16).padStart(8, '0') + (scratch[1] as number).toString(16).padStart(8, '0');
}
