/**
 * What a node learns from the bytes of one HTML page (SPEC §2 item 9): charset → decode → parse →
 * language → SimHash and text digest, and the page's links normalized against its effective base.
 *
 * A pure function of its input, with no collaborators and no I/O, so that it can run in an analysis
 * worker (`analysis-worker.ts`) as well as in the node's own thread: its input and its result are
 * plain data that cross a thread boundary by structured clone. Everything the node decides from the
 * result (dedup, admission, records) stays with the node.
 */
import { detach } from '../core/strings.js';
import { simhash } from '../dedup/simhash.js';
import { textDigest } from '../dedup/content-digest.js';
import { decodeHtml, detectCharset } from './charset.js';
import { parseHtml, type HtmlLinkKind } from './html-page.js';
import { detectLanguage } from './language.js';
import { normalizeUrl, type NormalizeOptions, type NormalizeResult } from '../url/normalize.js';
import type { TopicLabel, TopicLabeler } from '../classify/topic-labeler.js';

/** Parser limits of an analysis (the `parse` options of the crawl configuration). */
export interface PageAnalysisOptions {
  readonly anchorContextTokens: number;
  readonly maxLinks: number;
  readonly maxTextChars: number;
  /** The crawl's optional normalization rules for links and the canonical link; default none. */
  readonly normalize?: NormalizeOptions;
}

/** One page to analyse. */
export interface PageAnalysisInput {
  readonly url: string;
  /** The body after content decoding. */
  readonly body: Uint8Array;
  /** The response's `Content-Type` value, for its charset parameter. */
  readonly contentType: string | undefined;
  /**
   * Whether the visible text is returned (`visibleText`); default true. The language, SimHash and
   * text digest are computed from it either way. A crawl whose ordering policy and partitioner read
   * no page text leaves it in the worker: a page's text is often most of what would cross threads.
   */
  readonly wantsText?: boolean;
  /**
   * Whether each link's extended anchor text (`before`, `after`) is computed; default true. When
   * false both are '' and the parser keeps no window of words. Nothing a crawl writes holds them:
   * only ordering policies and partitioners read them, and on link-heavy pages they are a real share
   * of an analysis (docs/benchmarks.md, `bench:peers`).
   */
  readonly wantsAnchorContext?: boolean;
  /**
   * Whether the caller gives the body's memory up, all of its ArrayBuffer (default false): an
   * analyzer in another thread may then move that memory there rather than copy the body, and the
   * caller must not read the body afterwards. A crawl gives up a decoded body of its own once
   * nothing else reads it (its WARC record holds the body as received).
   */
  readonly isBodyGiven?: boolean;
}

/** One link of a fetched page, as the analysis finds it and the link graph keeps it. */
export interface GraphLink {
  /** Normalized absolute target URL. */
  readonly url: string;
  readonly kind: HtmlLinkKind | 'redirect';
  readonly anchorText: string;
  /** Extended anchor text: the words before and after the link. */
  readonly before: string;
  readonly after: string;
  /** rel=nofollow (or ugc, sponsored) on the link, or meta robots nofollow on the page. */
  readonly isNofollow: boolean;
}

/** What an analysis yields: plain data (strings, numbers, arrays), cloneable across threads. */
export interface PageAnalysis {
  readonly charset: string;
  /** ISO 639-1 code, '' when unknown. */
  readonly language: string;
  /** 64-bit SimHash of the visible text, 16 hex digits. */
  readonly simhash: string;
  readonly textDigest: string;
  readonly title: string;
  /** The page's visible text; '' when the input did not want it. */
  readonly visibleText: string;
  /** Meta robots directives found (lowercase, once each). */
  readonly robotsDirectives: readonly string[];
  readonly isNoindex: boolean;
  readonly isNofollow: boolean;
  /** `<link rel=canonical>` normalized against the effective base; null when absent or invalid. */
  readonly canonical: string | null;
  /** The links that normalized, in document order; `isNofollow` also holds for a nofollow page. */
  readonly links: readonly GraphLink[];
  /** Host name (no port) of each of `links`, as normalization returned it. */
  readonly hostnames: readonly string[];
  /** Links the parser reported (valid or not). */
  readonly found: number;
  /** Reported links that did not normalize. */
  readonly invalid: number;
  /** Reported links that carry rel=nofollow (or ugc, sponsored) themselves. */
  readonly nofollow: number;
  /** The page's topic (the X4 pipeline, `classify/topic-labeler.ts`); null when no labeler ran. */
  readonly topic: TopicLabel | null;
}

