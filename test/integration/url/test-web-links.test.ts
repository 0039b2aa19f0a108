/**
 * The normalizer against the test web: its pages write links in every non-normalized form on
 * purpose (upper-case scheme and host, Unicode host names, `:80`, fragments, escaped unreserved
 * letters, `./` and `../` paths, `<base href="/">`). For each page, the hrefs normalized against the
 * page URL (or its base) must be exactly the canonical URLs of the page's links in the model, as a
 * multiset, and so must their fingerprints. No server is needed: pages are rendered in memory.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { urlFingerprintHex } from '../../../src/url/fingerprint.js';
import { normalizeUrl } from '../../../src/url/normalize.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { pageLinks } from '../../../src/web/links.js';
import { PageFlag, PageKind, WebModel } from '../../../src/web/model.js';
import { renderPage } from '../../../src/web/render.js';

// Noise, relative links, <base href> and IDN hosts far above their defaults, so that a few hundred
// pages hold every form many times over.
const CONFIG = {
  seed: 6,
  hosts: 40,
  pages: 4000,
  server: { addressCount: 4 },
  links: { urlNoiseRate: 0.5, relativeRate: 0.3 },
  meta: { baseHrefRate: 0.1 },
  languages: { idnRate: 0.6, weights: { en: 0.5, de: 0.25, ru: 0.25 } },
} satisfies WebConfigInput;

const model = new WebModel(CONFIG);

/** The hrefs of a page's anchors before its footer (the footer may hold a trap link, not in pageLinks). */
function anchors(html: string): { hrefs: string[]; base: string | null } {
  const footer = html.indexOf('<footer>');
  const body = footer < 0 ? html : html.slice(0, footer);
  const hrefs = [...body.matchAll(/<a href="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&amp;/g, '&'));
  const base = /<base href="([^"]*)">/.exec(html);
  return { hrefs, base: base === null ? null : (base[1] as string) };
}

function pagesToCheck(): number[] {
  const isOk = (g: number): boolean => model.pageKind[g] === PageKind.ok;
  const step = Math.floor(model.pageCount / 300);
  const pages = new Set<number>();
  for (let g = 0; g < model.pageCount; g += step) if (isOk(g)) pages.add(g);
  // <base href> pages in folders, where resolving against the page instead would go wrong.
  const withBase = pages.size + 60;
  for (let g = 0; g < model.pageCount && pages.size < withBase; g++) {
    if (isOk(g) && ((model.pageFlags[g] as number) & PageFlag.baseHref) !== 0 && model.path(g).indexOf('/', 1) > 0) pages.add(g);
  }
  return [...pages];
}

/** Counts of each way the test web wrote a link, to show every one was met. */
interface Forms {
  upperCase: number;
  unicodeHost: number;
  port80: number;
  fragment: number;
  escape: number;
  dotSegment: number;
  parentRelative: number;
  baseHref: number;
}

function countForms(forms: Forms, href: string, hasBase: boolean): void {
  if (/^HTTP:\/\/|^http:\/\/[^/]*[A-Z]/.test(href)) forms.upperCase++;
  if (/^https?:\/\/[^/]*[^\x00-\x7f]/i.test(href)) forms.unicodeHost++;
  if (/^https?:\/\/[^/]*:80\//i.test(href)) forms.port80++;
  if (href.includes('#')) forms.fragment++;
  if (/%(?:[46][1-9A-F]|[57][0-9A])/.test(href)) forms.escape++;
  if (/(?:^|\/)\.\//.test(href)) forms.dotSegment++;
  if (href.startsWith('../')) forms.parentRelative++;
  if (hasBase && !href.startsWith('/') && !/^[a-z]+:/i.test(href)) forms.baseHref++;
}

describe('hrefs of the test web normalize to the canonical URLs of their targets', () => {
  const pages = pagesToCheck();
  for (const port of [8080, 80]) {
    test(`port ${port}`, () => {
      assert.ok(pages.length >= 250, `${pages.length} pages`);
      const forms: Forms = {
        upperCase: 0,
        unicodeHost: 0,
        port80: 0,
        fragment: 0,
        escape: 0,
        dotSegment: 0,
        parentRelative: 0,
        baseHref: 0,
      };
      let links = 0;
      for (const g of pages) {
        const pageUrl = model.url(g, port);
        const { hrefs, base } = anchors(renderPage(model, g, port).html);
        const effectiveBase = base === null ? pageUrl : new URL(base, pageUrl).href;
        const got: string[] = [];
        for (const href of hrefs) {
          countForms(forms, href, base !== null);
          const r = normalizeUrl(href, effectiveBase);
          assert.equal(r.kind, 'ok', `${pageUrl}: ${href} -> ${JSON.stringify(r)}`);
          if (r.kind === 'ok') got.push(r.url);
        }
        const home = model.hostOf(g).firstPage;
        // The header's home link (<header><a href="/">) comes on top of pageLinks.
        const expected = [home, ...pageLinks(model, g).map((l) => l.target)].map((t) => model.url(t, port));
        assert.deepEqual([...got].sort(), [...expected].sort(), `${pageUrl}\n${hrefs.join('\n')}`);
        assert.deepEqual(got.map(urlFingerprintHex).sort(), expected.map(urlFingerprintHex).sort(), `${pageUrl}: fingerprints`);
        links += hrefs.length;
      }
      const message = `${links} links: ${JSON.stringify(forms)}`;
      assert.ok(links > 3000, message);
      for (const [form, n] of Object.entries(forms)) {
        if (form === 'port80' && port !== 80) assert.equal(n, 0, message);
        else assert.ok(n >= 5, `${form} met ${n} times; ${message}`);
      }
    });
  }
});
