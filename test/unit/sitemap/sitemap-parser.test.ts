/**
 * The sitemap parser on inline documents: the protocol's formats (urlset, index, text, gzip), the
 * mess real servers send (prefixes, missing or wrong namespaces, CDATA, entities, blanks, BOMs,
 * legacy encodings, extensions, missing end tags, PHP warnings), documents that are not sitemaps
 * (HTML error pages, feeds, garbage, corrupt gzip), both protocol caps and the location rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  DEFAULT_SITEMAP_MAX_URLS,
  parseSitemap,
  parseW3cDatetime,
  type SitemapContext,
  type SitemapParse,
  type SitemapParseOptions,
  type SitemapUrl,
} from '../../../src/sitemap/sitemap-parser.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const USER: SitemapContext = { url: 'http://a.test/sitemap.xml', source: { kind: 'user' } };

function parse(doc: string | Uint8Array, context: SitemapContext = USER, options: SitemapParseOptions = {}): Promise<SitemapParse> {
  return parseSitemap(typeof doc === 'string' ? Buffer.from(doc, 'utf8') : doc, context, options);
}

/** The page URLs of a urlset or text result (fails on anything else). */
function urlsOf(r: SitemapParse): readonly SitemapUrl[] {
  assert.ok(r.kind === 'urlset' || r.kind === 'text', `expected URLs, got ${JSON.stringify(r)}`);
  return r.urls;
}
const locs = (r: SitemapParse): string[] => urlsOf(r).map((u) => u.url);

function urlset(entries: string[], rootAttrs = NS): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${rootAttrs}>\n${entries.join('\n')}\n</urlset>\n`;
}
const url = (loc: string, extra = ''): string => `<url><loc>${loc}</loc>${extra}</url>`;

describe('urlset', () => {
  it('reads loc, lastmod, changefreq and priority', async () => {
    const r = await parse(
      urlset([
        url('http://a.test/one', '<lastmod>2024-03-01</lastmod><changefreq>daily</changefreq><priority>0.8</priority>'),
        url('http://a.test/two', '<lastmod>2024-03-01T10:30:00+01:00</lastmod><changefreq>Weekly</changefreq><priority>1.0</priority>'),
        url('http://a.test/three'),
      ]),
    );
    assert.equal(r.kind, 'urlset');
    assert.deepEqual(urlsOf(r), [
      { url: 'http://a.test/one', lastmodMs: Date.UTC(2024, 2, 1), changefreq: 'daily', priority: 0.8 },
      { url: 'http://a.test/two', lastmodMs: Date.UTC(2024, 2, 1, 9, 30), changefreq: 'weekly', priority: 1 },
      { url: 'http://a.test/three', lastmodMs: null, changefreq: null, priority: null },
    ]);
    assert.equal(r.entryCount, 3);
    assert.deepEqual(r.dropped, { invalid: 0, outOfLocation: 0, duplicate: 0, overCap: 0 });
    assert.equal(r.isGzip, false);
    assert.equal(r.isOverMaxBytes, false);
    assert.equal(r.isOverMaxUrls, false);
  });

  it('keeps the URL but nulls invalid optional fields', async () => {
    const r = await parse(
      urlset([
        url('http://a.test/x', '<lastmod>yesterday</lastmod><changefreq>sometimes</changefreq><priority>1.5</priority>'),
        url('http://a.test/y', '<lastmod>2023-02-30</lastmod><priority>-0.1</priority>'),
        url('http://a.test/z', '<priority> .5 </priority><lastmod> 2021 </lastmod>'),
      ]),
    );
    assert.deepEqual(urlsOf(r), [
      { url: 'http://a.test/x', lastmodMs: null, changefreq: null, priority: null },
      { url: 'http://a.test/y', lastmodMs: null, changefreq: null, priority: null },
      { url: 'http://a.test/z', lastmodMs: Date.UTC(2021, 0, 1), changefreq: null, priority: 0.5 },
    ]);
  });

  it('normalizes each loc and counts the ones that are not absolute http(s) URLs', async () => {
    const r = await parse(
      urlset([
        url('HTTP://A.TEST:80/%7Efoo/./bar#frag'),
        url('mailto:someone@a.test'),
        url('/relative/path'),
        url(''),
        url('   '),
        url('http://[bad'),
        '<url><lastmod>2020-01-01</lastmod></url>',
        url(`http://a.test/${'x'.repeat(2100)}`),
        url('http://a.test/ok'),
      ]),
    );
    assert.deepEqual(locs(r), ['http://a.test/~foo/bar', 'http://a.test/ok']);
    assert.equal(r.entryCount, 9);
    assert.equal(r.dropped.invalid, 7);
  });

  it('counts duplicates (after normalization) and keeps the first', async () => {
    const r = await parse(
      urlset([
        url('http://a.test/p', '<priority>0.1</priority>'),
        url('http://A.test/p', '<priority>0.9</priority>'),
        url('http://a.test/p#x'),
      ]),
    );
    assert.deepEqual(urlsOf(r), [{ url: 'http://a.test/p', lastmodMs: null, changefreq: null, priority: 0.1 }]);
    assert.equal(r.dropped.duplicate, 2);
  });

  it('an empty urlset is a sitemap with no URLs, not a problem', async () => {
    const r = await parse(urlset([]));
    assert.equal(r.kind, 'urlset');
    assert.deepEqual(locs(r), []);
  });
});

