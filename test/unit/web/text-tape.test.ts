import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../../src/core/prng.js';
import { TextTape } from '../../../src/web/text-tape.js';

const filler = ['the', 'of', 'and', 'river', 'stone'];
const topic = ['guitar', 'chord', 'melody'];

function tape(seed = 1, words = 5000): TextTape {
  return new TextTape(new Rng(seed, 17, 0), filler, topic, 0.3, words);
}

test('a tape is single-spaced words from the two lists, numbers and full stops', () => {
  const t = tape();
  const words = t.text.split(' ');
  assert.equal(words.length, t.length);
  const known = new Set([...filler, ...topic]);
  let topicWords = 0;
  let numbers = 0;
  for (const w of words) {
    const bare = w.replace(/\.$/, '').toLowerCase();
    if (/^\d+$/.test(bare)) numbers++;
    else assert.ok(known.has(bare), w);
    if (topic.includes(bare)) topicWords++;
  }
  const share = topicWords / words.length;
  assert.ok(share > 0.25 && share < 0.35, `topic share ${share}`);
  assert.ok(numbers > 0 && numbers < words.length * 0.03, `numbers ${numbers}`);
});

test('slices are exact runs of words; word(i) is the i-th word', () => {
  const t = tape();
  const words = t.text.split(' ');
  for (const [from, count] of [
    [0, 1],
    [0, 7],
    [17, 40],
    [t.length - 3, 3],
    [100, 0],
  ] as const) {
    assert.equal(t.slice(from, count), words.slice(from, from + count).join(' '));
  }
  assert.equal(t.word(42), words[42]);
});

test('paragraph starts are sentence starts with room for the paragraph', () => {
  const t = tape();
  const words = t.text.split(' ');
  for (let i = 0; i < 200; i++) {
    const count = 40 + (i % 80);
    const at = t.sentenceStart(i / 200, count);
    assert.ok(at >= 0 && at + count <= t.length, `${at} + ${count}`);
    assert.ok(at === 0 || words[at - 1]!.endsWith('.'), `word ${at} follows a full stop`);
    assert.match(words[at]!, /^[A-Z0-9]/);
  }
  // A paragraph as long as the tape starts at its first word.
  assert.equal(t.sentenceStart(0.99, t.length), 0);
});

test('the same seed gives the same tape; another seed another one', () => {
  assert.equal(tape(1).text, tape(1).text);
  assert.notEqual(tape(1).text, tape(2).text);
});
