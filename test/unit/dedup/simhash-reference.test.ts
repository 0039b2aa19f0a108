/**
 * SimHash values are recorded in WARC metadata and compared across crawls, so the fast
 * implementation must give every fingerprint bit for bit as the file comment of simhash.ts defines
 * it. Checked here against a plain reference written from that comment (regex tokens, the string
 * method's lowercase, one loop per bit), on fixed texts pinned to the values the first
 * implementation gave, and on seeded random texts that reach every path: letters whose lowercase
 * needs the string method (İ, Σ, letters beyond the BMP), lone surrogates, one- and two-token texts,
 * and more than 255 shingles (the packed counters' flush).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simhash, simhashWords } from '../../../src/dedup/simhash.js';
import { Rng } from '../../../src/core/prng.js';

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const LANE_B_BASIS = 0x6a09e667;
const LANE_B_PRIME = 0x2127599b;
const K = { loFirst: 0x9e3779b1, loSecond: 0x85ebca77, hiFirst: 0xc2b2ae3d, hiSecond: 0x27d4eb2f };
const SEED = { lo: 0x3c6ef372, hi: 0xa54ff53a, unigramLo: 0x510e527f, unigramHi: 0x9b05688c };

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The SimHash of the file comment, computed the plain way. */
function referenceSimhash(text: string): bigint {
  const lanes = (text.match(/[\p{L}\p{N}]+/gu) ?? []).map((token) => {
    const lower = token.toLowerCase();
    let a = FNV_BASIS;
    let b = LANE_B_BASIS;
    for (let i = 0; i < lower.length; i++) {
      a = Math.imul(a ^ lower.charCodeAt(i), FNV_PRIME);
      b = Math.imul(b ^ lower.charCodeAt(i), LANE_B_PRIME);
    }
    return { a: fmix32(a ^ lower.length), b: fmix32(b + lower.length) };
  });
  const features: [number, number][] = [];
  if (lanes.length < 3) {
    for (const { a, b } of lanes) features.push([fmix32(a ^ SEED.unigramLo), fmix32(b ^ SEED.unigramHi)]);
  } else {
    for (let t = 2; t < lanes.length; t++) {
      const [x, y, z] = [lanes[t - 2], lanes[t - 1], lanes[t]] as [(typeof lanes)[0], (typeof lanes)[0], (typeof lanes)[0]];
      features.push([
        fmix32((Math.imul(x.a, K.loFirst) + Math.imul(y.a, K.loSecond) + z.a) ^ SEED.lo),
        fmix32((Math.imul(x.b, K.hiFirst) + Math.imul(y.b, K.hiSecond) + z.b) ^ SEED.hi),
      ]);
    }
  }
  let h = 0n;
  for (let j = 0; j < 64; j++) {
    let v = 0;
    for (const [lo, hi] of features) v += ((j < 32 ? lo >>> j : hi >>> (j - 32)) & 1) === 1 ? 1 : -1;
    if (v > 0) h |= 1n << BigInt(j);
  }
  return h;
}

/** Texts and the fingerprints the first implementation gave them (hex). */
const PINNED: readonly [string, string][] = [
  ['', '0000000000000000'],
  ['alpha', 'cbb37f98b347bc09'],
  ['alpha beta', '0b12218880060008'],
  ['The quick brown fox jumps over the lazy dog.', '37be3c2b5d8f33de'],
  ['Größere Straßen führen über die Brücke nach Köln, sagte Ängstlich.', '821652764faa746a'],
  ['ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ ΕΔΩ, η σοφία της οδού', '00400215c4524a6e'],
  ['Привет, мир! Как дела у ПРИВЕТЛИВЫХ людей?', '7f5960850cfd0344'],
  ['İstanbul İZMİR Diyarbakır ıssız ışık', '4d63231754867238'],
  ['𝐀𝐁𝐂 bold 𐐀𐐁 deseret 😀 emoji 𠀋字 cjk', '755cd0c2e1de4d15'],
  ['lone \ud800 high and \udc00 low surrogates, 42 and ①②③', '12403e6156824d40'],
];

describe('simhash against its reference', () => {
  test('fixed texts keep the fingerprints the first implementation gave them', () => {
    for (const [text, hex] of PINNED) {
      assert.equal(simhash(text).toString(16).padStart(16, '0'), hex, JSON.stringify(text));
      assert.equal(referenceSimhash(text), simhash(text), JSON.stringify(text));
    }
  });

  test('seeded random texts in many scripts, from 0 to over 255 shingles, equal the reference', () => {
    const rng = new Rng(2025, 11, 21);
    const letters = [
      'a',
      'B',
      'z',
      'Q',
      '0',
      '7',
      'é',
      'É',
      'ß',
      'ẞ',
      'İ',
      'ı',
      'Σ',
      'σ',
      'ς',
      'Ω',
      'Ω',
      'Å',
      'ǅ',
      'Ǆ',
      'ΐ',
      'Д',
      'ж',
      'Ѐ',
      'Ա',
      'ա',
      'Ⴀ',
      'Ꭰ',
      'ꭰ',
      'Ⅷ',
      '①',
      '٣',
      '字',
      '한',
      'ｱ',
      'Ａ',
      '𝐀',
      '𐐀',
      '𐐨',
      '𞤀',
    ];
    const separators = [' ', ' ', ' ', '\n', ', ', '. ', '—', '\u00a0', '\t', '😀', '\ud800', '\udc00', '-', "'", '\u0301'];
    for (let i = 0; i < 300; i++) {
      const words = i < 20 ? i % 4 : rng.int(i < 200 ? 60 : 700);
      let text = rng.chance(0.5) ? '' : (separators[rng.int(separators.length)] as string);
      for (let w = 0; w < words; w++) {
        const length = 1 + rng.int(8);
        for (let c = 0; c < length; c++) text += letters[rng.int(letters.length)] as string;
        text += separators[rng.int(separators.length)] as string;
      }
      const expected = referenceSimhash(text);
      assert.equal(simhash(text), expected, JSON.stringify(text.slice(0, 200)));
      const words2 = new Uint32Array(2);
      simhashWords(text, words2);
      assert.equal((BigInt(words2[0] as number) << 32n) | BigInt(words2[1] as number), expected);
    }
  });
});