describe('real-world mess', () => {
  it('namespace prefixes on every element (ns0:, sm:)', async () => {
    const doc =
      '<ns0:urlset xmlns:ns0="http://www.sitemaps.org/schemas/sitemap/0.9"><ns0:url><ns0:loc>http://a.test/p</ns0:loc>' +
      '<ns0:lastmod>2022-05-06</ns0:lastmod></ns0:url></ns0:urlset>';
    assert.deepEqual(urlsOf(await parse(doc)), [
      { url: 'http://a.test/p', lastmodMs: Date.UTC(2022, 4, 6), changefreq: null, priority: null },
    ]);
  });

  it('a prefixed root over unprefixed children, and an undeclared prefix used throughout', async () => {
    const a = '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/a</loc></url></sm:urlset>';
    const b = '<x:urlset><x:url><x:loc>http://a.test/b</x:loc></x:url></x:urlset>';
    assert.deepEqual(locs(await parse(a)), ['http://a.test/a']);
    assert.deepEqual(locs(await parse(b)), ['http://a.test/b']);
  });

  it('a missing or misspelled namespace, and upper-case tag names', async () => {
    assert.deepEqual(locs(await parse(urlset([url('http://a.test/a')], ''))), ['http://a.test/a']);
    assert.deepEqual(locs(await parse(urlset([url('http://a.test/b')], 'xmlns="http://www.sitemaps.org/schemas/sitemap/09"'))), [
      'http://a.test/b',
    ]);
    assert.deepEqual(locs(await parse('<URLSET><URL><LOC>http://a.test/c</LOC></URL></URLSET>')), ['http://a.test/c']);
    // The old Google namespace.
    assert.deepEqual(locs(await parse(urlset([url('http://a.test/d')], 'xmlns="http://www.google.com/schemas/sitemap/0.84"'))), [
      'http://a.test/d',
    ]);
  });

  it('CDATA, entities and blanks around a loc', async () => {
    const r = await parse(
      urlset([
        url('<![CDATA[http://a.test/q?a=1&b=2]]>'),
        url('http://a.test/r?a=1&amp;b=2&amp;c=&#x2F;&#47;'),
        url('\n      http://a.test/s\n    '),
        url('  <![CDATA[ http://a.test/t ]]>  '),
        '<url>\n  <loc>\n\thttp://a.test/u\r\n  </loc>\n</url>',
      ]),
    );
    assert.deepEqual(locs(r), [
      'http://a.test/q?a=1&b=2',
      'http://a.test/r?a=1&b=2&c=//',
      'http://a.test/s',
      'http://a.test/t',
      'http://a.test/u',
    ]);
  });

  it('a UTF-8 BOM, a UTF-16 BOM, and a legacy encoding in the XML declaration', async () => {
    const doc = urlset([url('http://a.test/caf\u00e9')]);
    const expected = ['http://a.test/caf%C3%A9'];
    assert.deepEqual(locs(await parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc)]))), expected);
    assert.deepEqual(locs(await parse(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc, 'utf16le')]))), expected);
    const latin1 = Buffer.from(doc.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    assert.deepEqual(locs(await parse(latin1)), expected);
    // A UTF-8 body whose declaration names an unknown encoding is read as UTF-8.
    assert.deepEqual(locs(await parse(doc.replace('encoding="UTF-8"', 'encoding="x-klingon"'))), expected);
  });

  it('image, video, news and hreflang extensions are skipped without hiding the page', async () => {
    const doc = `<urlset ${NS} xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
      <url>
        <image:image><image:loc>http://a.test/img.png</image:loc></image:image>
        <loc>http://a.test/page</loc>
        <xhtml:link rel="alternate" hreflang="de" href="http://a.test/de/page"/>
        <video:video><video:content_loc>http://a.test/v.mp4</video:content_loc><video:player_loc>http://a.test/p</video:player_loc></video:video>
        <news:news><news:publication><news:name>A</news:name></news:publication><news:title>T</news:title></news:news>
        <lastmod>2020-02-02</lastmod>
      </url>
      <url><loc>http://a.test/second</loc><image:image><loc>http://a.test/unprefixed-in-foreign.png</loc></image:image></url>
    </urlset>`;
    assert.deepEqual(urlsOf(await parse(doc)), [
      { url: 'http://a.test/page', lastmodMs: Date.UTC(2020, 1, 2), changefreq: null, priority: null },
      { url: 'http://a.test/second', lastmodMs: null, changefreq: null, priority: null },
    ]);
  });

  it('an extension element in the default namespace of its own is skipped too', async () => {
    const doc = `<urlset ${NS}><url><loc>http://a.test/p</loc><image xmlns="http://www.google.com/schemas/sitemap-image/1.1"><loc>http://a.test/i.png</loc></image></url></urlset>`;
    assert.deepEqual(locs(await parse(doc)), ['http://a.test/p']);
  });

  it('missing end tags between entries', async () => {
    const doc = `<urlset ${NS}><url><loc>http://a.test/a</url><url><loc>http://a.test/b</loc><url><loc>http://a.test/c</loc></url></urlset>`;
    assert.deepEqual(locs(await parse(doc)), ['http://a.test/a', 'http://a.test/b', 'http://a.test/c']);
  });

  it('a document that stops inside an entry keeps the entries before it', async () => {
    const doc = `<urlset ${NS}><url><loc>http://a.test/a</loc></url><url><loc>http://a.test/b</loc><lastmod>2020-0`;
    const cut = `<urlset ${NS}><url><loc>http://a.test/a</loc></url><url><loc>http://a.test/bbb`;
    const r = await parse(doc);
    assert.deepEqual(urlsOf(r), [
      { url: 'http://a.test/a', lastmodMs: null, changefreq: null, priority: null },
      { url: 'http://a.test/b', lastmodMs: null, changefreq: null, priority: null },
    ]);
    const c = await parse(cut);
    assert.deepEqual(locs(c), ['http://a.test/a']);
    assert.equal(c.dropped.invalid, 0, 'a cut-off loc is not counted as an invalid entry');
  });

  it('hostile nesting: entries before it are kept, the rest is not read', async () => {
    const doc = `<urlset ${NS}><url><loc>http://a.test/a</loc></url>${'<url><x>'.repeat(50_000)}<loc>http://a.test/deep</loc>`;
    const r = await parse(doc);
    assert.deepEqual(locs(r), ['http://a.test/a']);
  });

  it('elements closed in the wrong order never throw', async () => {
    const docs = [
      `<urlset ${NS}><url><loc>http://a.test/a<url></url></loc></url></urlset>`,
      `<urlset ${NS}><url><loc></url></loc><loc>http://a.test/b</loc></urlset>`,
      `<urlset ${NS}></url></loc><url><lastmod><loc>http://a.test/c</loc></lastmod></url>`,
    ];
    for (const doc of docs) assert.equal((await parse(doc)).kind, 'urlset', doc);
  });

  it("random soup of sitemap tokens: always a result, only URLs of the document's location", async () => {
    const tokens = [
      '<url>',
      '</url>',
      '<loc>',
      '</loc>',
      'http://a.test/p',
      'http://b.test/q',
      '<![CDATA[',
      ']]>',
      '&amp;',
      '&bogus;',
      '<image:image>',
      '</image:image>',
      '<image:loc>',
      '<lastmod>',
      '2020-01-01',
      '</lastmod>',
      '<',
      '>',
      '/>',
      ' ',
      '\n',
      '<urlset>',
      '</urlset>',
      '<sitemapindex>',
      '<sitemap>',
      '<!--',
      '-->',
      '<?xml version="1.0"?>',
      '"',
      "'",
      '=',
      'xmlns="x"',
      '\u0000',
      '\ufffd',
      '<html>',
    ];
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 400; i++) {
      const doc = Array.from({ length: 5 + next(60) }, () => tokens[next(tokens.length)] as string).join('');
      const r = await parse(doc);
      assert.ok(['urlset', 'index', 'text', 'problem'].includes(r.kind), doc);
      const listed = r.kind === 'index' ? r.sitemaps : r.kind === 'problem' ? [] : r.urls;
      for (const u of listed) assert.ok(u.url.startsWith('http://a.test/'), `${u.url} from ${doc}`);
    }
  });

  it('a PHP warning printed before the XML', async () => {
    const doc = `PHP Warning:  Undefined variable $x in /var/www/sitemap.php on line 3\n${urlset([url('http://a.test/a')])}`;
    assert.deepEqual(locs(await parse(doc)), ['http://a.test/a']);
  });

  it('comments, processing instructions and a doctype before the root', async () => {
    const doc =
      `<?xml version="1.0"?>\n<!-- generated -->\n<?xml-stylesheet type="text/xsl" href="/s.xsl"?>\n<!DOCTYPE ` +
      `urlset>\n${urlset([url('http://a.test/a')]).replace(/^<\?xml[^>]*>\n/, '')}`;
    assert.deepEqual(locs(await parse(doc)), ['http://a.test/a']);
  });
});