/**
 * Analyses one HTML page, and gives it a topic when a `labeler` is given (from the visible text, the
 * title and the language found here); never throws on any bytes (a bug aside).
 */
export function analyzePage(input: PageAnalysisInput, options: PageAnalysisOptions, labeler: TopicLabeler | null = null): PageAnalysis {
  const body = Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const charset = detectCharset(body, input.contentType);
  const parseOptions = input.wantsAnchorContext === false ? { ...options, anchorContextTokens: 0 } : options;
  const page = parseHtml(decodeHtml(body, charset.charset), input.url, parseOptions);
  const language = detectLanguage(page.visibleText, page.lang);
  const links: GraphLink[] = [];
  const hostnames: string[] = [];
  let invalid = 0;
  let nofollow = 0;
  // A page links to the same targets many times (and to places in them: `x.html#m1`, `x.html#m2`),
  // and parsing a URL is a real share of an analysis: each target up to its `#` is normalized once
  // (the fragment never changes the rest of the URL, and normalization drops it).
  const normalized = new Map<string, NormalizeResult>();
  for (const l of page.links) {
    if (l.isNofollow) nofollow++;
    const hash = l.href.indexOf('#');
    const target = hash < 0 ? l.href : l.href.slice(0, hash);
    let n = normalized.get(target);
    if (n === undefined) {
      n = normalizeUrl(target, page.effectiveBase, options.normalize);
      normalized.set(target, n);
    }
    if (n.kind !== 'ok') {
      invalid++;
      continue;
    }
    links.push({
      url: n.url,
      kind: l.kind,
      anchorText: l.anchorText,
      before: l.extendedAnchorText.before,
      after: l.extendedAnchorText.after,
      isNofollow: l.isNofollow || page.robots.isNofollow,
    });
    hostnames.push(n.host);
  }
  const canonical = page.canonical === null ? null : normalizeUrl(page.canonical, page.effectiveBase, options.normalize);
  return {
    charset: charset.charset,
    language: language.code,
    simhash: simhash(page.visibleText).toString(16).padStart(16, '0'),
    textDigest: textDigest(page.visibleText),
    title: page.title,
    visibleText: input.wantsText === false ? '' : page.visibleText,
    robotsDirectives: page.robots.directives,
    isNoindex: page.robots.isNoindex,
    isNofollow: page.robots.isNofollow,
    canonical: canonical?.kind === 'ok' ? canonical.url : null,
    links,
    hostnames,
    found: page.links.length,
    invalid,
    nofollow,
    topic: labeler === null ? null : labeler.label({ title: page.title, text: page.visibleText, language: language.code }),
  };
}

/**
 * `a` with every text cut from the page copied into a string of its own: the title, the visible
 * text and each link's anchor text and extended anchor text. An analysis in the caller's thread
 * returns slices of the page's decoded text (V8 keeps a slice of 13 or more characters as a view of
 * its parent), so any one of them kept while the page waits to be stored keeps the whole page; a
 * site of 8 MB pages fetched 64 at a time held 200 MB of page text that way. URLs and host names
 * come from the URL parser and are the page's own already. A worker's analysis needs none of this:
 * it comes back packed and is decoded string by string.
 */
export function detachedFromPage(a: PageAnalysis): PageAnalysis {
  return {
    ...a,
    title: detach(a.title),
    visibleText: detach(a.visibleText),
    links: a.links.map((l) => ({ ...l, anchorText: detach(l.anchorText), before: detach(l.before), after: detach(l.after) })),
  };
}
