/**
 * The visible text flow of one HTML parse (SPEC §2 item 9): the page's visible text (white space
 * collapsed, block boundaries as newlines, capped) and its word tokens, with the windows of
 * *extended anchor text* — the N tokens before and after each link (N = 10 by default, seed 003).
 *
 * The "after" window needs text that comes after the anchor: a link waits in a FIFO queue until N
 * more tokens have gone by (or the document ends), so the parse stays a single pass. Only the
 * tokens a window may still need are kept: the last N, in a ring. A token is kept as where it is
 * (the text chunk, start, end), not as a string of its own: most tokens never fall in a window, and
 * a window's tokens that stand one space apart in the same chunk come out as one slice of it.
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

/** Whether UTF-16 code unit `c` is white space as `/\s/` has it. */
function isWhiteSpace(c: number): boolean {
  let k = CHAR_CLASS[c] as number;
  if (k === UNKNOWN) k = classify(c);
  return k === SPACE;
}

/** Whether `text` has no white space but single U+0020 between other characters. */
function isCollapsed(text: string): boolean {
  let wasSpace = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (wasSpace) return false;
      wasSpace = true;
    } else if (isWhiteSpace(c)) {
      return false;
    } else {
      wasSpace = false;
    }
  }
  return !wasSpace || text.length === 0;
}

/**
 * `text` with its runs of white space collapsed to one space and none at either end (anchor texts
 * and titles). A text already so, as most are, is returned as it is: the regex replace rebuilt it
 * around every space.
 */
export function collapse(text: string): string {
  return isCollapsed(text) ? text : text.replace(SPACE_RUN, ' ').trim();
}

/** Pending links settled before the queue drops them (a page has fewer links than this, mostly). */
const PENDING_COMPACT_AT = 1024;

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
  /**
   * The last `mask + 1` (at least N) tokens: token t is `ringText[t & mask]` from `ringStart` to
   * `ringEnd` (at the same index). Pending links need tokens from their `afterStart` on, and a
   * link still waits only while fewer than N tokens have followed it: so the ring holds them.
   */
  private readonly ringText: string[];
  private readonly ringStart: number[];
  private readonly ringEnd: number[];
  private readonly mask: number;
  /** Word tokens so far (the whole text, also past the cut): the global index of the next token. */
  count = 0;
  /** Links waiting for their after window, in order of `afterStart`. */
  private readonly pending: PendingLink[] = [];
  private pendingHead = 0;

  /** `n`: tokens on each side of a link; `maxChars`: visible text kept at most, in UTF-16 units. */
  constructor(
    private readonly n: number,
    private readonly maxChars: number,
  ) {
    let size = 1;
    while (size < n) size *= 2;
    this.mask = size - 1;
    this.ringText = new Array<string>(size).fill('');
    this.ringStart = new Array<number>(size).fill(0);
    this.ringEnd = new Array<number>(size).fill(0);
  }

  /**
   * A chunk of visible text (entities decoded); a word may run on into the next chunk. One pass
   * over the characters with a class table (a regular expression per word cost three times the
   * parser's own time) finds the words and whether the white space needs collapsing.
   */
  text(data: string): void {
    let needsCollapse = false;
    let isAllSpace = true;
    let wasSpace = false;
    let start = -1;
    const len = data.length;
    for (let i = 0; i < len; i++) {
      const c = data.charCodeAt(i);
      let k = CHAR_CLASS[c] as number;
      if (k === UNKNOWN) k = classify(c);
      if (k === WORD_CLASS) {
        if (start < 0) start = i;
        wasSpace = false;
        continue;
      }
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
      if (start >= 0) {
        this.word(data, start, i);
        start = -1;
        isAllSpace = false;
      } else if (i === 0) {
        this.flushWord();
      }
      if (k === SPACE) {
        if (wasSpace || c !== 32) needsCollapse = true;
        wasSpace = true;
      } else {
        wasSpace = false;
        isAllSpace = false;
      }
    }
    if (start >= 0) {
      this.partial += data.slice(start);
      isAllSpace = false;
    }
    if (this.isTruncated) return;
    if (isAllSpace) {
      // Empty or only white space: collapses to one space, owed to what comes next.
      if (this.owed === 0) this.owed = 1;
      return;
    }
    this.appendVisible(needsCollapse ? data.replace(SPACE_RUN, ' ') : data);
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
      this.emit(w, 0, w.length);
    }
  }

  /** The last N tokens, joined. */
  before(): string {
    return this.n === 0 ? '' : this.window(Math.max(0, this.count - this.n), this.count);
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
    p.link.extendedAnchorText = { before: p.before, after: this.window(p.afterStart, Math.min(p.afterStart + this.n, this.count)) };
    if (this.pendingHead >= PENDING_COMPACT_AT && this.pendingHead * 2 >= this.pending.length) {
      this.pending.splice(0, this.pendingHead);
      this.pendingHead = 0;
    }
  }

  /**
   * Tokens `from` (inclusive) to `to` (exclusive), joined by single spaces; all in the ring. Tokens
   * of one chunk separated by exactly one space are taken as one slice: the same text either way
   * (and `===` compares strings by their text, so two equal chunks are as good as one). Like the
   * anchor texts and hrefs, the windows may be slices of the page's string.
   */
  private window(from: number, to: number): string {
    if (from >= to) return '';
    const { ringText, ringStart, ringEnd, mask } = this;
    let text = ringText[from & mask] as string;
    let start = ringStart[from & mask] as number;
    let end = ringEnd[from & mask] as number;
    let out = '';
    for (let t = from + 1; t < to; t++) {
      const k = t & mask;
      const s = ringStart[k] as number;
      const next = ringText[k] as string;
      if (s === end + 1 && text.charCodeAt(end) === 32 && next === text) {
        end = ringEnd[k] as number;
        continue;
      }
      // A slice is never empty, so `out` is '' only before the first one.
      out = out === '' ? text.slice(start, end) : out + ' ' + text.slice(start, end);
      text = next;
      start = s;
      end = ringEnd[k] as number;
    }
    return out === '' ? text.slice(start, end) : out + ' ' + text.slice(start, end);
  }

  /** A word of `data` (from `start` to `end`), the partial word before it prepended. */
  private word(data: string, start: number, end: number): void {
    if (this.partial === '') {
      this.emit(data, start, end);
    } else {
      const w = this.partial + data.slice(start, end);
      this.partial = '';
      this.emit(w, 0, w.length);
    }
  }

  private emit(text: string, start: number, end: number): void {
    const k = this.count & this.mask;
    this.ringText[k] = text;
    this.ringStart[k] = start;
    this.ringEnd[k] = end;
    this.count++;
    const { pending } = this;
    while (this.pendingHead < pending.length && this.count >= (pending[this.pendingHead] as PendingLink).afterStart + this.n) {
      this.settle();
    }
  }

  /** Appends a chunk whose white space is collapsed (and which is not all white space). */
  private appendVisible(collapsed: string): void {
    const startsWithSpace = collapsed.charCodeAt(0) === 32;
    const endsWithSpace = collapsed.charCodeAt(collapsed.length - 1) === 32;
    if (startsWithSpace && this.owed === 0) this.owed = 1;
    let piece = startsWithSpace || endsWithSpace ? collapsed.slice(startsWithSpace ? 1 : 0, endsWithSpace ? -1 : undefined) : collapsed;
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