describe('documents that are not sitemaps: no URL and a problem, never an exception', () => {
  const cases: Array<[string, string | Uint8Array, string]> = [
    [
      'an HTML error page',
      '<!DOCTYPE html>\n<html><head><title>404</title></head><body><a href="http://a.test/x">home</a></body></html>',
      'html',
    ],
    ['an HTML fragment after an HTML doctype', '<!doctype html><div><a href="http://a.test/y">y</a></div>', 'html'],
    ['a bare body', '<body><p>Service unavailable</p></body>', 'html'],
    ['an RSS feed', '<?xml version="1.0"?><rss version="2.0"><channel><item><link>http://a.test/p</link></item></channel></rss>', 'feed'],
    ['an Atom feed', '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="http://a.test/p"/></entry></feed>', 'feed'],
    ['other XML', '<?xml version="1.0"?><error><code>AccessDenied</code><loc>http://a.test/p</loc></error>', 'not-sitemap'],
    ['an empty body', '', 'empty'],
    ['blanks only', ' \n\t\r\n ', 'empty'],
    ['a BOM only', new Uint8Array([0xef, 0xbb, 0xbf]), 'empty'],
    ['plain-text error', 'Not Found\nThe requested URL was not found on this server.\n', 'not-sitemap'],
    ['JSON', '{"error":"not found","url":"http://a.test/"}', 'not-sitemap'],
    ['binary', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]), 'not-sitemap'],
    ['markup without an element', '<!-- nothing here -->', 'not-sitemap'],
    ['corrupt gzip', new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), 'bad-gzip'],
  ];
  for (const [name, doc, problem] of cases) {
    it(`${name} -> ${problem}`, async () => {
      const r = await parse(doc);
      assert.equal(r.kind, 'problem', JSON.stringify(r));
      assert.ok(r.kind === 'problem');
      assert.equal(r.problem, problem);
      assert.ok(r.message.length > 0);
    });
  }

  it('a gzipped HTML page is still an HTML page', async () => {
    const r = await parse(gzipSync('<html><body>oops</body></html>'));
    assert.ok(r.kind === 'problem' && r.problem === 'html' && r.isGzip);
  });
});

