/**
 * The visible text flow of one HTML parse (SPEC §2 item 9): the page's visible text (white space
 * collapsed, block boundaries as newlines, capped) and its word tokens, with the windows of
 * *extended anchor text* — the N tokens before and after each link (N = 10 by default, seed 003).
 *
 * The "after" window needs text that comes after the anchor: a link waits in a FIFO queue until N
 * more tokens have gone by (or the document ends), so the parse stays a single pass. Only the
 * tokens a window may still need are kept.
 *
 * Apart from html-page.ts, which drives it from the htmlparser2 callbacks, because it is a
 * self-contained state machine (tokenizer, text builder, link queue) and together they were past
 * the project's 600-line limit. Tokens are `[\p{L}\p{N}]+` runs, as everywhere in shoal.
 */

/** The word tokens around a link, each side joined by single spaces. */
export interface ExtendedAnchorText {
  readonly before: string;
  readonly after: string;
}

/** A link whose extended anchor text the flow fills in when its after window is complete. */
export interface WindowedLink {
  extendedAnchorText: ExtendedAnchorText;
}

/** A link waiting for the tokens after it. */
interface PendingLink {
  readonly link: WindowedLink;
  readonly before: string;
  /** Global index of the first token after the link. */
  readonly afterStart: number;
}

const SPACE_RUN = /\s+/g;

/** Character classes of UTF-16 code units, filled as met: letters and digits make words. */
const UNKNOWN = 0;
const WORD_CLASS = 1;
const SPACE = 2;
const OTHER = 3;
const SURROGATE = 4;
const CHAR_CLASS = new Uint8Array(0x10000);
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

function classify(c: number): number {
  const ch = String.fromCharCode(c);
  let k: number;
  if (c >= 0xd800 && c <= 0xdfff) k = SURROGATE;
  else if (WORD_CHAR.test(ch)) k = WORD_CLASS;
  else if (/^\s$/.test(ch)) k = SPACE;
  else k = OTHER;
  CHAR_CLASS[c] = k;
  return k;
}

/**
 * The visible text flow: the text itself (collapsed, capped) and its word tokens, with the
 * windows of extended anchor text. Keeps only the tokens still needed by a window.
 */
export class TextFlow {
  private readonly parts: string[] = [];
  private length = 0;
  /** Whether the visible text was cut at `maxChars`. */
  isTruncated = false;
  /** Separator owed before the next text: 0 none, 1 space, 2 newline. */
  private owed = 0;
  /** A word at the end of the last chunk, which the next chunk may continue. */
  private partial = '';
  /** Tokens from global index `bufStart` on. */
  private buf: string[] = [];
  private bufStart = 0;
  /** Word tokens so far (the whole text, also past the cut): the global index of the next token. */
  count = 0;
  /** Links waiting for their after window, in order of `afterStart`. */
  private readonly pending: PendingLink[] = [];
  private pendingHead = 0;

  /** `n`: tokens on each side of a link; `maxChars`: visible text kept at most, in UTF-16 units. */
  constructor(private readonly n: number, private readonly maxChars: number) {}

  /** A chunk of visible text (entities decoded); a word may run on into the next chunk. */
  text(data: string): void {
    const needsCollapse = this.tokenize(data);
    if (!this.isTruncated) this.appendVisible(data, needsCollapse);
  }

  /** A block boundary: the current word ends and the text continues on a new line. */
  block(): void {
    this.flushWord();
    this.owed = 2;
  }

  /** Ends the current word (a link starts or ends here). */
  flushWord(): void {
    if (this.partial !== '') {
      const w = this.partial;
      this.partial = '';
      this.emit(w);
    }
  }

  /** The last N tokens, joined. */
  before(): string {
    if (this.n === 0) return '';
    const from = Math.max(this.bufStart, this.count - this.n) - this.bufStart;
    return this.buf.slice(from, this.count - this.bufStart).join(' ');
  }

