/**
 * Links as a crawler extracts them: every <a href> (noisy, relative, IDN or absolute) resolves to
 * exactly the targets of `pageLinks`; rel=nofollow marks exactly the nofollow links; <base href>
 * pages need their base; crawler traps keep producing new URLs, and robots.txt blocks them when
 * the model says so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebConfigInput } from '../../../src/web/config.js';
import type { HostInfo } from '../../../src/web/hosts.js';
import { pageLinks } from '../../../src/web/links.js';
import { PageFlag, PageKind } from '../../../src/web/model.js';
import { TRAP_RULE } from '../../../src/web/robots.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { anchorHrefs, decodeHtml, fetchPage, fetchPath, pageOfUrl, pagesWhere } from './support.js';

const WEIGHTS = { en: 0.6, de: 0.2, fr: 0, es: 0, it: 0, pt: 0, nl: 0, sv: 0, pl: 0, ru: 0.2 };
// Seed 5 holds every trap kind, blocked and unblocked, IDN hosts (some with ß) and <base href> pages in folders.
const CONFIG = {
  seed: 5,
  hosts: 30,
  pages: 2000,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  links: { urlNoiseRate: 0.5, relativeRate: 0.3, nofollowRate: 0.1 },
  meta: { baseHrefRate: 0.1 },
  traps: { hostRate: 0.5 },
  languages: { idnRate: 0.5, weights: WEIGHTS },
} satisfies WebConfigInput;

let web: TestWeb;
const hasFlag = (g: number, flag: number): boolean => ((web.model.pageFlags[g] as number) & flag) !== 0;
/** Whether a URL is in h's trap space (TRAP_RULE, not the bare prefix: `/q` also starts `/quilts-2/`). */
const isTrapHref = (h: HostInfo, url: URL): boolean =>
  h.trap !== null && url.hostname === h.name && `${url.pathname}${url.search}`.startsWith(TRAP_RULE[h.trap]);

/** The page's HTML and the URL its relative links resolve against (its <base href>, if any). */
async function load(g: number): Promise<{ html: string; base: string }> {
  const r = await fetchPage(web, g);
  assert.equal(r.status, 200, web.url(g));
  const html = decodeHtml(r);
  const base = /<base href="([^"]+)">/.exec(html);
  return { html, base: base === null ? web.url(g) : new URL(base[1] as string, web.url(g)).href };
}

before(async () => {
  web = await startTestWeb(CONFIG);
});
after(async () => {
  await web.close();
});

/** Asserts that page g's hrefs resolve to exactly its pageLinks targets plus its home; returns the hrefs. */
async function assertLinksMatch(g: number): Promise<string[]> {
  const m = web.model;
  const h = m.hostOf(g);
  const { html, base } = await load(g);
  const found = new Set<number>();
  const hrefs = anchorHrefs(html);
  for (const href of hrefs) {
    const url = new URL(href, base);
    if (isTrapHref(h, url)) continue;
    const target = pageOfUrl(m, url);
    assert.ok(target >= 0, `${web.url(g)}: ${href} names no page`);
    found.add(target);
  }
  const expected = new Set([...pageLinks(m, g).map((l) => l.target), h.firstPage]);
  assert.deepEqual(
    [...found].sort((a, b) => a - b),
    [...expected].sort((a, b) => a - b),
    web.url(g),
  );
  return hrefs;
}