describe('sitemap index', () => {
  it('lists child sitemaps with lastmod, normalized, deduplicated and under the location rule', async () => {
    const doc = `<?xml version="1.0"?><sitemapindex ${NS}>
      <sitemap><loc>http://a.test/sitemap-1.xml</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap>
      <sitemap><loc> http://A.TEST/sitemap-2.xml.gz </loc></sitemap>
      <sitemap><loc>http://a.test/sitemap-1.xml</loc></sitemap>
      <sitemap><loc>http://other.test/sitemap-3.xml</loc></sitemap>
      <sitemap><loc>ftp://a.test/s.xml</loc></sitemap>
      <url><loc>http://a.test/page-in-an-index</loc></url>
    </sitemapindex>`;
    const r = await parse(doc);
    assert.ok(r.kind === 'index', JSON.stringify(r));
    assert.deepEqual(r.sitemaps, [
      { url: 'http://a.test/sitemap-1.xml', lastmodMs: Date.UTC(2024, 0, 2, 3, 4, 5) },
      { url: 'http://a.test/sitemap-2.xml.gz', lastmodMs: null },
    ]);
    assert.equal(r.entryCount, 5);
    assert.deepEqual(r.dropped, { invalid: 1, outOfLocation: 1, duplicate: 1, overCap: 0 });
  });
});

