/**
 * The parser and link extractor (SPEC §2 item 9): one streaming pass of htmlparser2's SAX parser
 * over a decoded page collects the title, the visible text, `<base href>`, meta robots, the
 * canonical link, the declared language and every link with its anchor text and *extended anchor
 * text* — the N word tokens before and after the anchor in the visible text flow (N = 10 by
 * default, the window of the geographic-crawling paper, seed 003). No DOM, no script execution.
 *
 * The "after" window needs text that comes after the anchor: a link waits in a FIFO queue until N
 * more tokens have gone by (or the document ends), so the pass stays single.
 *
 * Rules where the spec is silent:
 * - Tokens are `[\p{L}\p{N}]+` runs, as everywhere in shoal. Inline elements do not split words
 *   (`foo<b>bar</b>` is one token, as rendered); block elements, `<br>` and the edges of a link do.
 *   The windows run across block boundaries and over the text of other links.
 * - Visible text leaves out the head, `<title>`, script, style, noscript, template, iframe,
 *   noembed, noframes and textarea contents, and image alt text; runs of white space become one
 *   space and block boundaries one newline.
 * - Links: `<a href>`, `<area href>`, `<frame src>`/`<iframe src>` (kind `frame`), `<link href>`
 *   with rel `alternate`, `next` or `prev` (kind `link`; `canonical` is reported on its own), and
 *   the target of `<meta http-equiv=refresh>` (kind `refresh`). Links inside `<template>` are
 *   inert and ignored; links inside `<noscript>` are kept (what a client without script follows).
 * - A link nested in an open link closes it first, as browsers do.
 * - `href` is the attribute value with entities decoded and leading/trailing spaces and control
 *   characters removed (as the URL parser does); resolution and normalization happen later,
 *   against `effectiveBase`.
 * - rel `nofollow`, `ugc` and `sponsored` all make `isNofollow` true; `rel` keeps the tokens.
 *
 * Length: past 600 lines because the two halves of the pass, the SAX handler (PageCollector) and
 * the text flow with its windows (TextFlow), share the link drafts, and a fifth of the file is the
 * documented result types. TextFlow is the part to move out first if either half grows.
 */
import { Parser } from 'htmlparser2';

/** Which element a link came from. */
export const HtmlLinkKind = {
  a: 'a',
  area: 'area',
  /** `<frame src>` or `<iframe src>`. */
  frame: 'frame',
  /** `<link rel="alternate|next|prev" href>`. */
  link: 'link',
  /** `<meta http-equiv="refresh" content="N; url=...">`. */
  refresh: 'refresh',
} as const;
export type HtmlLinkKind = (typeof HtmlLinkKind)[keyof typeof HtmlLinkKind];

/** Why a link was not reported (the labels of the skip counters). */
export const LinkSkipReason = {
  javascript: 'javascript',
  mailto: 'mailto',
  tel: 'tel',
  data: 'data',
  /** Empty href or src: the page itself. */
  empty: 'empty',
  /** A pure fragment (`#top`): a place in the page itself. */
  fragment: 'fragment',
  /** Past `maxLinks`. */
  limit: 'limit',
} as const;
export type LinkSkipReason = (typeof LinkSkipReason)[keyof typeof LinkSkipReason];

/** The word tokens around a link, each side joined by single spaces. */
export interface ExtendedAnchorText {
  readonly before: string;
  readonly after: string;
}

/** One link of a page, as written. */
export interface ExtractedLink {
  readonly kind: HtmlLinkKind;
  /** The raw target (entities decoded, spaces and controls at the ends removed); resolve against {@link ParsedPage.effectiveBase}. */
  readonly href: string;
  /** Text inside the link (image alt text included), white space collapsed; `alt` for `<area>`. */
  readonly anchorText: string;
  readonly extendedAnchorText: ExtendedAnchorText;
  /** Lowercase rel tokens as written. */
  readonly rel: readonly string[];
  /** Whether rel holds `nofollow`, `ugc` or `sponsored`. */
  readonly isNofollow: boolean;
  /** Index (UTF-16 units) of the element's `<` in the HTML. */
  readonly offset: number;
  /** Number of visible-text tokens before the element. */
  readonly tokenIndex: number;
}

/** Directives of the meta robots tags that apply to shoal (combined). */
export interface MetaRobots {
  readonly isNoindex: boolean;
  readonly isNofollow: boolean;
  readonly isNoarchive: boolean;
  readonly isNosnippet: boolean;
  /** Every directive token found, lowercase, once each. */
  readonly directives: readonly string[];
}

