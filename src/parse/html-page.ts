/**
 * The parser and link extractor (SPEC §2 item 9): one pass over a decoded page collects the
 * title, the visible text, `<base href>`, meta robots, the canonical link, the declared language
 * and every link with its anchor text and *extended anchor text* — the N word tokens before and
 * after the anchor in the visible text flow (N = 10 by default, the window of the
 * geographic-crawling paper, seed 003). No DOM, no script execution.
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
 * The pass is html-scanner.ts, a lean scanner that reports what htmlparser2's SAX parser would; a
 * page it does not model (`<plaintext>`, a document cut inside a tag) goes to htmlparser2 instead,
 * which is also the scanner's oracle in the tests (`engine: 'htmlparser2'` parses with it alone).
 * This file holds their shared callbacks (PageCollector) and the ParsedPage assembly; the text flow
 * and its windows are in text-flow.ts, the meta robots directives in meta-robots.ts.
 */
import { Parser } from 'htmlparser2';
import { scanHtml, type ScanPosition } from './html-scanner.js';
import { metaRobotsOf, parseRobotsDirectives, type MetaRobots } from './meta-robots.js';
import { TextFlow, collapse, type ExtendedAnchorText } from './text-flow.js';

/** Re-exported: the meta robots vocabulary (declared in meta-robots.ts) is part of this module's API. */
export { metaRobotsOf, parseRobotsDirectives, type MetaRobots } from './meta-robots.js';
/** Re-exported: the extended anchor text type (declared in text-flow.ts) is part of {@link ExtractedLink}. */
export type { ExtendedAnchorText } from './text-flow.js';

/** Media types read as HTML pages (a response without a Content-Type is read as HTML too). */
export const HTML_MEDIA_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

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
  /**
   * What reads the HTML: `scanner` (default), html-scanner.ts, which hands a page it does not model
   * to htmlparser2; or `htmlparser2` for every page (the scanner's oracle).
   */
  readonly engine?: 'scanner' | 'htmlparser2';
}

/** Default of {@link ParseHtmlOptions.anchorContextTokens} (seed 003). */
export const DEFAULT_ANCHOR_CONTEXT_TOKENS = 10;
/** Default of {@link ParseHtmlOptions.maxLinks}. */
export const DEFAULT_MAX_LINKS = 10_000;
/** Default of {@link ParseHtmlOptions.maxTextChars}. */
export const DEFAULT_MAX_TEXT_CHARS = 1_000_000;
/** Anchor and title text kept at most (an unclosed element can swallow the rest of a page). */
const MAX_SHORT_TEXT_CHARS = 2048;

const NOT_SPACE = /\S/;
/** Leading or trailing C0 controls and spaces: what the URL parser strips from an href. */
const URL_EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const EMPTY: readonly string[] = Object.freeze([]);

/** Elements whose contents are not visible text (noscript is apart: its links and their text count). */
const HIDDEN = ['script', 'style', 'template', 'iframe', 'noembed', 'noframes', 'textarea'];
/** Elements that may stay in the head; any other one ends it, as in the HTML tree builder. */
const HEAD_ELEMENTS = ['html', 'head', 'title', 'meta', 'link', 'base', 'style', 'script', 'noscript', 'template', 'basefont', 'bgsound'];
/** Elements that start a new line of text (and so split words). */
const BLOCKS = [
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
];
/** Elements with a case of their own in the tag handlers below. */
const HANDLED = [
  'a',
  'img',
  'area',
  'frame',
  'iframe',
  'link',
  'meta',
  'base',
  'html',
  'head',
  'title',
  'noscript',
  'svg',
  'math',
  'template',
];

/** Bits of {@link TAG_FLAGS}. */
const IS_HIDDEN = 1;
const IS_HEAD_ELEMENT = 2;
const IS_BLOCK = 4;
const IS_HANDLED = 8;
/** What the handlers need to know of an element, in one lookup per tag (four set lookups cost more). */
const TAG_FLAGS: ReadonlyMap<string, number> = (() => {
  const flags = new Map<string, number>();
  const mark = (names: readonly string[], bit: number): void => {
    for (const name of names) flags.set(name, (flags.get(name) ?? 0) | bit);
  };
  mark(HIDDEN, IS_HIDDEN);
  mark(HEAD_ELEMENTS, IS_HEAD_ELEMENT);
  mark(BLOCKS, IS_BLOCK);
  mark(HANDLED, IS_HANDLED);
  return flags;
})();
/** Elements whose attributes the collector reads: the scanner makes strings of no others. */
const ATTRIBUTES_READ: ReadonlySet<string> = new Set(HANDLED);
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