describe('text sitemaps', () => {
  it('one URL per line, any line ending, blank lines ignored, non-URLs counted', async () => {
    const r = await parse(
      'http://a.test/1\r\nhttp://a.test/2\n\n  http://a.test/3  \rnot a url\n/relative\nhttp://a.test/1\nhttp://a.test/4',
    );
    assert.equal(r.kind, 'text');
    assert.deepEqual(locs(r), ['http://a.test/1', 'http://a.test/2', 'http://a.test/3', 'http://a.test/4']);
    assert.equal(r.entryCount, 7);
    assert.deepEqual(r.dropped, { invalid: 2, outOfLocation: 0, duplicate: 1, overCap: 0 });
  });

  it('gzipped text, with a BOM', async () => {
    const r = await parse(gzipSync(Buffer.from('\ufeffhttp://a.test/a\nhttp://a.test/b\n')));
    assert.ok(r.kind === 'text' && r.isGzip);
    assert.deepEqual(locs(r), ['http://a.test/a', 'http://a.test/b']);
  });

  it('a line longer than maxLocChars is dropped, the next line is read', async () => {
    const r = await parse(`http://a.test/${'y'.repeat(5000)}\nhttp://a.test/short\n`, USER, { maxLocChars: 100 });
    assert.deepEqual(locs(r), ['http://a.test/short']);
    assert.equal(r.dropped.invalid, 1);
  });
});

describe('gzip', () => {
  it('is recognized by its magic bytes, whatever the URL says', async () => {
    const body = gzipSync(urlset([url('http://a.test/a'), url('http://a.test/b')]));
    const r = await parse(body, { url: 'http://a.test/sitemap.xml', source: { kind: 'user' } });
    assert.ok(r.kind === 'urlset' && r.isGzip);
    assert.deepEqual(locs(r), ['http://a.test/a', 'http://a.test/b']);
    // And a ".gz" name on a plain body is read as plain.
    const plain = await parse(urlset([url('http://a.test/a')]), { url: 'http://a.test/sitemap.xml.gz', source: { kind: 'user' } });
    assert.ok(plain.kind === 'urlset' && !plain.isGzip);
  });

  it('a truncated gzip stream keeps the complete entries it held', async () => {
    const entries = Array.from({ length: 2000 }, (_, i) => url(`http://a.test/p${i}`));
    const full = gzipSync(urlset(entries));
    const r = await parse(full.subarray(0, Math.floor(full.length / 2)));
    assert.equal(r.kind, 'urlset');
    const got = locs(r);
    assert.ok(got.length > 10 && got.length < 2000, `${got.length} entries`);
    assert.deepEqual(
      got,
      entries.slice(0, got.length).map((_, i) => `http://a.test/p${i}`),
    );
  });

  it('a gzip bomb stops at maxBytes of output and keeps the entries before the cap', async () => {
    const head = urlset([url('http://a.test/a'), url('http://a.test/b')]).replace('</urlset>\n', '');
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from(head),
        Buffer.alloc(16 * 1024 * 1024, ' '),
        Buffer.from('<url><loc>http://a.test/late</loc></url></urlset>'),
      ]),
    );
    assert.ok(bomb.length < 200_000, `${bomb.length} compressed bytes`);
    const r = await parse(bomb, USER, { maxBytes: 1_000_000 });
    assert.equal(r.kind, 'urlset');
    assert.deepEqual(locs(r), ['http://a.test/a', 'http://a.test/b']);
    assert.equal(r.bytes, 1_000_000);
    assert.equal(r.isOverMaxBytes, true);
  });

  it('a bomb past the default 50 MiB cap stops there', async () => {
    const bomb = gzipSync(
      Buffer.concat([Buffer.from(`<urlset ${NS}><url><loc>http://a.test/a</loc></url>`), Buffer.alloc(60 * 1024 * 1024, ' ')]),
    );
    const r = await parse(bomb);
    assert.deepEqual(locs(r), ['http://a.test/a']);
    assert.equal(r.bytes, 52_428_800);
    assert.equal(r.isOverMaxBytes, true);
  });
});

