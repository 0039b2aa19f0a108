/**
 * A lean HTML scanner that feeds the page collector of html-page.ts the same events htmlparser2's
 * `Parser` would (open tags with their attributes, close tags including implied ones, text with
 * entities decoded), in one pass of `indexOf` jumps over the decoded page instead of a
 * character-by-character state machine with a callback per token. It is what makes a parse cheap:
 * attributes are read into strings only for the elements the collector asks for, text runs become
 * one string each, and the tree rules are a small stack of names.
 *
 * It covers the HTML that pages are made of: tags with quoted, unquoted and bare attributes,
 * comments, doctypes and bogus comments, CDATA sections, raw text (script, style, iframe, noembed,
 * noframes), escapable raw text (title, textarea), and SVG and MathML inside HTML (where `/>`
 * closes an element and no element is text-only). What it does not model it does not guess at:
 * `<plaintext>`, `<xmp>`, and a document that ends inside a tag or a declaration. There
 * {@link scanHtml} stops and answers false, and the caller parses the page with htmlparser2 from
 * the start: the two must agree, and htmlparser2 is the oracle of the tests that check they do.
 *
 * The tree rules are htmlparser2's, not the HTML standard's tree builder: an open tag closes the
 * open elements it implies (`<p>` closes an open `<p>`, `<li>` an `<li>`, and so on), void elements
 * close at once, an end tag closes every element above the nearest open one of its name and is
 * ignored when none is open (`</p>` and `</br>` aside), a second `<form>` is ignored, `<image>` is
 * `<img>`, and every element still open is closed at the end of the document.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';

/** What the scanner reports; the collector of html-page.ts. */
export interface ScanHandler {
  /** Called first, with where the scan is (htmlparser2 hands over its parser the same way). */
  onparserinit?(position: ScanPosition): void;
  onopentag(name: string, attrs: Record<string, string>): void;
  onclosetag(name: string): void;
  ontext(data: string): void;
}

/** Where the scanner is: `startIndex` is the index of the `<` of the tag being reported. */
export interface ScanPosition {
  readonly startIndex: number;
}

const FORM_TAGS = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const P_TAG = new Set(['p']);
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p']);
const TABLE_SECTION_TAGS = new Set(['thead', 'tbody']);
const DD_DT_TAGS = new Set(['dd', 'dt']);
const RT_RP_TAGS = new Set(['rt', 'rp']);
/** Open elements that an opening tag closes first (htmlparser2's table). */
const OPEN_IMPLIES_CLOSE: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['a', new Set(['a'])],
  ['li', new Set(['li'])],
  ['p', P_TAG],
  ['h1', HEADING_TAGS],
  ['h2', HEADING_TAGS],
  ['h3', HEADING_TAGS],
  ['h4', HEADING_TAGS],
  ['h5', HEADING_TAGS],
  ['h6', HEADING_TAGS],
  ['select', FORM_TAGS],
  ['input', FORM_TAGS],
  ['output', FORM_TAGS],
  ['button', FORM_TAGS],
  ['datalist', FORM_TAGS],
  ['textarea', FORM_TAGS],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT_TAGS],
  ['dt', DD_DT_TAGS],
  ...[
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
  ].map((t): [string, ReadonlySet<string>] => [t, P_TAG]),
  ...['main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((t): [string, ReadonlySet<string>] => [t, P_TAG]),
  ['rt', RT_RP_TAGS],
  ['rp', RT_RP_TAGS],
  ['tbody', TABLE_SECTION_TAGS],
  ['tfoot', TABLE_SECTION_TAGS],
]);
const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose contents are text up to their end tag: raw (false) or with entities decoded (true). */
const TEXT_ONLY: ReadonlyMap<string, boolean> = new Map([
  ['script', false],
  ['style', false],
  ['iframe', false],
  ['noembed', false],
  ['noframes', false],
  ['title', true],
  ['textarea', true],
]);
/** Elements whose rules the scanner leaves to htmlparser2. */
const UNMODELLED: ReadonlySet<string> = new Set(['plaintext', 'xmp']);
/** Where HTML rules hold again inside SVG or MathML (`foreignObject` as an SVG name, in its case). */
const INTEGRATION_POINTS: ReadonlySet<string> = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignObject',
  'desc',
  'title',
]);
/** The content an element's children are in: HTML, SVG or MathML (foreign: other rules for names and `/>`). */
const HTML_CONTENT = 0;
const SVG_CONTENT = 1;
const MATH_CONTENT = 2;
/** Attributes of an element nobody asked about: never written to. */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DASH = 0x2d;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;
const AMP = '&';
const CDATA = 'CDATA[';