/** What one pass over a page yields. */
export interface ParsedPage {
  /** First `<title>`, white space collapsed ('' when none). */
  readonly title: string;
  readonly visibleText: string;
  /** Whether `visibleText` was cut at `maxTextChars`. */
  readonly isTextTruncated: boolean;
  /** Number of word tokens in the whole visible text (also past the cut). */
  readonly tokenCount: number;
  /** `<html lang>`, else the first `<meta http-equiv="content-language">` value, trimmed ('' when none). */
  readonly lang: string;
  /** The first `<base href>`, raw; null when none. */
  readonly baseHref: string | null;
  /** The page URL resolved against `baseHref` (a base that does not parse, or is data:/javascript:, is ignored). */
  readonly effectiveBase: string;
  /** The first `<link rel="canonical" href>`, raw; null when none. */
  readonly canonical: string | null;
  readonly robots: MetaRobots;
  /** Links in document order (duplicates kept). */
  readonly links: readonly ExtractedLink[];
  /** Links not reported, by reason. */
  readonly skipped: Readonly<Record<LinkSkipReason, number>>;
}

/** Options of {@link parseHtml}. */
export interface ParseHtmlOptions {
  /** Tokens on each side of a link in its extended anchor text. Default 10. */
  readonly anchorContextTokens?: number;
  /** Links reported at most; the rest count as skipped `limit`. Default 10,000. */
  readonly maxLinks?: number;
  /** Visible text kept at most, in UTF-16 units. Default 1,000,000. */
  readonly maxTextChars?: number;
  /** Meta names besides `robots` whose directives apply (agent-specific tags, e.g. `shoal`). Default none. */
  readonly robotsMetaNames?: readonly string[];
}

/** Default of {@link ParseHtmlOptions.anchorContextTokens} (seed 003). */
export const DEFAULT_ANCHOR_CONTEXT_TOKENS = 10;
/** Default of {@link ParseHtmlOptions.maxLinks}. */
export const DEFAULT_MAX_LINKS = 10_000;
/** Default of {@link ParseHtmlOptions.maxTextChars}. */
export const DEFAULT_MAX_TEXT_CHARS = 1_000_000;
/** Anchor and title text kept at most (an unclosed element can swallow the rest of a page). */
const MAX_SHORT_TEXT_CHARS = 2048;

/** The directive tokens of a robots meta `content` (or an X-Robots-Tag value): lowercase, split on commas and spaces. */
export function parseRobotsDirectives(content: string): string[] {
  return content.toLowerCase().split(/[\s,]+/).filter((t) => t !== '');
}

/** The meta robots summary of a set of directive tokens (`none` means noindex and nofollow). */
export function metaRobotsOf(directives: Iterable<string>): MetaRobots {
  const all = [...new Set(directives)];
  const has = (d: string): boolean => all.includes(d);
  return {
    isNoindex: has('noindex') || has('none'), isNofollow: has('nofollow') || has('none'),
    isNoarchive: has('noarchive'), isNosnippet: has('nosnippet'), directives: all,
  };
}

const SPACE_RUN = /\s+/g;
const NOT_SPACE = /\S/;
/** Leading or trailing C0 controls and spaces: what the URL parser strips from an href. */
const URL_EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const EMPTY: readonly string[] = Object.freeze([]);

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

/** Elements whose contents are not visible text (noscript is apart: its links and their text count). */
const HIDDEN = new Set(['script', 'style', 'template', 'iframe', 'noembed', 'noframes', 'textarea']);
/** Elements that may stay in the head; any other one ends it, as in the HTML tree builder. */
const HEAD_ELEMENTS = new Set(['html', 'head', 'title', 'meta', 'link', 'base', 'style', 'script', 'noscript', 'template', 'basefont', 'bgsound']);
/** Elements that start a new line of text (and so split words). */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'dialog', 'div',
  'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'main', 'menu', 'nav', 'ol', 'option', 'p', 'pre', 'section',
  'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);
const LINK_RELS = new Set(['alternate', 'next', 'prev']);
const NOFOLLOW_RELS = new Set(['nofollow', 'ugc', 'sponsored']);

/** A link being collected (mutable until the page ends). */
interface LinkDraft {
  kind: HtmlLinkKind;
  href: string;
  anchorText: string;
  extendedAnchorText: ExtendedAnchorText;
  rel: readonly string[];
  isNofollow: boolean;
  offset: number;
  tokenIndex: number;
}

