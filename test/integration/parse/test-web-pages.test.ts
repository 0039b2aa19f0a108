/**
 * The parser on test-web pages exactly as the server sends them (bytes and Content-Type from
 * `encodePage`), against the model's truth: charset, title, links (count, order, nofollow, targets
 * through `<base href>`), meta robots, canonical, and the language.
 *
 * Every `<a>` of a content page is the header's home link, one per `pageLinks` entry (navigation
 * first, then the content links in order), and, on some pages of trap hosts, a footer link into
 * the trap. Language agreement is measured from the text alone (the pages declare their true
 * language in `<html lang>`, which would make the hint a give-away), on pages with more than 100
 * words; it measured 530 of 530 pages (100%) on this sample, 10 languages.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { detectCharset, decodeHtml, normalizeCharsetLabel, type DetectedCharset } from '../../../src/parse/charset.js';
import { parseHtml, type ParsedPage } from '../../../src/parse/html-page.js';
import { detectLanguage } from '../../../src/parse/language.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { pageLinks } from '../../../src/web/links.js';
import { PageFlag, PageKind, WebModel } from '../../../src/web/model.js';
import { pageCharset, pageTitle } from '../../../src/web/render.js';
import { encodePage } from '../../../src/web/respond.js';
import { languageVocab } from '../../../src/web/vocab.js';

const PORT = 8080;
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'pl', 'ru'] as const;
const CONFIG = {
  seed: 6,
  hosts: 40,
  pages: 4000,
  server: { addressCount: 4 },
  duplicates: { mirrorHostRate: 0.1, nearDuplicateRate: 0.05 },
  // Every language, legacy charsets, BOMs and undeclared pages; more flagged pages than by default.
  languages: { weights: Object.fromEntries(LANGS.map((l) => [l, 0.1])), legacyCharsetRate: 0.5, bomRate: 0.2, undeclaredRate: 0.1 },
  meta: { noindexRate: 0.1, nofollowRate: 0.1, baseHrefRate: 0.15 },
  links: { nofollowRate: 0.1 },
} satisfies WebConfigInput;
/** Every SAMPLE_STEP-th page that serves content: a few hundred, spread over every host. */
const SAMPLE_STEP = 8;

interface Parsed {
  readonly g: number;
  readonly charset: DetectedCharset;
  readonly html: string;
  readonly page: ParsedPage;
}

let model: WebModel;
let sample: Parsed[] = [];
const flagsOf = (g: number): number => model.pageFlags[model.contentId(g)] as number;
const hasFlag = (g: number, flag: number): boolean => (flagsOf(g) & flag) !== 0;

/** The page an absolute URL names in the model (escapes undone, fragment dropped), or -1. */
function pageOfUrl(url: URL): number {
  const h = model.hostByName(url.hostname);
  if (h === undefined || url.search !== '') return -1;
  const { page, slashless } = model.pageAtPath(h, decodeURIComponent(url.pathname));
  return slashless ? -1 : page;
}

before(() => {
  model = new WebModel(CONFIG);
  const served: number[] = [];
  for (let g = 0; g < model.pageCount; g++) {
    const kind = model.pageKind[g];
    if (kind === PageKind.ok || kind === PageKind.nearDuplicate) served.push(g);
  }
  sample = served
    .filter((_, i) => i % SAMPLE_STEP === 0)
    .map((g) => {
      const { body, contentType } = encodePage(model, g, PORT);
      const charset = detectCharset(body, contentType);
      const html = decodeHtml(body, charset.charset);
      return { g, charset, html, page: parseHtml(html, model.url(g, PORT)) };
    });
});