/** `href` without leading and trailing C0 controls and spaces (most have none: no regex then). */
function trimUrl(href: string): string {
  return href.length > 0 && href.charCodeAt(0) > 0x20 && href.charCodeAt(href.length - 1) > 0x20 ? href : href.replace(URL_EDGES, '');
}

/** Whether code unit `c` may stand in a scheme as a browser reads it (tabs and newlines are ignored there). */
function isSchemeChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2e ||
    c === 0x2d ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d
  );
}

/**
 * The scheme of an href as a browser reads it (tabs and newlines inside are ignored), lowercase, or
 * '': what `/^([a-zA-Z][a-zA-Z0-9+.\-\t\n\r]*):/` captures, without the regex. Only schemes that
 * may be skipped are made into strings (the first letter says): '' for the others, `http` and
 * `https` among them.
 */
function skippableSchemeOf(href: string): string {
  const first = href.charCodeAt(0) | 0x20;
  if (first !== 0x6a /* j */ && first !== 0x6d /* m */ && first !== 0x74 /* t */ && first !== 0x64 /* d */) return '';
  let i = 1;
  while (i < href.length && isSchemeChar(href.charCodeAt(i))) i++;
  if (href.charCodeAt(i) !== 0x3a) return '';
  return href
    .slice(0, i)
    .replace(/[\t\n\r]/g, '')
    .toLowerCase();
}

const SKIPPED_SCHEMES: ReadonlyMap<string, LinkSkipReason> = new Map([
  ['javascript', LinkSkipReason.javascript],
  ['mailto', LinkSkipReason.mailto],
  ['tel', LinkSkipReason.tel],
  ['data', LinkSkipReason.data],
]);