/** HTML white space as htmlparser2 has it: space, tab, LF, FF, CR. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** What ends a tag name or an attribute name: white space, `/`, `>` (NaN, past the end, does not). */
function endsName(c: number): boolean {
  return c === SLASH || c === GT || isSpace(c);
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** `s` in lowercase; most tag and attribute names are already, and then no new string is made. */
function lower(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || c > 0x7f) return s.toLowerCase();
  }
  return s;
}

/** Thrown inside the scan when the page needs rules the scanner does not model. */
class Unmodelled extends Error {}
const UNMODELLED_ERROR = new Unmodelled('unmodelled HTML');

/** One scan of one page. */
class Scan implements ScanPosition {
  startIndex = 0;
  /** Open elements, innermost last. */
  private readonly stack: string[] = [];
  /** The content kinds opened by svg, math and integration points, innermost last, above HTML's. */
  private readonly contents: number[] = [HTML_CONTENT];
  /** Whether the last tag read ended with `/>`. */
  private isSelfClosing = false;
  private readonly n: number;

  constructor(
    private readonly html: string,
    private readonly handler: ScanHandler,
    private readonly wantsAttributes: ReadonlySet<string>,
  ) {
    this.n = html.length;
  }

  run(): void {
    this.handler.onparserinit?.(this);
    const html = this.html;
    const n = this.n;
    let textStart = 0;
    let i = 0;
    for (;;) {
      const lt = html.indexOf('<', i);
      if (lt === -1) break;
      const c = html.charCodeAt(lt + 1);
      let next: number;
      if (isAsciiAlpha(c)) {
        this.text(textStart, lt);
        next = this.openTag(lt);
      } else if (c === SLASH) {
        const d = html.charCodeAt(lt + 2);
        if (Number.isNaN(d)) throw UNMODELLED_ERROR;
        this.text(textStart, lt);
        if (isAsciiAlpha(d)) next = this.endTag(lt);
        else if (d === GT) next = lt + 3;
        else next = this.toGt(lt + 2);
      } else if (c === BANG) {
        this.text(textStart, lt);
        next = this.declaration(lt);
      } else if (c === QUESTION) {
        this.text(textStart, lt);
        next = this.toGt(lt + 2);
      } else {
        // A `<` that starts nothing is text.
        i = lt + 1;
        continue;
      }
      i = next;
      textStart = next;
    }
    this.text(textStart, n);
    const stack = this.stack;
    this.startIndex = n;
    for (let k = stack.length - 1; k >= 0; k--) this.handler.onclosetag(stack[k] as string);
  }

  /**
   * Reports the text from `from` to `to`, entities decoded; a run of nothing but ASCII white space
   * (the indentation between tags, most runs of a page) as one space, which every reader of text
   * collapses it to anyway, without making a string of it.
   */
  private text(from: number, to: number): void {
    if (to <= from) return;
    const html = this.html;
    let i = from;
    while (i < to && isSpace(html.charCodeAt(i))) i++;
    if (i === to) {
      this.handler.ontext(' ');
      return;
    }
    const raw = html.slice(from, to);
    this.handler.ontext(raw.includes(AMP) ? decodeHTML(raw) : raw);
  }

  /** The index after the first `>` from `from` (a bogus comment or a declaration ends there). */
  private toGt(from: number): number {
    const gt = this.html.indexOf('>', from);
    if (gt === -1) throw UNMODELLED_ERROR;
    return gt + 1;
  }

  /** `<!...`: a comment, a CDATA section, a doctype or a bogus comment; the index after it. */
  private declaration(lt: number): number {
    const html = this.html;
    const c = html.charCodeAt(lt + 2);
    if (c === DASH) {
      if (html.charCodeAt(lt + 3) !== DASH) throw UNMODELLED_ERROR;
      const body = lt + 4;
      const d = html.charCodeAt(body);
      // `<!-->` and `<!--->` end at once.
      if (d === GT) return body + 1;
      if (d === DASH && html.charCodeAt(body + 1) === GT) return body + 2;
      return this.commentEnd(body, '--', 2);
    }
    if (c === 0x5b /* [ */) {
      let k = 0;
      while (k < CDATA.length && html.charCodeAt(lt + 3 + k) === CDATA.charCodeAt(k)) k++;
      // Anything but `<![CDATA[` (`<![if IE]>`) is a bogus comment from where it differs.
      if (k < CDATA.length) return this.toGt(lt + 3 + k);
      const end = html.indexOf(']]>', lt + 9);
      return end === -1 ? this.n : end + 3;
    }
    return this.toGt(lt + 2);
  }