describe('the parser on test-web pages', () => {
  test('the sample holds every case this test checks', () => {
    assert.ok(sample.length >= 400, `${sample.length} pages`);
    const count = (pred: (p: Parsed) => boolean): number => sample.filter(pred).length;
    const sources = new Set(sample.map((p) => p.charset.source));
    assert.deepEqual([...sources].sort(), ['bom', 'default', 'header', 'meta']);
    assert.ok(new Set(sample.map((p) => p.charset.charset)).size >= 6, 'several legacy charsets');
    assert.ok(count((p) => hasFlag(p.g, PageFlag.legacyCharset)) >= 50);
    for (const flag of [PageFlag.noindex, PageFlag.nofollow, PageFlag.baseHref]) {
      assert.ok(count((p) => hasFlag(p.g, flag)) >= 10, `flag ${flag}`);
    }
    assert.ok(count((p) => p.page.canonical !== null) >= 3, 'canonical near-duplicates');
    assert.ok(count((p) => model.contentId(p.g) !== p.g) >= 20, 'mirror pages');
    assert.ok(count((p) => p.page.links.some((l) => l.isNofollow)) >= 50, 'pages with nofollow links');
    assert.equal(new Set(sample.map((p) => model.langOf(p.g))).size, LANGS.length);
  });

  test('the charset is found where the page declares it and decodes without a replacement character', () => {
    for (const { g, charset, html } of sample) {
      const lang = model.langOf(g);
      const truth = pageCharset(model, model.contentId(g), languageVocab(lang));
      const expected = truth.hasBom
        ? { charset: 'utf-8', source: 'bom' }
        : truth.charset === ''
          ? { charset: 'utf-8', source: 'default' }
          : { charset: normalizeCharsetLabel(truth.charset), source: truth.isCharsetInHeader ? 'header' : 'meta' };
      assert.deepEqual(charset, expected, `${model.url(g, PORT)} (${lang})`);
      assert.ok(!html.includes('\uFFFD'), `${model.url(g, PORT)}: U+FFFD in ${charset.charset}`);
    }
  });

  test("the title is the model's", () => {
    for (const { g, page } of sample) assert.equal(page.title, pageTitle(model, g), model.url(g, PORT));
  });

  test('every <a> is found, in order, with its nofollow and its target', () => {
    let links = 0;
    for (const { g, page } of sample) {
      const url = model.url(g, PORT);
      const truth = pageLinks(model, g);
      const anchors = page.links.filter((l) => l.kind === 'a');
      const hasTrapLink = hasFlag(g, PageFlag.trapLink) && model.hostOf(g).trap !== null;
      assert.equal(anchors.length, truth.length + 1 + (hasTrapLink ? 1 : 0), url);
      assert.equal(page.links.length, anchors.length, `${url}: only <a> links`);
      assert.deepEqual(page.skipped, { javascript: 0, mailto: 0, tel: 0, data: 0, empty: 0, fragment: 0, limit: 0 });
      const home = new URL(anchors[0]?.href as string, page.effectiveBase);
      assert.equal(pageOfUrl(home), model.hostOf(g).firstPage, `${url}: header link`);
      truth.forEach((l, i) => {
        const a = anchors[i + 1];
        assert.ok(a !== undefined);
        assert.equal(a.isNofollow, l.isNofollow, `${url} link ${i}`);
        assert.equal(pageOfUrl(new URL(a.href, page.effectiveBase)), l.target, `${url} link ${i}: ${a.href}`);
        assert.notEqual(a.anchorText, '', `${url} link ${i}: anchor text`);
        links++;
      });
    }
    assert.ok(links >= 5000, `${links} links checked`);
  });

  test('meta robots, <base href> and canonical follow the page flags', () => {
    for (const { g, page } of sample) {
      const url = model.url(g, PORT);
      assert.equal(page.robots.isNoindex, hasFlag(g, PageFlag.noindex), `${url} noindex`);
      assert.equal(page.robots.isNofollow, hasFlag(g, PageFlag.nofollow), `${url} nofollow`);
      const isBase = hasFlag(g, PageFlag.baseHref);
      assert.equal(page.baseHref, isBase ? '/' : null, url);
      assert.equal(page.effectiveBase, isBase ? new URL('/', url).href : url, url);
      const isNear = model.pageKind[model.contentId(g)] === PageKind.nearDuplicate;
      const original = model.pageRef[model.contentId(g)] as number;
      assert.equal(page.canonical, isNear && hasFlag(g, PageFlag.canonical) ? model.path(original) : null, url);
      assert.equal(page.lang, model.langOf(g), url);
    }
  });

  test('the language of the text agrees with the model on at least 90% of pages with more than 100 words', (t) => {
    let pages = 0;
    let agree = 0;
    let agreeWithHint = 0;
    const misses: string[] = [];
    for (const { g, page } of sample) {
      if (page.tokenCount <= 100) continue;
      pages++;
      const truth = model.langOf(g);
      const found = detectLanguage(page.visibleText);
      if (found.code === truth) agree++;
      else misses.push(`${truth}->${found.code}`);
      if (detectLanguage(page.visibleText, page.lang).code === truth) agreeWithHint++;
    }
    t.diagnostic(
      `language agreement: ${agree}/${pages} from the text alone, ${agreeWithHint}/${pages} with <html lang>; misses: ${misses.join(' ') || 'none'}`,
    );
    assert.ok(pages >= 300, `${pages} pages with more than 100 words`);
    assert.ok(agree / pages >= 0.9, `${agree}/${pages}`);
  });
});