/** A link waiting for the tokens after it. */
interface PendingLink {
  readonly link: LinkDraft;
  readonly before: string;
  /** Global index of the first token after the link. */
  readonly afterStart: number;
}

/**
 * The visible text flow: the text itself (collapsed, capped) and its word tokens, with the
 * windows of extended anchor text. Keeps only the tokens still needed by a window.
 */
class TextFlow {
  private readonly parts: string[] = [];
  private length = 0;
  isTruncated = false;
  /** Separator owed before the next text: 0 none, 1 space, 2 newline. */
  private owed = 0;
  /** A word at the end of the last chunk, which the next chunk may continue. */
  private partial = '';
  /** Tokens from global index `bufStart` on. */
  private buf: string[] = [];
  private bufStart = 0;
  count = 0;
  /** Links waiting for their after window, in order of `afterStart`. */
  private readonly pending: PendingLink[] = [];
  private pendingHead = 0;

  constructor(private readonly n: number, private readonly maxChars: number) {}

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
  awaitAfter(link: LinkDraft, before: string): void {
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

/** Collapses white space and trims. */
function collapse(text: string): string {
  return text.replace(SPACE_RUN, ' ').trim();
}

/** The scheme of an href as a browser reads it (tabs and newlines inside are ignored), lowercase, or ''. */
function schemeOf(href: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.\-\t\n\r]*):/.exec(href);
  return m === null ? '' : (m[1] as string).replace(/[\t\n\r]/g, '').toLowerCase();
}

const SKIPPED_SCHEMES: ReadonlyMap<string, LinkSkipReason> = new Map([
  ['javascript', LinkSkipReason.javascript], ['mailto', LinkSkipReason.mailto],
  ['tel', LinkSkipReason.tel], ['data', LinkSkipReason.data],
]);

/** Why `href` (trimmed) is not a link to follow, or null. */
function skipReasonOf(href: string): LinkSkipReason | null {
  if (href === '') return LinkSkipReason.empty;
  if (href.charCodeAt(0) === 35) return LinkSkipReason.fragment;
  return SKIPPED_SCHEMES.get(schemeOf(href)) ?? null;
}

/** The target of a meta refresh `content` (`5; url='x'`), or null. */
function refreshTarget(content: string): string | null {
  const m = /^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/is.exec(content);
  let target = (m?.[1] ?? '').trim();
  const q = target.charAt(0);
  if (q === '"' || q === "'") {
    const close = target.indexOf(q, 1);
    target = target.slice(1, close < 0 ? undefined : close);
  }
  return target === '' ? null : target;
}

/** Lowercase tokens of a rel attribute. */
function relTokens(rel: string | undefined): readonly string[] {
  if (rel === undefined) return EMPTY;
  const t = rel.toLowerCase().split(/[\t\n\f\r ]+/).filter((x) => x !== '');
  return t.length === 0 ? EMPTY : t;
}

/** The page URL resolved against `<base href>`, by the rules of the HTML standard's frozen base URL. */
function effectiveBaseOf(pageUrl: string, baseHref: string | null): string {
  let page: URL | undefined;
  try {
    page = new URL(pageUrl);
  } catch {
    page = undefined;
  }
  if (baseHref !== null) {
    try {
      const base = new URL(baseHref, page);
      if (base.protocol !== 'data:' && base.protocol !== 'javascript:') return base.href;
    } catch {
      // A base that does not parse is ignored (HTML: the fallback base URL applies).
    }
  }
  return page?.href ?? pageUrl;
}

/** The handler state of one pass. */
class PageCollector {
  readonly flow: TextFlow;
  readonly links: LinkDraft[] = [];
  readonly skipped: Record<LinkSkipReason, number> = { javascript: 0, mailto: 0, tel: 0, data: 0, empty: 0, fragment: 0, limit: 0 };
  readonly robots: string[] = [];
  title = '';
  private titleDepth = 0;
  private isTitleDone = false;
  lang = '';
  contentLanguage = '';
  baseHref: string | null = null;
  canonical: string | null = null;
  private hiddenDepth = 0;
  private noscriptDepth = 0;
  private templateDepth = 0;
  private foreignDepth = 0;
  private isInHead = false;
  /** Open `<a>` elements (htmlparser2's count) and the link being collected, with its depth. */
  private anchorDepth = 0;
  private anchor: { link: LinkDraft | null; depth: number; text: string; before: string } | null = null;
  parser: Parser | null = null;