test('hrefs resolve to exactly the pageLinks targets (plus the home link), noise and all', async () => {
  const m = web.model;
  const step = Math.floor(m.pageCount / 100);
  const pages = pagesWhere(m, (g) => g % step === 0 && (m.pageKind[g] === PageKind.ok || m.pageKind[g] === PageKind.nearDuplicate), 100);
  assert.ok(pages.length >= 90);
  const forms = { noisy: 0, relative: 0, unicodeHost: 0 };
  for (const g of pages) {
    for (const href of await assertLinksMatch(g)) {
      if (/^https?:/i.test(href)) {
        if (!/^http:\/\/[a-z0-9.-]+:\d+\/[^#]*$/.test(href) || /%[0-9A-F]{2}|\/\.\//.test(href)) forms.noisy++;
        if (/^http:\/\/[^/]*[^\x00-\x7f]/i.test(href)) forms.unicodeHost++;
      } else if (!href.startsWith('/') && !hasFlag(g, PageFlag.baseHref)) {
        forms.relative++;
      }
    }
  }
  assert.ok(forms.noisy > 10 && forms.relative > 10 && forms.unicodeHost > 0, JSON.stringify(forms));
});

test('links to internationalized hosts resolve from UTF-8 and legacy-charset pages alike', async () => {
  const m = web.model;
  const isIdn = (t: number): boolean => m.hostOf(t).unicodeName !== m.hostOf(t).name;
  // Pages linking to IDN hosts of another language: a legacy charset cannot spell those names.
  const linksToForeignIdn = (g: number): boolean =>
    m.pageKind[g] === PageKind.ok &&
    pageLinks(m, g).some((l) => isIdn(l.target) && m.pageHost[l.target] !== m.pageHost[g] && m.langOf(l.target) !== m.langOf(g));
  const utf8 = pagesWhere(m, (g) => linksToForeignIdn(g) && !hasFlag(g, PageFlag.legacyCharset), 80);
  const legacy = pagesWhere(m, (g) => linksToForeignIdn(g) && hasFlag(g, PageFlag.legacyCharset), 40);
  assert.ok(utf8.length >= 40 && legacy.length >= 10, `${utf8.length} UTF-8 and ${legacy.length} legacy pages`);
  let upperUnicode = 0;
  for (const g of [...utf8, ...legacy]) {
    const hrefs = await assertLinksMatch(g);
    upperUnicode += hrefs.filter((x) => /^HTTP:\/\/[^/]*[^\x00-\x7f]/.test(x)).length;
  }
  assert.ok(upperUnicode > 0, 'upper-case Unicode host names were written');
});

test('rel=nofollow marks exactly the nofollow links', async () => {
  const m = web.model;
  let nofollow = 0;
  const pages = pagesWhere(m, (g) => g % 13 === 0 && m.pageKind[g] === PageKind.ok && pageLinks(m, g).some((l) => l.isNofollow), 30);
  for (const g of pages) {
    const { html, base } = await load(g);
    const marked = [...html.matchAll(/<a href="([^"]*)" rel="nofollow">/g)].map((x) => pageOfUrl(m, new URL(x[1] as string, base)));
    const expected = pageLinks(m, g)
      .filter((l) => l.isNofollow)
      .map((l) => l.target);
    assert.deepEqual(marked.sort(), expected.sort(), web.url(g));
    nofollow += marked.length;
  }
  assert.ok(nofollow >= 10, `${nofollow} nofollow links checked`);
});

test('<base href> pages: relative links name real pages only when resolved against the base', async () => {
  const m = web.model;
  const pages = pagesWhere(m, (g) => hasFlag(g, PageFlag.baseHref) && m.pageKind[g] === PageKind.ok && m.path(g).indexOf('/', 1) > 0, 10);
  assert.ok(pages.length >= 3, `${pages.length} base-href pages in folders`);
  for (const g of pages) {
    const { html, base } = await load(g);
    assert.equal(base, `http://${m.hostOf(g).name}:${web.port}/`);
    const relative = anchorHrefs(html).filter((href) => !href.startsWith('/') && !/^[a-z]+:/i.test(href));
    assert.ok(relative.length > 0, `${web.url(g)} has relative links`);
    for (const href of relative) {
      const target = pageOfUrl(m, new URL(href, base));
      assert.ok(target >= 0, `${href} with the base`);
      assert.notEqual(pageOfUrl(m, new URL(href, web.url(g))), target, `${href} without the base`);
    }
  }
});

/** Walks a trap from the link on its host's home page, taking each time a link not seen yet. */
async function walkTrap(h: HostInfo, steps: number): Promise<string[]> {
  const { html, base } = await load(h.firstPage);
  const entry = anchorHrefs(html)
    .map((x) => new URL(x, base))
    .find((u) => isTrapHref(h, u));
  assert.ok(entry !== undefined, `${h.name}: the home page links into the ${h.trap} trap`);
  const seen = [entry.href];
  let url = entry;
  for (let i = 0; i < steps; i++) {
    const r = await fetchPath(web, h.name, `${url.pathname}${url.search}`);
    assert.equal(r.status, 200, url.href);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    const next = anchorHrefs(r.body.toString())
      .map((x) => new URL(x, url))
      .find((u) => isTrapHref(h, u) && !seen.includes(u.href));
    assert.ok(next !== undefined, `${url.href} leads somewhere new`);
    seen.push(next.href);
    url = next;
  }
  return seen;
}

const trapHosts = (): Map<string, HostInfo> => new Map(web.model.hosts.filter((h) => h.trap !== null).map((h) => [h.trap as string, h]));

test('each trap kind keeps producing new URLs that answer 200', async () => {
  const hosts = trapHosts();
  assert.deepEqual([...hosts.keys()].sort(), ['calendar', 'pagination', 'query', 'repeat', 'session']);
  for (const h of hosts.values()) {
    const urls = await walkTrap(h, 30);
    assert.equal(new Set(urls).size, 31, `${h.trap}: 31 distinct URLs`);
  }
});

/** The robots.txt body of h as a patient crawler finally gets it ('' when there is none). */
async function robotsBody(h: HostInfo): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await fetchPath(web, h.name, '/robots.txt');
    if (r.status === 503) continue;
    if (r.status === 301) return (await fetchPath(web, h.name, new URL(String(r.headers.location)).pathname)).body.toString();
    return r.status === 200 ? r.body.toString() : '';
  }
  return '';
}

const blocksTrap = (body: string, h: HostInfo): boolean => body.split('\n').includes(`Disallow: ${TRAP_RULE[h.trap ?? 'query']}`);

test('robots.txt with rules disallows the trap exactly when robotsBlocksTrap', async () => {
  const ruled = web.model.hosts.filter((h) => h.trap !== null && ['rules', 'unavailable', 'redirect'].includes(h.robots));
  assert.ok(ruled.some((h) => h.robotsBlocksTrap) && ruled.some((h) => !h.robotsBlocksTrap));
  for (const h of ruled) assert.equal(blocksTrap(await robotsBody(h), h), h.robotsBlocksTrap, `${h.name} (${h.trap})`);
});

test('every host flagged robotsBlocksTrap serves a robots.txt that blocks its trap', async () => {
  for (const h of web.model.hosts.filter((x) => x.trap !== null && x.robotsBlocksTrap)) {
    assert.ok(blocksTrap(await robotsBody(h), h), `${h.name} (${h.trap}, robots ${h.robots})`);
  }
});
