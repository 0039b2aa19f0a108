/**
 * What pages say, read as a crawler reads them: declared charsets that decode (and legacy ones
 * that do not decode as UTF-8), BOMs, exact mirrors, near-duplicates, meta robots, street
 * addresses of geographic pages, and text in the language the model gives the page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eld } from 'eld';
import type { WebConfigInput } from '../../../src/web/config.js';
import { LANGUAGE_WORDS } from '../../../src/web/data/language-words.js';
import { formatAddress, geoEntities } from '../../../src/web/geo.js';
import { PageFlag, PageKind } from '../../../src/web/model.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { decodeHtml, declaredCharset, fetchPage, pagesWhere, visibleText } from './support.js';
import { get } from '../../helpers/http.js';

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'pl', 'ru'] as const;
// Seed 6 holds hosts of every language, mirrors, near-duplicates with and without canonical, BOM pages.
const CONFIG = {
  seed: 6,
  hosts: 40,
  pages: 3000,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  languages: {
    weights: { en: 0.1, de: 0.1, fr: 0.1, es: 0.1, it: 0.1, pt: 0.1, nl: 0.1, sv: 0.1, pl: 0.1, ru: 0.1 },
    legacyCharsetRate: 0.5,
    bomRate: 0.3,
  },
  meta: { noindexRate: 0.1, nofollowRate: 0.1 },
  duplicates: { mirrorHostRate: 0.1, nearDuplicateRate: 0.05, nearDuplicateEdits: 10 },
  content: { shortPageRate: 0, minWords: 400, maxWords: 600 },
  geo: { hostRate: 0.4 },
} satisfies WebConfigInput;

let web: TestWeb;
const ok = (g: number): boolean => web.model.pageKind[g] === PageKind.ok;
const flagged = (g: number, flag: number): boolean => ((web.model.pageFlags[g] as number) & flag) !== 0;
/** Non-ASCII letters of a language's vocabulary. */
const alphabet = (lang: string): Set<string> => {
  const w = LANGUAGE_WORDS[lang];
  return new Set([...[...(w?.common ?? []), ...(w?.content ?? [])].join('')].filter((c) => c > '\x7f'));
};

before(async () => {
  web = await startTestWeb(CONFIG);
  // The root entry of eld loads its n-gram database on demand.
  assert.ok('load' in eld, 'eld is the dynamic entry');
  await eld.load('medium');
});
after(async () => {
  await web.close();
});

test("legacy charsets: the declared charset decodes the language's letters, UTF-8 does not", async () => {
  const langs = new Set<string>();
  const charsets = new Set<string>();
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    const pages = pagesWhere(web.model, (g) => ok(g) && web.model.langOf(g) === lang && flagged(g, PageFlag.legacyCharset), 3);
    const letters = alphabet(lang);
    for (const g of pages) {
      const r = await fetchPage(web, g);
      const charset = declaredCharset(r);
      assert.ok(LANGUAGE_WORDS[lang]?.charsets.includes(charset), `${web.url(g)} declares ${charset}`);
      const text = decodeHtml(r);
      const found = [...text].filter((c) => letters.has(c)).length;
      assert.ok(found >= 1, `${web.url(g)} (${lang}, ${charset}): no letter of the language`);
      // Every character the page encodes comes back: no C1 controls (a windows-1252 page read as
      // ISO-8859-1 would show them), no replacement characters.
      assert.doesNotMatch(text, /[\u0080-\u009f\ufffd]/, `${web.url(g)} (${charset}) decodes cleanly`);
      assert.ok(r.body.toString('utf8').includes('\uFFFD'), `${web.url(g)} is not valid UTF-8`);
      langs.add(lang);
      charsets.add(charset);
    }
  }
  assert.equal(langs.size, LANGS.length - 1, `legacy pages in ${[...langs].join(' ')}`);
  assert.ok(charsets.has('koi8-r') || charsets.has('windows-1251'));
  // Legacy pages declare in the header and in <meta>.
  const where = new Set<string>();
  for (const g of pagesWhere(web.model, (x) => ok(x) && flagged(x, PageFlag.legacyCharset), 20)) {
    where.add(/charset/.test(String((await fetchPage(web, g)).headers['content-type'])) ? 'header' : 'meta');
  }
  assert.equal(where.size, 2);
});