  constructor(n: number, private readonly maxLinks: number, maxChars: number, private readonly robotsNames: ReadonlySet<string>) {
    this.flow = new TextFlow(n, maxChars);
  }

  onopentag(name: string, attrs: Record<string, string>): void {
    if (this.isInHead && !HEAD_ELEMENTS.has(name)) this.isInHead = false;
    if (BLOCKS.has(name)) this.flow.block();
    switch (name) {
      case 'a': this.openAnchor(attrs); break;
      case 'img':
        if (this.anchor !== null && attrs.alt !== undefined) this.anchor.text += ` ${attrs.alt} `;
        break;
      case 'area': this.voidLink(HtmlLinkKind.area, attrs.href, attrs.alt ?? '', relTokens(attrs.rel)); break;
      case 'frame': case 'iframe': this.voidLink(HtmlLinkKind.frame, attrs.src, '', EMPTY); break;
      case 'link': this.linkElement(attrs); break;
      case 'meta': this.meta(attrs); break;
      case 'base':
        if (this.baseHref === null && attrs.href !== undefined) this.baseHref = attrs.href;
        break;
      case 'html':
        if (this.lang === '' && attrs.lang !== undefined) this.lang = attrs.lang.trim();
        break;
      case 'head': this.isInHead = true; break;
      case 'title': this.titleDepth++; break;
      case 'noscript': this.noscriptDepth++; break;
      case 'svg': case 'math': this.foreignDepth++; break;
      default: break;
    }
    if (HIDDEN.has(name)) this.hiddenDepth++;
    if (name === 'template') this.templateDepth++;
  }

  onclosetag(name: string): void {
    if (HIDDEN.has(name)) this.hiddenDepth = Math.max(0, this.hiddenDepth - 1);
    switch (name) {
      case 'a':
        this.anchorDepth = Math.max(0, this.anchorDepth - 1);
        if (this.anchor !== null && this.anchorDepth < this.anchor.depth) this.closeAnchor();
        break;
      case 'head': this.isInHead = false; break;
      case 'title':
        this.titleDepth = Math.max(0, this.titleDepth - 1);
        if (this.title !== '') this.isTitleDone = true;
        break;
      case 'template': this.templateDepth = Math.max(0, this.templateDepth - 1); break;
      case 'noscript': this.noscriptDepth = Math.max(0, this.noscriptDepth - 1); break;
      case 'svg': case 'math': this.foreignDepth = Math.max(0, this.foreignDepth - 1); break;
      default: break;
    }
    if (BLOCKS.has(name)) this.flow.block();
  }

  ontext(data: string): void {
    if (this.titleDepth > 0) {
      if (!this.isTitleDone && this.foreignDepth === 0 && this.title.length < MAX_SHORT_TEXT_CHARS) this.title += data;
      return;
    }
    if (this.hiddenDepth > 0) return;
    if (this.anchor !== null && this.anchor.text.length < MAX_SHORT_TEXT_CHARS) this.anchor.text += data;
    if (this.noscriptDepth > 0) return;
    if (this.isInHead) {
      if (!NOT_SPACE.test(data)) return;
      this.isInHead = false; // text ends the head, as in the HTML tree builder
    }
    this.flow.text(data);
  }

  /** Settles everything still open at the end of the document. */
  end(): void {
    if (this.anchor !== null) this.closeAnchor();
  }

  private offset(): number {
    return this.parser?.startIndex ?? 0;
  }

  /** A new link draft, or null when skipped (counted). */
  private draft(kind: HtmlLinkKind, rawHref: string | undefined, rel: readonly string[]): LinkDraft | null {
    if (rawHref === undefined || this.templateDepth > 0) return null;
    const href = rawHref.replace(URL_EDGES, '');
    const reason = skipReasonOf(href);
    if (reason !== null) {
      this.skipped[reason]++;
      return null;
    }
    if (this.links.length >= this.maxLinks) {
      this.skipped.limit++;
      return null;
    }
    let isNofollow = false;
    for (const r of rel) if (NOFOLLOW_RELS.has(r)) isNofollow = true;
    const link: LinkDraft = {
      kind, href, anchorText: '', extendedAnchorText: { before: '', after: '' }, rel, isNofollow,
      offset: this.offset(), tokenIndex: this.flow.count,
    };
    this.links.push(link);
    return link;
  }

