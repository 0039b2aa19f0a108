/**
 * Words for the text policies (src/order/terms.ts): lowercase letter-and-digit tokens, URLs read
 * after their scheme and percent-decoded, term counts streamed over a text, early stop included.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addTokenCounts, countTermsIn, TermCounter, tokensOf, urlText, urlTokensOf } from '../../../src/order/terms.js';

describe('terms', () => {
  test('tokens: lowercase letter-and-digit runs; URLs after the scheme, percent-decoded', () => {
    assert.deepEqual(tokensOf('Computer-Science, 2nd ÉDITION!'), ['computer', 'science', '2nd', 'édition']);
    assert.deepEqual(tokensOf(''), []);
    assert.equal(urlText('http://A.test/Caf%C3%A9/Index.html'), 'a.test/café/index.html');
    assert.equal(urlText('http://a.test/%E0%A4%A'), 'a.test/%e0%a4%a');
    assert.deepEqual(urlTokensOf('https://www.cs.test/home?q=1'), ['www', 'cs', 'test', 'home', 'q', '1']);
  });

  test('countTermsIn counts whole tokens, case-insensitively', () => {
    assert.deepEqual(countTermsIn('Computer computers COMPUTER, computer.', ['computer', 'science']), [3, 0]);
    assert.deepEqual(countTermsIn('', ['computer']), [0]);
    assert.deepEqual(countTermsIn('computer', []), []);
  });

  test('a TermCounter counts text after text, the same as countTermsIn', () => {
    const terms = ['computer', 'science', 'x1'];
    const counter = new TermCounter(terms);
    const texts = ['Computer science, COMPUTER-Science x1 x12', 'nothing here', 'science '.repeat(50), ''];
    for (const text of texts) assert.deepEqual([...counter.countIn(text)], countTermsIn(text, terms), JSON.stringify(text.slice(0, 20)));
  });

  test('reaches: whether a term occurs min times, reading no further than it must', () => {
    const counter = new TermCounter(['computer', 'science']);
    assert.equal(counter.reaches('computer science computer', 2), true);
    assert.equal(counter.reaches('computer science computer', 3), false);
    assert.equal(counter.reaches('Science, science; SCIENCE', 3), true);
    assert.equal(counter.reaches('', 1), false);
    // Stops at the second "computer": the words after it are not read (the counts array is shared).
    const counts = counter.countIn('');
    assert.equal(counter.reaches('computer computer science science science', 2), true);
    assert.deepEqual([...counts], [2, 0]);
    assert.deepEqual([...counter.countIn('science')], [0, 1], 'the next call starts from zero');
  });

  test('addTokenCounts adds one per token occurrence, in first-met order', () => {
    const into = addTokenCounts('Garden home, garden: GARDEN', new Map([['home', 5]]));
    assert.deepEqual(
      [...into],
      [
        ['home', 6],
        ['garden', 3],
      ],
    );
    assert.deepEqual([...addTokenCounts('', new Map())], []);
  });
});
