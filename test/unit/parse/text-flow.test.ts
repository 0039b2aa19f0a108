/**
 * The text flow's windows of extended anchor text: the flow keeps only the last N tokens, in a ring,
 * as places in their chunks, and takes tokens one space apart in one chunk as a single slice. Checked
 * against a plain model that keeps every token as a string: seeded random sequences of chunks, block
 * boundaries and links, for window sizes from 0 to past the ring's wrap; and the slicing cases one
 * by one (single spaces, other separators, words split across chunks).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TextFlow, type ExtendedAnchorText } from '../../../src/parse/text-flow.js';
import { Rng } from '../../../src/core/prng.js';

/** Every token as a string, windows joined when asked. */
class PlainFlow {
  readonly tokens: string[] = [];
  private word = '';

  constructor(private readonly n: number) {}

  /** A word runs on into the next chunk unless something else comes between. */
  text(data: string): void {
    for (const ch of data) {
      if (/^[\p{L}\p{N}]$/u.test(ch)) this.word += ch;
      else this.flushWord();
    }
  }

  flushWord(): void {
    if (this.word !== '') this.tokens.push(this.word);
    this.word = '';
  }

  before(): string {
    return this.tokens.slice(Math.max(0, this.tokens.length - this.n)).join(' ');
  }

  after(from: number): string {
    return this.tokens.slice(from, from + this.n).join(' ');
  }
}

interface Link {
  extendedAnchorText: ExtendedAnchorText;
}

const PIECES = [
  'alpha',
  'beta',
  'γάμμα',
  'x',
  '42',
  '𝐁𝐨𝐥𝐝',
  'mid',
  'end',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  ', ',
  '.',
  '—',
  '\u00a0',
  '&',
  '\ud800',
];

describe('TextFlow windows', () => {
  test('equal a plain model that keeps every token, for N from 0 to past the ring size', () => {
    const rng = new Rng(11, 5, 2025);
    for (const n of [0, 1, 2, 3, 4, 7, 10, 17, 40]) {
      for (let round = 0; round < 60; round++) {
        const flow = new TextFlow(n, 1_000_000);
        const plain = new PlainFlow(n);
        const links: { link: Link; before: string; afterStart: number }[] = [];
        let open: { before: string } | null = null;
        const steps = rng.int(200);
        for (let s = 0; s < steps; s++) {
          const r = rng.int(20);
          if (r < 14) {
            let chunk = '';
            const pieces = 1 + rng.int(12);
            for (let p = 0; p < pieces; p++) chunk += PIECES[rng.int(PIECES.length)] as string;
            flow.text(chunk);
            plain.text(chunk);
          } else if (r < 16) {
            flow.block();
            plain.flushWord();
          } else if (r < 18 && open === null) {
            flow.flushWord();
            plain.flushWord();
            open = { before: flow.before() };
            assert.equal(open.before, plain.before(), `n ${n}: before`);
          } else if (open !== null) {
            flow.flushWord();
            plain.flushWord();
            const link: Link = { extendedAnchorText: { before: '', after: '' } };
            links.push({ link, before: open.before, afterStart: plain.tokens.length });
            flow.awaitAfter(link, open.before);
            open = null;
          }
        }
        flow.finish();
        plain.flushWord();
        assert.equal(flow.count, plain.tokens.length);
        for (const { link, before, afterStart } of links) {
          assert.deepEqual(link.extendedAnchorText, { before, after: plain.after(afterStart) }, `n ${n}`);
        }
      }
    }
  });

  const windowsOf = (chunks: readonly string[]): ExtendedAnchorText => {
    const flow = new TextFlow(10, 1_000_000);
    const link: Link = { extendedAnchorText: { before: '', after: '' } };
    flow.awaitAfter(link, '');
    for (const c of chunks) flow.text(c);
    flow.finish();
    return link.extendedAnchorText;
  };

  test('tokens are joined by one space whatever stood between them', () => {
    assert.equal(windowsOf(['one two three']).after, 'one two three');
    assert.equal(windowsOf(['one  two\tthree\nfour']).after, 'one two three four');
    assert.equal(windowsOf(['one, two. (three) — four!']).after, 'one two three four');
    assert.equal(windowsOf(['one two', ' three four', 'five']).after, 'one two three fourfive');
    assert.equal(windowsOf(['wo', 'rd and more', ' words']).after, 'word and more words');
    assert.equal(windowsOf(['a b c d e f g h i j k l']).after, 'a b c d e f g h i j');
    assert.equal(windowsOf([' ', '\n', '']).after, '');
  });
});
