/**
 * SimHash over word 3-shingles: determinism and tokenization, the distances the file comment
 * predicts (3%-edited copies near 64·acos(0.91)/π ≈ 9, unrelated texts near 32) on random texts from
 * a seeded word list, and the Hamming helpers against a naive bit count.
 *
 * Bounds come from throwaway runs of the same set-up at larger sizes: 3% edits of 300–1000-word
 * texts had mean 8.5 and at most 18 over 5,000 texts (here: 200, assert mean 6..12, every one <= 20);
 * unrelated texts follow Binomial(64, ½), mean 32, sd 4 (here: 50 pairs, assert mean 26..38). The
 * texts are seeded, so a run cannot flake; only a change of the hash can move them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NEAR_DUPLICATE_MAX_DISTANCE,
  hammingDistance,
  hammingDistanceWords,
  isNearDuplicate,
  simhash,
  simhashWords,
} from '../../../src/dedup/simhash.js';
import { Rng } from '../../../src/core/prng.js';

const rng = new Rng(2024, 1, 7);
/** 4,000 random lowercase words of 3 to 10 letters (a few repeat: that is fine). */
const WORDS = Array.from({ length: 4000 }, () => {
  let w = '';
  const length = 3 + rng.int(8);
  for (let i = 0; i < length; i++) w += String.fromCharCode(97 + rng.int(26));
  return w;
});
const randomWords = (n: number): string[] => Array.from({ length: n }, () => rng.pick(WORDS));

/** A copy of `words` with `share` of the positions replaced by a different word. */
function edited(words: readonly string[], share: number): string[] {
  const out = words.slice();
  const at = new Set<number>();
  while (at.size < Math.round(words.length * share)) at.add(rng.int(words.length));
  for (const i of at) {
    let w = rng.pick(WORDS);
    while (w === words[i]) w = rng.pick(WORDS);
    out[i] = w;
  }
  return out;
}

const naivePopcount = (x: bigint): number => [...BigInt.asUintN(64, x).toString(2)].filter((c) => c === '1').length;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('simhash', () => {
  test('is deterministic, also between calls on other texts', () => {
    const a = randomWords(500).join(' ');
    const b = randomWords(50).join(' ');
    const first = simhash(a);
    simhash(b);
    simhash('');
    assert.equal(simhash(a), first);
    assert.equal(hammingDistance(simhash(a), simhash(a)), 0);
  });

  test('is an unsigned 64-bit value that uses both halves', () => {
    const hashes = Array.from({ length: 100 }, () => simhash(randomWords(200).join(' ')));
    for (const h of hashes) assert.ok(h >= 0n && h < 1n << 64n);
    // Every bit is set in some and clear in others (each lane votes on its own 32 bits).
    for (let j = 0n; j < 64n; j++) {
      const set = hashes.filter((h) => ((h >> j) & 1n) === 1n).length;
      assert.ok(set >= 25 && set <= 75, `bit ${j} set in ${set} of 100`);
    }
  });

  test('reads words only: case, punctuation and white space do not count', () => {
    assert.equal(simhash('Hello, World! It is a fine-day, 2024.'), simhash('hello world it is a fine day 2024'));
    assert.equal(simhash('\n\t<p>Hello</p>  world ... again'), simhash('p hello p world again'));
    // Non-ASCII letters, lowercased as String.prototype.toLowerCase does (final sigma included).
    assert.equal(simhash('STRASSE GRÖSSE ÜBER Straße'), simhash('strasse grösse über straße'));
    assert.equal(simhash('ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ ΕΔΩ'), simhash('οδος και σοφια εδω'));
    assert.equal(simhash('ПРИВЕТ, мир; как дела?'), simhash('привет мир как дела'));
    // Emoji and symbols separate words; letters outside the BMP are letters.
    assert.equal(simhash('one😀two three'), simhash('one two three'));
    assert.notEqual(simhash('one 𝒜𝒷 two three'), simhash('one two three'));
    assert.notEqual(simhash('one𝒜two three'), simhash('one two three'));
  });

  test('word order counts', () => {
    const words = randomWords(400);
    assert.ok(hammingDistance(simhash(words.join(' ')), simhash(words.slice().reverse().join(' '))) > NEAR_DUPLICATE_MAX_DISTANCE);
  });

  test('texts without words hash to 0; one or two words still hash', () => {
    assert.equal(simhash(''), 0n);
    assert.equal(simhash(' \n—!? '), 0n);
    assert.notEqual(simhash('alpha'), 0n);
    assert.equal(simhash('Alpha!'), simhash('alpha'));
    assert.notEqual(simhash('alpha'), simhash('beta'));
    assert.notEqual(simhash('alpha beta'), simhash('alpha'));
    assert.notEqual(simhash('alpha beta gamma'), simhash('alpha beta'));
  });

  test('copies with 3% of their words replaced stay close', (t) => {
    const distances: number[] = [];
    for (let t = 0; t < 200; t++) {
      const words = randomWords(300 + rng.int(701));
      distances.push(hammingDistance(simhash(words.join(' ')), simhash(edited(words, 0.03).join(' '))));
    }
    const m = mean(distances);
    assert.ok(m >= 6 && m <= 12, `mean distance ${m}`);
    assert.ok(Math.max(...distances) <= 20, `largest distance ${Math.max(...distances)}`);
    const caught = distances.filter((d) => d <= NEAR_DUPLICATE_MAX_DISTANCE).length;
    t.diagnostic(`3% edits: mean ${m.toFixed(2)}, max ${Math.max(...distances)}, ${caught}/200 within ${NEAR_DUPLICATE_MAX_DISTANCE}`);
    assert.ok(caught >= 194, `${caught} of 200 within the default threshold`);
  });

  test('unrelated texts are about 32 bits apart and never near-duplicates', (t) => {
    const distances: number[] = [];
    for (let t = 0; t < 50; t++) {
      const a = simhash(randomWords(300 + rng.int(701)).join(' '));
      const b = simhash(randomWords(300 + rng.int(701)).join(' '));
      distances.push(hammingDistance(a, b));
      assert.equal(isNearDuplicate(a, b), false, `distance ${hammingDistance(a, b)}`);
    }
    const m = mean(distances);
    t.diagnostic(`unrelated: mean ${m.toFixed(2)}, min ${Math.min(...distances)}, max ${Math.max(...distances)}`);
    assert.ok(m >= 26 && m <= 38, `mean distance ${m}`);
  });
});