  /** The index after a comment's end (`-->` or `--!>`) searched from `from`; the document's end if none. */
  private commentEnd(from: number, dashes: string, width: number): number {
    const html = this.html;
    let at = from;
    for (;;) {
      const d = html.indexOf(dashes, at);
      if (d === -1) return this.n;
      let k = d + width;
      while (html.charCodeAt(k) === DASH) k++;
      const e = html.charCodeAt(k);
      if (e === GT) return k + 1;
      if (e === BANG && html.charCodeAt(k + 1) === GT) return k + 2;
      at = k;
    }
  }

  /** Where the tag name starting at `from` ends (white space, `/` or `>`); a name cut by the document's end is not modelled. */
  private nameEnd(from: number): number {
    const html = this.html;
    const n = this.n;
    let j = from;
    while (j < n && !endsName(html.charCodeAt(j))) j++;
    if (j >= n) throw UNMODELLED_ERROR;
    return j;
  }

  /** An opening tag at `lt`: reads it, reports it with what it implies; the index after it (and its text-only contents). */
  private openTag(lt: number): number {
    const html = this.html;
    const j = this.nameEnd(lt + 1);
    const isForeign = this.content() !== HTML_CONTENT;
    const name = this.tagName(html.slice(lt + 1, j));
    if (UNMODELLED.has(name)) throw UNMODELLED_ERROR;
    const attrs = this.wantsAttributes.has(name) ? ({} as Record<string, string>) : null;
    const gt = this.attributes(j, attrs);
    this.startIndex = lt;
    const isOpen = this.open(name, attrs ?? NO_ATTRIBUTES);
    // `/>` closes an element only where foreign rules hold once it is open (so `<svg/>` too).
    if (isOpen && this.isSelfClosing && this.content() !== HTML_CONTENT && this.stack[this.stack.length - 1] === name) this.pop();
    // Text-only elements are so only where HTML rules held at their `<`.
    const textOnly = isForeign ? undefined : TEXT_ONLY.get(name);
    return textOnly === undefined ? gt + 1 : this.textOnly(name, gt + 1, textOnly);
  }

  private content(): number {
    return this.contents[this.contents.length - 1] as number;
  }

  /**
   * A tag's name as htmlparser2 reads it: lowercase; `foreignObject` in its SVG case (and where it
   * is open); `image` is `img` where HTML rules hold. (htmlparser2 gives other SVG names their case
   * too; no rule here reads them, and they are compared in lowercase on both sides.)
   */
  private tagName(raw: string): string {
    const name = lower(raw);
    const content = this.content();
    if (content === SVG_CONTENT) return name === 'foreignobject' ? 'foreignObject' : name;
    if (name === 'foreignobject' && this.contents.length > 1 && this.stack.includes('foreignObject')) return 'foreignObject';
    return content === HTML_CONTENT && name === 'image' ? 'img' : name;
  }

  /** Closes the innermost open element. */
  private pop(): void {
    const name = this.stack.pop() as string;
    if (name === 'svg' || name === 'math' || INTEGRATION_POINTS.has(name)) this.contents.pop();
    this.handler.onclosetag(name);
  }

  /** Reads the attributes from `j` (after the tag name) into `attrs` (null: skipped); the index of the tag's `>`. */
  private attributes(j: number, attrs: Record<string, string> | null): number {
    const html = this.html;
    const n = this.n;
    this.isSelfClosing = false;
    for (;;) {
      if (j >= n) throw UNMODELLED_ERROR;
      const c = html.charCodeAt(j);
      if (c === GT) return j;
      if (c === SLASH) {
        this.isSelfClosing = true;
        j++;
        continue;
      }
      if (isSpace(c)) {
        j++;
        continue;
      }
      // An attribute name: up to `=`, white space, `/` or `>` (a leading `=` belongs to it).
      this.isSelfClosing = false;
      const nameStart = j;
      j++;
      while (j < n) {
        const d = html.charCodeAt(j);
        if (d === EQ || endsName(d)) break;
        j++;
      }
      if (j >= n) throw UNMODELLED_ERROR;
      const name = attrs === null ? '' : lower(html.slice(nameStart, j));
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (j >= n) throw UNMODELLED_ERROR;
      if (html.charCodeAt(j) !== EQ) {
        if (attrs !== null && !Object.hasOwn(attrs, name)) attrs[name] = '';
        continue;
      }
      j++;
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (j >= n) throw UNMODELLED_ERROR;
      const q = html.charCodeAt(j);
      let value: string;
      if (q === DQ || q === SQ) {
        const close = html.indexOf(q === DQ ? '"' : "'", j + 1);
        if (close === -1) throw UNMODELLED_ERROR;
        value = attrs === null ? '' : html.slice(j + 1, close);
        j = close + 1;
      } else {
        const valueStart = j;
        while (j < n) {
          const d = html.charCodeAt(j);
          if (d === GT || isSpace(d)) break;
          j++;
        }
        if (j >= n) throw UNMODELLED_ERROR;
        value = attrs === null ? '' : html.slice(valueStart, j);
      }
      if (attrs !== null && !Object.hasOwn(attrs, name)) attrs[name] = value.includes(AMP) ? decodeHTMLAttribute(value) : value;
    }
  }