/** Why `href` (trimmed) is not a link to follow, or null. */
function skipReasonOf(href: string): LinkSkipReason | null {
  if (href === '') return LinkSkipReason.empty;
  if (href.charCodeAt(0) === 35) return LinkSkipReason.fragment;
  return SKIPPED_SCHEMES.get(skippableSchemeOf(href)) ?? null;
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
  const t = rel
    .toLowerCase()
    .split(/[\t\n\f\r ]+/)
    .filter((x) => x !== '');
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
  private position: ScanPosition | null = null;

  constructor(
    n: number,
    private readonly maxLinks: number,
    maxChars: number,
    private readonly robotsNames: ReadonlySet<string>,
  ) {
    this.flow = new TextFlow(n, maxChars);
  }

  /** The scanner (or htmlparser2's parser) hands over itself first: the collector is the handler object itself. */
  onparserinit(position: ScanPosition): void {
    this.position = position;
  }

  onopentag(name: string, attrs: Record<string, string>): void {
    const flags = TAG_FLAGS.get(name) ?? 0;
    if (this.isInHead && (flags & IS_HEAD_ELEMENT) === 0) this.isInHead = false;
    if ((flags & IS_BLOCK) !== 0) this.flow.block();
    if ((flags & IS_HANDLED) !== 0) this.openHandled(name, attrs);
    if ((flags & IS_HIDDEN) !== 0) this.hiddenDepth++;
  }

  onclosetag(name: string): void {
    const flags = TAG_FLAGS.get(name) ?? 0;
    if ((flags & IS_HIDDEN) !== 0) this.hiddenDepth = Math.max(0, this.hiddenDepth - 1);
    if ((flags & IS_HANDLED) !== 0) this.closeHandled(name);
    if ((flags & IS_BLOCK) !== 0) this.flow.block();
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

  private openHandled(name: string, attrs: Record<string, string>): void {
    switch (name) {
      case 'a':
        this.openAnchor(attrs);
        break;
      case 'img':
        if (this.anchor !== null && attrs.alt !== undefined) this.anchor.text += ` ${attrs.alt} `;
        break;
      case 'area':
        this.voidLink(HtmlLinkKind.area, attrs.href, attrs.alt ?? '', relTokens(attrs.rel));
        break;
      case 'frame':
      case 'iframe':
        this.voidLink(HtmlLinkKind.frame, attrs.src, '', EMPTY);
        break;
      case 'link':
        this.linkElement(attrs);
        break;
      case 'meta':
        this.meta(attrs);
        break;
      case 'base':
        if (this.baseHref === null && attrs.href !== undefined) this.baseHref = attrs.href;
        break;
      case 'html':
        if (this.lang === '' && attrs.lang !== undefined) this.lang = attrs.lang.trim();
        break;
      case 'head':
        this.isInHead = true;
        break;
      case 'title':
        this.titleDepth++;
        break;
      case 'noscript':
        this.noscriptDepth++;
        break;
      case 'svg':
      case 'math':
        this.foreignDepth++;
        break;
      case 'template':
        this.templateDepth++;
        break;
      default:
        break;
    }
  }

  private closeHandled(name: string): void {
    switch (name) {
      case 'a':
        this.anchorDepth = Math.max(0, this.anchorDepth - 1);
        if (this.anchor !== null && this.anchorDepth < this.anchor.depth) this.closeAnchor();
        break;
      case 'head':
        this.isInHead = false;
        break;
      case 'title':
        this.titleDepth = Math.max(0, this.titleDepth - 1);
        if (this.title !== '') this.isTitleDone = true;
        break;
      case 'template':
        this.templateDepth = Math.max(0, this.templateDepth - 1);
        break;
      case 'noscript':
        this.noscriptDepth = Math.max(0, this.noscriptDepth - 1);
        break;
      case 'svg':
      case 'math':
        this.foreignDepth = Math.max(0, this.foreignDepth - 1);
        break;
      default:
        break;
    }
  }

  private offset(): number {
    return this.position?.startIndex ?? 0;
  }

  /** A new link draft, or null when skipped (counted). */
  private draft(kind: HtmlLinkKind, rawHref: string | undefined, rel: readonly string[]): LinkDraft | null {
    if (rawHref === undefined || this.templateDepth > 0) return null;
    const href = trimUrl(rawHref);
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
      kind,
      href,
      anchorText: '',
      extendedAnchorText: { before: '', after: '' },
      rel,
      isNofollow,
      offset: this.offset(),
      tokenIndex: this.flow.count,
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
      if (this.canonical === null) this.canonical = trimUrl(attrs.href);
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

/** A count option: a whole number of at least 0, or `fallback` when not given. */
function countOption(v: number | undefined, fallback: number): number {
  return v === undefined || Number.isNaN(v) ? fallback : Math.max(0, Math.floor(v));
}

/** No meta names besides `robots` (the default): one set for every page. */
const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Parses one decoded HTML page in a single streaming pass. `pageUrl` is the URL the page was
 * fetched from (after redirects); it is only used to compute `effectiveBase`. Forgiving of broken
 * HTML (unclosed and misnested tags, unquoted attributes, stray `<`): it never throws.
 */
export function parseHtml(html: string, pageUrl: string, options: ParseHtmlOptions = {}): ParsedPage {
  const n = countOption(options.anchorContextTokens, DEFAULT_ANCHOR_CONTEXT_TOKENS);
  const maxLinks = countOption(options.maxLinks, DEFAULT_MAX_LINKS);
  const maxChars = countOption(options.maxTextChars, DEFAULT_MAX_TEXT_CHARS);
  const names =
    options.robotsMetaNames === undefined || options.robotsMetaNames.length === 0
      ? NO_NAMES
      : new Set(options.robotsMetaNames.map((s) => s.trim().toLowerCase()));
  let c = new PageCollector(n, maxLinks, maxChars, names);
  if (options.engine === 'htmlparser2' || !scanHtml(html, c, ATTRIBUTES_READ)) {
    c = new PageCollector(n, maxLinks, maxChars, names);
    new Parser(c, { decodeEntities: true }).end(html);
  }
  c.end();
  const visibleText = c.flow.finish();
  const links: readonly ExtractedLink[] = c.links;
  return {
    title: collapse(c.title).slice(0, MAX_SHORT_TEXT_CHARS),
    visibleText,
    isTextTruncated: c.flow.isTruncated,
    tokenCount: c.flow.count,
    lang: c.lang !== '' ? c.lang : c.contentLanguage,
    baseHref: c.baseHref,
    effectiveBase: effectiveBaseOf(pageUrl, c.baseHref),
    canonical: c.canonical,
    robots: metaRobotsOf(c.robots),
    links,
    skipped: c.skipped,
  };
}
