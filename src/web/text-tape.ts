/**
 * Body text of the test web, cut from tapes: one long run of random words per vocabulary (a topic's
 * words mixed with the language's common words), split into sentences. A paragraph is a slice of a
 * tape starting at a sentence, so writing it costs a few string slices instead of one append per
 * word; pages differ by where their slices start (tens of thousands of positions per tape) and by
 * their links, city mentions and edits.
 */
import { Purpose, Rng } from '../core/prng.js';
import { capitalize } from './vocab.js';

/** Words per tape: about 200 KB of text each, generated on first use. */
export const TAPE_WORDS = 32_768;

/** Share of tape words written as numbers. */
const NUMBER_SHARE = 0.015;

/** A run of words separated by single spaces; sentences start capitalized and end with '.'. */
export class TextTape {
  readonly text: string;
  /** Offset of each word in `text`, then `text.length + 1`. */
  private readonly starts: Int32Array;
  /** Word indexes at which a sentence starts, ascending. */
  private readonly sentenceStarts: Int32Array;

  constructor(rng: Rng, filler: readonly string[], topic: readonly string[], topicShare: number, words = TAPE_WORDS) {
    const out: string[] = [];
    const sentenceStarts: number[] = [];
    let sentence = 0;
    for (let i = 0; i < words; i++) {
      let w = rng.chance(topicShare) ? rng.pick(topic) : rng.pick(filler);
      const u = rng.next();
      if (u < NUMBER_SHARE) w = String(Math.floor((u / NUMBER_SHARE) * 2000));
      if (sentence === 0) {
        sentenceStarts.push(i);
        w = capitalize(w);
      }
      sentence++;
      // Sentences of at least 7 words, about 15 on average.
      if (sentence > 6 && rng.chance(0.12)) {
        w += '.';
        sentence = 0;
      }
      out.push(w);
    }
    this.text = out.join(' ');
    this.starts = new Int32Array(words + 1);
    let at = 0;
    out.forEach((w, i) => {
      this.starts[i] = at;
      at += w.length + 1;
    });
    this.starts[words] = at;
    this.sentenceStarts = Int32Array.from(sentenceStarts);
  }

  /** Number of words. */
  get length(): number {
    return this.starts.length - 1;
  }

  /** Words [from, from + count), separated by spaces ('' when count is 0). */
  slice(from: number, count: number): string {
    if (count <= 0) return '';
    return this.text.slice(this.starts[from] as number, (this.starts[from + count] as number) - 1);
  }

  /** Whether word i ends a sentence (is written with a full stop). */
  endsWithStop(i: number): boolean {
    return this.text.charCodeAt((this.starts[i + 1] as number) - 2) === 46;
  }

  /** Word i. */
  word(i: number): string {
    return this.slice(i, 1);
  }

  /**
   * A word index where a sentence starts and `count` words follow within the tape, drawn uniformly
   * from u in [0, 1).
   */
  sentenceStart(u: number, count: number): number {
    const last = this.length - count;
    // Sentence starts at or before `last`: a prefix of the ascending list.
    let lo = 0;
    let hi = this.sentenceStarts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sentenceStarts[mid] as number) <= last) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return Math.max(0, last);
    return this.sentenceStarts[Math.floor(u * lo)] as number;
  }
}

/** Tapes of each model (dropped with it), by vocabulary key; a handful per Web, each built once. */
const tapes = new WeakMap<object, Map<number, TextTape>>();

/**
 * The tape of one vocabulary of `owner` (a model): `key` names the vocabulary (a topic, a
 * language), the words are `topic` words with probability `topicShare`, else `filler` words.
 */
export function textTape(
  owner: object,
  seed: number,
  key: number,
  filler: readonly string[],
  topic: readonly string[],
  topicShare: number,
): TextTape {
  let byKey = tapes.get(owner);
  if (byKey === undefined) {
    byKey = new Map();
    tapes.set(owner, byKey);
  }
  let tape = byKey.get(key);
  if (tape === undefined) {
    tape = new TextTape(new Rng(seed, Purpose.textTape, key), filler, topic, topicShare);
    byKey.set(key, tape);
  }
  return tape;
}
