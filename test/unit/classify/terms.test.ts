import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTerms, DEFAULT_TERM_OPTIONS, scanTerms, termId, type TermOptions } from '../../../src/classify/terms.js';

function ids(text: string, options: TermOptions = DEFAULT_TERM_OPTIONS): number[] {
  const out: number[] = [];
  scanTerms(text, options, (id) => out.push(id));
  return out;
}

describe('scanTerms', () => {
  test('splits on white space and punctuation and lowercases', () => {
    assert.deepEqual(ids('Hello, WORLD! hello-world'), ids('hello world hello world'));
    assert.equal(countTerms('Hello, WORLD! hello-world', DEFAULT_TERM_OPTIONS), 4);
  });

  test('drops terms holding a digit, and numbers', () => {
    assert.deepEqual(ids('html5 2024 page 3.14 x86 mp3 word'), ids('page word'));
  });

  test('drops terms shorter than minTermChars and longer than maxTermChars', () => {
    const long = 'a'.repeat(33);
    assert.deepEqual(ids(`a I ok ${long} ${'b'.repeat(32)}`), ids(`ok ${'b'.repeat(32)}`));
    assert.equal(countTerms('a b c', { ...DEFAULT_TERM_OPTIONS, minTermChars: 1 }), 3);
  });

  test('keeps non-ASCII letters and marks in a term and lowercases them', () => {
    assert.deepEqual(ids('NAÏVE Straße'), ids('naïve straße'));
    assert.equal(countTerms('naïve café', DEFAULT_TERM_OPTIONS), 2);
    // A decomposed diaeresis (U+0308, a mark) stays inside the term.
    assert.equal(countTerms('nai\u0308ve', DEFAULT_TERM_OPTIONS), 1);
    assert.equal(countTerms('Ελληνικά κείμενα', DEFAULT_TERM_OPTIONS), 2);
  });

  test('treats emoji, surrogate halves and symbols as separators', () => {
    assert.deepEqual(ids('rock😀roll © ™ rock'), ids('rock roll rock'));
    assert.deepEqual(ids('\ud800broken\udfff'), ids('broken'));
  });

  test('feature ids are hashBits-bit integers, equal for equal terms', () => {
    for (const bits of [8, 12, 18, 24]) {
      const o = { ...DEFAULT_TERM_OPTIONS, hashBits: bits };
      for (const id of ids('the quick brown fox jumps over the lazy dog', o)) assert.ok(id >= 0 && id < 2 ** bits && Number.isInteger(id));
    }
    assert.equal(termId('Computer', DEFAULT_TERM_OPTIONS), termId('computer', DEFAULT_TERM_OPTIONS));
    assert.notEqual(termId('computer', DEFAULT_TERM_OPTIONS), termId('computers', DEFAULT_TERM_OPTIONS));
    assert.equal(termId('two words', DEFAULT_TERM_OPTIONS), null);
  });

  test('spreads 5,000 distinct words over 2^18 ids with few collisions', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++)
      seen.add(
        termId(
          `w${String.fromCharCode(97 + (i % 26))}${i.toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)] as string)}`,
          DEFAULT_TERM_OPTIONS,
        ) as number,
      );
    assert.ok(seen.size > 4900, `${seen.size} distinct ids`);
  });

  test('never throws on odd strings', () => {
    for (const s of ['', ' ', '\u0000\uffff', '-'.repeat(10_000), 'x'.repeat(100_000)])
      assert.doesNotThrow(() => countTerms(s, DEFAULT_TERM_OPTIONS));
  });
});