describe('simhashWords', () => {
  test('writes the high then the low word of simhash at the offset, and nothing else', () => {
    const text = randomWords(300).join(' ');
    const out = new Uint32Array(6).fill(0xdeadbeef);
    simhashWords(text, out, 3);
    const h = simhash(text);
    assert.equal(out[3], Number(h >> 32n));
    assert.equal(out[4], Number(h & 0xffffffffn));
    assert.deepEqual([out[0], out[1], out[2], out[5]], [0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef]);
    simhashWords(text, out);
    assert.deepEqual([out[0], out[1]], [out[3], out[4]]);
  });

  test('refuses an offset without room for two words', () => {
    const out = new Uint32Array(4);
    for (const offset of [3, 4, -1, 1.5]) assert.throws(() => simhashWords('a b c', out, offset), RangeError);
  });
});

describe('Hamming distance', () => {
  test('agrees with a naive bit count, bigint and word forms', () => {
    const r = new Rng(9, 9, 9);
    const words = new Uint32Array(400);
    for (let i = 0; i < words.length; i++) words[i] = r.nextU32();
    // Sparse and dense values too, so distances cover 0 .. 64.
    words.set([0, 0, 0xffffffff, 0xffffffff, 1, 0x80000000, 0xffffffff, 0], 0);
    const asBig = (i: number): bigint => (BigInt(words[i] as number) << 32n) | BigInt(words[i + 1] as number);
    for (let i = 0; i < words.length; i += 2) {
      for (let j = 0; j < words.length; j += 14) {
        const expected = naivePopcount(asBig(i) ^ asBig(j));
        assert.equal(hammingDistance(asBig(i), asBig(j)), expected);
        assert.equal(hammingDistanceWords(words, i, words, j), expected);
      }
    }
    assert.equal(hammingDistance(0n, (1n << 64n) - 1n), 64);
    assert.equal(hammingDistance(-1n, 0n), 64);
    assert.equal(hammingDistanceWords(words, 0, words, 2), 64);
  });

  test('isNearDuplicate compares with the threshold, default NEAR_DUPLICATE_MAX_DISTANCE', () => {
    const a = 0x0123456789abcdefn;
    const flip = (n: number): bigint => a ^ ((1n << BigInt(n)) - 1n); // n low bits flipped
    assert.equal(isNearDuplicate(a, flip(NEAR_DUPLICATE_MAX_DISTANCE)), true);
    assert.equal(isNearDuplicate(a, flip(NEAR_DUPLICATE_MAX_DISTANCE + 1)), false);
    assert.equal(isNearDuplicate(a, flip(3), 3), true);
    assert.equal(isNearDuplicate(a, flip(4), 3), false);
    assert.equal(isNearDuplicate(a, a, 0), true);
    for (const bad of [-1, 65, 2.5, Number.NaN]) assert.throws(() => isNearDuplicate(a, a, bad), RangeError);
  });
});