  private openAnchor(attrs: Record<string, string>): void {
    this.anchorDepth++;
    // A link inside an open link: the outer one ends here (browsers close it).
    if (this.anchor !== null) this.closeAnchor();
    if (attrs.href === undefined) return;
    this.flow.flushWord();
    const link = this.draft(HtmlLinkKind.a, attrs.href, relTokens(attrs.rel));
    this.anchor = { link, depth: this.anchorDepth, text: '', before: link === null ? '' : this.flow.before() };
  }

  private closeAnchor(): void {
    const a = this.anchor;
    if (a === null) return;
    this.anchor = null;
    this.flow.flushWord();
    if (a.link === null) return;
    a.link.anchorText = collapse(a.text).slice(0, MAX_SHORT_TEXT_CHARS);
    this.flow.awaitAfter(a.link, a.before);
  }

  private voidLink(kind: HtmlLinkKind, href: string | undefined, text: string, rel: readonly string[]): void {
    if (href === undefined) return;
    this.flow.flushWord();
    const link = this.draft(kind, href, rel);
    if (link === null) return;
    link.anchorText = collapse(text).slice(0, MAX_SHORT_TEXT_CHARS);
    this.flow.awaitAfter(link, this.flow.before());
  }

  private linkElement(attrs: Record<string, string>): void {
    const rel = relTokens(attrs.rel);
    if (rel.length === 0 || attrs.href === undefined) return;
    if (rel.includes('canonical')) {
      if (this.canonical === null) this.canonical = attrs.href.replace(URL_EDGES, '');
      return;
    }
    if (rel.includes('stylesheet') || !rel.some((r) => LINK_RELS.has(r))) return;
    this.voidLink(HtmlLinkKind.link, attrs.href, attrs.title ?? '', rel);
  }

  private meta(attrs: Record<string, string>): void {
    const content = attrs.content;
    if (content === undefined) return;
    const name = attrs.name?.trim().toLowerCase();
    if (name !== undefined && (name === 'robots' || this.robotsNames.has(name))) {
      this.robots.push(...parseRobotsDirectives(content));
      return;
    }
    const equiv = attrs['http-equiv']?.trim().toLowerCase();
    if (equiv === 'refresh') {
      const target = refreshTarget(content);
      if (target !== null) this.voidLink(HtmlLinkKind.refresh, target, '', EMPTY);
    } else if (equiv === 'content-language' && this.contentLanguage === '') {
      this.contentLanguage = (content.split(',')[0] ?? '').trim();
    }
  }
}

/**
 * Parses one decoded HTML page in a single streaming pass. `pageUrl` is the URL the page was
 * fetched from (after redirects); it is only used to compute `effectiveBase`. Forgiving of broken
 * HTML (unclosed and misnested tags, unquoted attributes, stray `<`): it never throws.
 */
export function parseHtml(html: string, pageUrl: string, options: ParseHtmlOptions = {}): ParsedPage {
  const count = (v: number | undefined, fallback: number): number =>
    (v === undefined || Number.isNaN(v) ? fallback : Math.max(0, Math.floor(v)));
  const n = count(options.anchorContextTokens, DEFAULT_ANCHOR_CONTEXT_TOKENS);
  const maxLinks = count(options.maxLinks, DEFAULT_MAX_LINKS);
  const maxChars = count(options.maxTextChars, DEFAULT_MAX_TEXT_CHARS);
  const names = new Set((options.robotsMetaNames ?? []).map((s) => s.trim().toLowerCase()));
  const c = new PageCollector(n, maxLinks, maxChars, names);
  const parser = new Parser({
    onopentag: (name, attrs) => c.onopentag(name, attrs),
    onclosetag: (name) => c.onclosetag(name),
    ontext: (data) => c.ontext(data),
  }, { decodeEntities: true });
  c.parser = parser;
  parser.end(html);
  c.end();
  const visibleText = c.flow.finish();
  const links: readonly ExtractedLink[] = c.links;
  return {
    title: collapse(c.title).slice(0, MAX_SHORT_TEXT_CHARS), visibleText, isTextTruncated: c.flow.isTruncated,
    tokenCount: c.flow.count, lang: c.lang !== '' ? c.lang : c.contentLanguage, baseHref: c.baseHref,
    effectiveBase: effectiveBaseOf(pageUrl, c.baseHref), canonical: c.canonical,
    robots: metaRobotsOf(c.robots), links, skipped: c.skipped,
  };
}
