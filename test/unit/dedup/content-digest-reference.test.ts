/**
 * The text digest's normalization takes shortcuts (native searches first, a regex replace only when
 * white space other than single spaces and line feeds occurs); it must still equal its definition,
 * `text.normalize('NFC').replace(/\s+/gu, ' ').trim()`, on every input. Checked for every UTF-16
 * code unit in the contexts that choose between the paths, and on seeded random texts; the digests
 * of fixed texts are pinned to the values the first implementation gave them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { normalizeText, payloadDigest, textDigest } from '../../../src/dedup/content-digest.js';
import { Rng } from '../../../src/core/prng.js';

const reference = (text: string): string => text.normalize('NFC').replace(/\s+/gu, ' ').trim();
const sha256 = (s: string): string => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex');

describe('normalizeText against its definition', () => {
  test('every code unit, alone, doubled, next to a space or a line feed, between words and at the ends', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [ch, `a${ch}b`, `a${ch}${ch}b`, `a ${ch}b`, `a${ch}\nb`, `a\n${ch} b`, `${ch}a b\nc${ch}`]) {
        if (normalizeText(text) !== reference(text)) assert.fail(`U+${c.toString(16).padStart(4, '0')} in ${JSON.stringify(text)}`);
      }
    }
  });

  test('seeded random texts of words, spaces, line feeds and other white space', () => {
    const rng = new Rng(7, 3, 2025);
    const pieces = [
      'word',
      'Wört',
      'e\u0301',
      'Å',
      ' ',
      ' ',
      ' ',
      '\n',
      '\n',
      '  ',
      ' \n',
      '\t',
      '\r\n',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
      '\u200b',
      '.',
      '😀',
      '\ud800',
    ];
    for (let i = 0; i < 2000; i++) {
      let text = '';
      const n = rng.int(40);
      for (let k = 0; k < n; k++) text += pieces[rng.int(pieces.length)] as string;
      assert.equal(normalizeText(text), reference(text), JSON.stringify(text));
      assert.equal(textDigest(text), sha256(reference(text)), JSON.stringify(text));
    }
  });
});

describe('digests of fixed inputs', () => {
  test('keep the values the first implementation gave them', () => {
    assert.equal(
      textDigest('Heading\nFirst paragraph, with words. Second one\nLast line'),
      'sha256:5bebb377ac79beb72a23de2381664c9f03fe9edaaa06474552af6f405a1f8f77',
    );
    assert.equal(
      textDigest(' \u00a0Crème  brûlée\t\u2028à Zürich\ufeff '),
      'sha256:435ad578120789754c7720ec0b15aaa3e451cdbb5d84883ffeffd6f2d211769a',
    );
    assert.equal(
      payloadDigest(new TextEncoder().encode('<!DOCTYPE html>\n<p>Crème brûlée</p>\n')),
      'sha1:CR7Q5F5Q33ZY2J5UAJWXXZFESL3MV3GE',
    );
  });
});