test('BOM pages start with EF BB BF and are UTF-8', async () => {
  let boms = 0;
  for (const g of pagesWhere(web.model, (x) => ok(x) && web.model.langOf(x) !== 'en' && !flagged(x, PageFlag.legacyCharset), 60)) {
    const r = await fetchPage(web, g);
    if (r.body[0] !== 0xef) {
      assert.match(r.body.subarray(0, 15).toString(), /^<!DOCTYPE html>/);
      continue;
    }
    boms++;
    assert.deepEqual([...r.body.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.ok(['utf-8', ''].includes(declaredCharset(r)));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(r.body);
    assert.match(text, /^<!DOCTYPE html>/, 'the decoder drops the BOM');
  }
  assert.ok(boms > 0, 'BOM pages were sampled');
});

test("exact mirrors serve the original host's bytes for the same path", async () => {
  const mirrors = web.model.hosts.filter((h) => h.mirrorOf >= 0);
  assert.ok(mirrors.length > 0);
  for (const h of mirrors) {
    const src = web.model.hosts[h.mirrorOf];
    assert.ok(src !== undefined);
    for (let local = 0; local < Math.min(h.pageCount, 40); local++) {
      if (!ok(h.firstPage + local)) continue;
      const a = await fetchPage(web, h.firstPage + local);
      const b = await fetchPage(web, src.firstPage + local);
      assert.equal(web.model.path(h.firstPage + local), web.model.path(src.firstPage + local));
      assert.ok(a.body.equals(b.body), `${web.url(h.firstPage + local)} vs ${web.url(src.firstPage + local)}`);
    }
  }
});

test('near-duplicates differ from their source in a few words and carry rel=canonical when flagged', async () => {
  const m = web.model;
  const dups = pagesWhere(m, (g) => m.pageKind[g] === PageKind.nearDuplicate && m.hostOf(g).mirrorOf < 0, 20);
  const canonical = { with: 0, without: 0 };
  for (const g of dups) {
    const src = m.pageRef[g] as number;
    const a = decodeHtml(await fetchPage(web, g));
    const b = decodeHtml(await fetchPage(web, src));
    const wa = visibleText(a).split(' ');
    const wb = visibleText(b).split(' ');
    assert.equal(wa.length, wb.length, `${web.url(g)}: same length as ${web.url(src)}`);
    const changed = wa.filter((w, i) => w !== wb[i]).length;
    assert.ok(changed >= 1 && changed <= 40 && changed / wa.length < 0.1, `${web.url(g)}: ${changed} of ${wa.length} words changed`);
    const link = /<link rel="canonical" href="([^"]+)">/.exec(a);
    if (flagged(g, PageFlag.canonical)) {
      canonical.with++;
      assert.equal(new URL(link?.[1] ?? '', web.url(g)).href, web.url(src));
    } else {
      canonical.without++;
      assert.equal(link, null);
    }
    assert.doesNotMatch(b, /rel="canonical"/, 'the original names no canonical');
  }
  assert.ok(canonical.with > 0 && canonical.without > 0, JSON.stringify(canonical));
});

test('meta robots says noindex and nofollow exactly for flagged pages', async () => {
  const seen = new Set<string>();
  for (const g of pagesWhere(web.model, (x) => ok(x) && x % 37 === 0, 80)) {
    const html = decodeHtml(await fetchPage(web, g));
    const expected = [flagged(g, PageFlag.noindex) ? 'noindex' : '', flagged(g, PageFlag.nofollow) ? 'nofollow' : '']
      .filter(Boolean)
      .join(', ');
    const meta = /<meta name="robots" content="([^"]*)">/.exec(html);
    assert.equal(meta?.[1] ?? '', expected, web.url(g));
    seen.add(expected);
  }
  assert.ok(seen.has('noindex') && seen.has('nofollow') && seen.has(''), [...seen].join('|'));
});

test('geographic pages contain the formatted addresses of their entities; others none', async () => {
  let geo = 0;
  for (const g of pagesWhere(web.model, (x) => ok(x) && x % 31 === 0, 100)) {
    const html = decodeHtml(await fetchPage(web, g));
    const addresses = [...html.matchAll(/<address>([^<]*)<\/address>/g)].map((x) => x[1]);
    const expected = geoEntities(web.model, g).map(formatAddress);
    assert.deepEqual(addresses, expected, web.url(g));
    if (web.model.pageCity[g] !== -1) {
      geo++;
      assert.ok(expected.length >= 1);
    }
  }
  assert.ok(geo >= 10, `${geo} geographic pages`);
});

test('eld detects the page language for >= 90% of pages of each language', async () => {
  for (const lang of LANGS) {
    const pages = pagesWhere(web.model, (g) => ok(g) && web.model.langOf(g) === lang && g % 3 === 0, 12);
    assert.ok(pages.length >= 5, `${pages.length} ${lang} pages`);
    const wrong: string[] = [];
    for (const g of pages) {
      const detected = eld.detect(visibleText(decodeHtml(await fetchPage(web, g)))).language;
      if (detected !== lang) wrong.push(`${web.url(g)} as ${detected}`);
    }
    const limit = lang === 'en' ? 0 : Math.floor(pages.length * 0.1);
    assert.ok(wrong.length <= limit, `${lang}: ${wrong.length} of ${pages.length} misdetected: ${wrong.join(', ')}`);
  }
});

test("near-duplicates show their original's addresses, as the truth lists them", async () => {
  const dupWeb = await startTestWeb({
    seed: 21,
    hosts: 20,
    pages: 3000,
    server: { addressCount: 4 },
    duplicates: { nearDuplicateRate: 0.2 },
    geo: { hostRate: 1 },
  });
  try {
    const m = dupWeb.model;
    const dups = [...Array(m.pageCount).keys()]
      .filter((g) => m.pageKind[g] === PageKind.nearDuplicate && m.pageCity[m.pageRef[g]!]! >= 0)
      .slice(0, 10);
    assert.ok(dups.length > 0);
    for (const g of dups) {
      const html = (await get(dupWeb.url(g), dupWeb.hostsMap)).body.toString('latin1');
      const shown = [...html.matchAll(/<address>([^<]*)<\/address>/g)].map((x) => x[1]);
      assert.deepEqual(
        shown,
        geoEntities(m, g)
          .map(formatAddress)
          .map((a) => Buffer.from(a, 'utf8').toString('latin1')),
        `page ${g}`,
      );
      assert.ok(shown.length > 0);
    }
  } finally {
    await dupWeb.close();
  }
});