  /**
   * Reports the opening of `name`: the elements it closes first, then itself (and its end at once
   * if void); false when it is ignored (a `<form>` inside a form).
   */
  private open(name: string, attrs: Record<string, string>): boolean {
    const stack = this.stack;
    if (name === 'form' && stack.includes('form')) return false;
    const implied = OPEN_IMPLIES_CLOSE.get(name);
    if (implied !== undefined) {
      while (stack.length > 0 && implied.has(stack[stack.length - 1] as string)) this.pop();
    }
    const isVoid = VOID_ELEMENTS.has(name);
    if (!isVoid) {
      stack.push(name);
      if (name === 'svg') this.contents.push(SVG_CONTENT);
      else if (name === 'math') this.contents.push(MATH_CONTENT);
      else if (INTEGRATION_POINTS.has(name)) this.contents.push(HTML_CONTENT);
    }
    this.handler.onopentag(name, attrs);
    if (isVoid) this.handler.onclosetag(name);
    return true;
  }

  /** An end tag at `lt`; the index after its `>`. */
  private endTag(lt: number): number {
    const html = this.html;
    const j = this.nameEnd(lt + 2);
    const name = this.tagName(html.slice(lt + 2, j));
    const next = html.charCodeAt(j) === GT ? j + 1 : this.toGt(j);
    this.startIndex = lt;
    this.close(name);
    return next;
  }

  /** Reports an end tag `name`: the elements above the nearest open one of that name, then it. */
  private close(name: string): void {
    const stack = this.stack;
    if (VOID_ELEMENTS.has(name)) {
      if (name === 'br') {
        this.handler.onopentag('br', {});
        this.handler.onclosetag('br');
      }
      return;
    }
    const at = stack.lastIndexOf(name);
    if (at !== -1) {
      while (stack.length > at) this.pop();
    } else if (name === 'p') {
      this.handler.onopentag('p', {});
      this.handler.onclosetag('p');
    }
  }

  /**
   * The contents of a text-only element opened just before `from`, up to its end tag (`</name`
   * followed by white space, `/` or `>`), reported as text (entities decoded if `isEscapable`),
   * then the end tag; the index after it.
   */
  private textOnly(name: string, from: number, isEscapable: boolean): number {
    const html = this.html;
    const n = this.n;
    let at = from;
    for (;;) {
      const lt = html.indexOf('</', at);
      if (lt === -1) throw UNMODELLED_ERROR;
      let k = 0;
      while (k < name.length && (html.charCodeAt(lt + 2 + k) | 0x20) === name.charCodeAt(k)) k++;
      const after = lt + 2 + k;
      if (k === name.length) {
        if (after >= n) throw UNMODELLED_ERROR;
        if (endsName(html.charCodeAt(after))) {
          if (lt > from) {
            const raw = html.slice(from, lt);
            this.handler.ontext(isEscapable && raw.includes(AMP) ? decodeHTML(raw) : raw);
          }
          const next = html.charCodeAt(after) === GT ? after + 1 : this.toGt(after);
          this.startIndex = lt;
          this.close(name);
          return next;
        }
      }
      at = lt + 1;
    }
  }
}

/**
 * Scans `html`, reporting to `handler` what htmlparser2's parser would, with attributes only for
 * the elements in `wantsAttributes` (the others get an empty object). Answers false, after
 * reporting part of the page, when the page needs rules the scanner does not model: the caller
 * then discards what it was told and parses the page with htmlparser2.
 */
export function scanHtml(html: string, handler: ScanHandler, wantsAttributes: ReadonlySet<string>): boolean {
  try {
    new Scan(html, handler, wantsAttributes).run();
    return true;
  } catch (err) {
    if (err instanceof Unmodelled) return false;
    throw err;
  }
}