describe('caps', () => {
  it('maxUrls keeps the first N entries and counts the rest', async () => {
    const r = await parse(urlset(Array.from({ length: 8 }, (_, i) => url(`http://a.test/${i}`))), USER, { maxUrls: 5 });
    assert.deepEqual(
      locs(r),
      [0, 1, 2, 3, 4].map((i) => `http://a.test/${i}`),
    );
    assert.equal(r.entryCount, 8);
    assert.equal(r.dropped.overCap, 3);
    assert.equal(r.isOverMaxUrls, true);
  });

  it('the protocol default: 50,000 URLs kept of 50,003', async () => {
    const lines = Array.from({ length: DEFAULT_SITEMAP_MAX_URLS + 3 }, (_, i) => `http://a.test/p/${i}`);
    const r = await parse(lines.join('\n'));
    const got = locs(r);
    assert.equal(got.length, 50_000);
    assert.equal(got[49_999], 'http://a.test/p/49999');
    assert.equal(r.dropped.overCap, 3);
    assert.equal(r.isOverMaxUrls, true);
  });

  it('maxUrls applies to a sitemap index too', async () => {
    const r = await parse(
      `<sitemapindex ${NS}>${[1, 2, 3].map((i) => `<sitemap><loc>http://a.test/s${i}.xml</loc></sitemap>`).join('')}</sitemapindex>`,
      USER,
      { maxUrls: 2 },
    );
    assert.ok(r.kind === 'index');
    assert.deepEqual(
      r.sitemaps.map((s) => s.url),
      ['http://a.test/s1.xml', 'http://a.test/s2.xml'],
    );
    assert.equal(r.dropped.overCap, 1);
  });

  it('maxBytes on a plain XML body: only entries complete before the cut', async () => {
    const doc = urlset([url('http://a.test/aaaa'), url('http://a.test/bbbb'), url('http://a.test/cccc')]);
    const cutAt = doc.indexOf('bbbb') + 2;
    const r = await parse(doc, USER, { maxBytes: cutAt });
    assert.deepEqual(locs(r), ['http://a.test/aaaa']);
    assert.equal(r.bytes, cutAt);
    assert.equal(r.isOverMaxBytes, true);
    assert.equal(r.dropped.invalid, 0);
  });

  it('maxBytes on a text body drops the cut line', async () => {
    const doc = 'http://a.test/aaaa\nhttp://a.test/bbbb\nhttp://a.test/cccc\n';
    const r = await parse(doc, USER, { maxBytes: doc.indexOf('cccc') + 2 });
    assert.deepEqual(locs(r), ['http://a.test/aaaa', 'http://a.test/bbbb']);
    assert.equal(r.isOverMaxBytes, true);
    // Exactly at a line end, nothing is lost; a body that fits is not "over".
    assert.deepEqual(locs(await parse(doc, USER, { maxBytes: doc.indexOf('cccc') })), ['http://a.test/aaaa', 'http://a.test/bbbb']);
    assert.equal((await parse(doc, USER, { maxBytes: doc.length })).isOverMaxBytes, false);
  });

  it('options out of range and a context URL that is not http(s) are caller bugs', async () => {
    await assert.rejects(parse('', USER, { maxUrls: 0 }), RangeError);
    await assert.rejects(parse('', USER, { maxBytes: 1.5 }), RangeError);
    await assert.rejects(parse('', { url: 'ftp://a.test/s.xml', source: { kind: 'user' } }), RangeError);
    await assert.rejects(parse('', { url: 'http://a.test/s.xml', source: { kind: 'robots', robotsUrl: 'nonsense' } }), RangeError);
    // With the rule off, the context URL is not needed.
    assert.equal((await parse('http://x.test/a', { url: 'file:///s', source: { kind: 'user' } }, { locationRule: 'off' })).kind, 'text');
  });
});