  /** Queues `link` for the N tokens from here on. */
  awaitAfter(link: WindowedLink, before: string): void {
    if (this.n === 0) link.extendedAnchorText = { before, after: '' };
    else this.pending.push({ link, before, afterStart: this.count });
  }

  /** The visible text; settles every waiting link with the tokens there are. */
  finish(): string {
    this.flushWord();
    while (this.pendingHead < this.pending.length) this.settle();
    return this.parts.join('');
  }

  private settle(): void {
    const p = this.pending[this.pendingHead++] as PendingLink;
    const from = p.afterStart - this.bufStart;
    p.link.extendedAnchorText = { before: p.before, after: this.buf.slice(from, from + this.n).join(' ') };
  }

  private emit(word: string): void {
    this.buf.push(word);
    this.count++;
    const { pending } = this;
    while (this.pendingHead < pending.length && this.count >= (pending[this.pendingHead] as PendingLink).afterStart + this.n) {
      this.settle();
    }
    if (this.buf.length > 4096) this.compact();
  }

  private compact(): void {
    const next = this.pending[this.pendingHead];
    const keepFrom = Math.min(next === undefined ? Infinity : next.afterStart, this.count - this.n);
    if (keepFrom - this.bufStart < 2048) return;
    this.buf = this.buf.slice(keepFrom - this.bufStart);
    this.bufStart = keepFrom;
    if (this.pendingHead > 1024) {
      this.pending.splice(0, this.pendingHead);
      this.pendingHead = 0;
    }
  }

  /**
   * Emits the words of `data` (a word cut by the chunk's end waits in `partial`) and tells whether
   * its white space needs collapsing. One pass over the characters with a class table: a regular
   * expression per word cost three times the parser's own time.
   */
  private tokenize(data: string): boolean {
    let needsCollapse = false;
    let wasSpace = false;
    let start = -1;
    const len = data.length;
    for (let i = 0; i < len; i++) {
      const c = data.charCodeAt(i);
      let k = CHAR_CLASS[c] as number;
      if (k === UNKNOWN) k = classify(c);
      if (k === SURROGATE) {
        // A letter beyond the BMP (CJK extensions, mathematical letters) is two code units.
        const cp = data.codePointAt(i) as number;
        if (cp > 0xffff && WORD_CHAR.test(String.fromCodePoint(cp))) {
          if (start < 0) start = i;
          i++;
          wasSpace = false;
          continue;
        }
        k = OTHER;
      }
      if (k === WORD_CLASS) {
        if (start < 0) start = i;
        wasSpace = false;
        continue;
      }
      if (start >= 0) {
        this.emit(this.partial + data.slice(start, i));
        this.partial = '';
        start = -1;
      } else if (i === 0) {
        this.flushWord();
      }
      if (k === SPACE) {
        if (wasSpace || c !== 32) needsCollapse = true;
        wasSpace = true;
      } else {
        wasSpace = false;
      }
    }
    if (start >= 0) this.partial += data.slice(start);
    return needsCollapse;
  }

  private appendVisible(data: string, needsCollapse: boolean): void {
    const collapsed = needsCollapse ? data.replace(SPACE_RUN, ' ') : data;
    if (collapsed === ' ' || collapsed === '') {
      if (this.owed === 0) this.owed = 1;
      return;
    }
    const startsWithSpace = collapsed.charCodeAt(0) === 32;
    const endsWithSpace = collapsed.charCodeAt(collapsed.length - 1) === 32;
    if (startsWithSpace && this.owed === 0) this.owed = 1;
    let piece = collapsed.slice(startsWithSpace ? 1 : 0, endsWithSpace ? -1 : undefined);
    if (this.length > 0 && this.owed > 0) piece = (this.owed === 2 ? '\n' : ' ') + piece;
    this.owed = endsWithSpace ? 1 : 0;
    if (this.length + piece.length > this.maxChars) {
      piece = piece.slice(0, this.maxChars - this.length);
      this.isTruncated = true;
    }
    this.parts.push(piece);
    this.length += piece.length;
  }
}