describe('location rule', () => {
  const listed = [
    'http://a.test/dir/page',
    'http://a.test/dir/sub/page',
    'http://a.test/dir',
    'http://a.test/other/page',
    'http://a.test/',
    'https://a.test/dir/page',
    'http://a.test:8080/dir/page',
    'http://b.test/dir/page',
    'http://sub.a.test/dir/page',
    'http://a.test.evil/dir/x',
  ];
  const doc = urlset(listed.map((u) => url(u)));

  it("protocol, user-given: same scheme, host and port, under the sitemap's directory", async () => {
    const r = await parse(doc, { url: 'http://a.test/dir/sitemap.xml', source: { kind: 'user' } });
    assert.deepEqual(locs(r), ['http://a.test/dir/page', 'http://a.test/dir/sub/page']);
    assert.equal(r.dropped.outOfLocation, listed.length - 2);
  });

  it("protocol, from the host's own robots.txt: any path of that origin", async () => {
    const r = await parse(doc, { url: 'http://a.test/dir/sitemap.xml', source: { kind: 'robots', robotsUrl: 'http://a.test/robots.txt' } });
    assert.deepEqual(locs(r), [
      'http://a.test/dir/page',
      'http://a.test/dir/sub/page',
      'http://a.test/dir',
      'http://a.test/other/page',
      'http://a.test/',
    ]);
    assert.equal(r.dropped.outOfLocation, 5);
  });

  it('protocol, cross-submitted: robots.txt of b.test pointing at a sitemap on a.test vouches for b.test', async () => {
    const r = await parse(doc, { url: 'http://a.test/dir/sitemap.xml', source: { kind: 'robots', robotsUrl: 'http://b.test/robots.txt' } });
    assert.deepEqual(locs(r), ['http://a.test/dir/page', 'http://a.test/dir/sub/page', 'http://b.test/dir/page']);
  });

  it('the root sitemap covers its whole origin; a port is part of the origin', async () => {
    const r = await parse(doc, { url: 'http://a.test:8080/sitemap.xml', source: { kind: 'user' } });
    assert.deepEqual(locs(r), ['http://a.test:8080/dir/page']);
  });

  it('same-origin drops the directory restriction, off drops the rule', async () => {
    const same = await parse(doc, { url: 'http://a.test/dir/sitemap.xml', source: { kind: 'user' } }, { locationRule: 'same-origin' });
    assert.deepEqual(locs(same), [
      'http://a.test/dir/page',
      'http://a.test/dir/sub/page',
      'http://a.test/dir',
      'http://a.test/other/page',
      'http://a.test/',
    ]);
    const off = await parse(doc, { url: 'http://a.test/dir/sitemap.xml', source: { kind: 'user' } }, { locationRule: 'off' });
    assert.deepEqual(locs(off), listed);
    assert.equal(off.dropped.outOfLocation, 0);
  });

  it('the sitemap URL is normalized like the locs (case, default port, escapes)', async () => {
    const r = await parse(urlset([url('http://a.test/~x/page')]), { url: 'HTTP://A.TEST:80/%7Ex/sitemap.xml', source: { kind: 'user' } });
    assert.deepEqual(locs(r), ['http://a.test/~x/page']);
  });
});

describe('parseW3cDatetime', () => {
  const cases: Array<[string, number | null]> = [
    ['2024', Date.UTC(2024, 0, 1)],
    ['2024-07', Date.UTC(2024, 6, 1)],
    ['2024-07-16', Date.UTC(2024, 6, 16)],
    ['2024-07-16T19:20+01:00', Date.UTC(2024, 6, 16, 18, 20)],
    ['2024-07-16T19:20:30+01:00', Date.UTC(2024, 6, 16, 18, 20, 30)],
    ['2024-07-16T19:20:30.45+01:00', Date.UTC(2024, 6, 16, 18, 20, 30, 450)],
    ['2024-07-16T19:20:30Z', Date.UTC(2024, 6, 16, 19, 20, 30)],
    ['2024-07-16T19:20:30-0530', Date.UTC(2024, 6, 17, 0, 50, 30)],
    ['2024-07-16 19:20:30', Date.UTC(2024, 6, 16, 19, 20, 30)],
    ['2024-07-16T19:20:30', Date.UTC(2024, 6, 16, 19, 20, 30)],
    ['2024-13-01', null],
    ['2024-02-30', null],
    ['2024-07-16T25:00Z', null],
    ['16/07/2024', null],
    ['', null],
    ['Tue, 16 Jul 2024', null],
  ];
  for (const [text, ms] of cases) it(`${text || '(empty)'}`, () => assert.equal(parseW3cDatetime(text), ms));
});
