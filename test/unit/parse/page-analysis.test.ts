import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzePage } from '../../../src/parse/page-analysis.js';
import { parseHtml } from '../../../src/parse/html-page.js';
import { normalizeUrl } from '../../../src/url/normalize.js';

const OPTIONS = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };

describe('analyzePage: links', () => {
  it('normalizes each link as normalizeUrl does, also repeated targets and places in them', () => {
    const html = `<base href="/docs/"><p>
      <a href="x.html#m1">one</a> <a href="x.html#m2">two</a> <a href="x.html">three</a> <a href="X.HTML#m1">four</a>
      <a href="http://[bad/#z">bad</a> <a href="http://[bad/#y">bad again</a> <a href="ftp://f.test/a#b">ftp</a>
      <a href="../up.html?b=2&amp;a=1#q">query</a> <a href="http://Other.TEST:80/%7Ea/#f">other</a> <a href="x.html#m1">one again</a>`;
    const url = 'http://site.test/a/page.html';
    const a = analyzePage({ url, body: Buffer.from(html), contentType: 'text/html' }, OPTIONS);
    const page = parseHtml(html, url);
    const expected = page.links.map((l) => normalizeUrl(l.href, page.effectiveBase)).filter((n) => n.kind === 'ok');
    assert.deepStrictEqual(
      a.links.map((l) => l.url),
      expected.map((n) => (n.kind === 'ok' ? n.url : '')),
    );
    assert.deepStrictEqual(
      a.hostnames,
      expected.map((n) => (n.kind === 'ok' ? n.host : '')),
    );
    assert.equal(a.found, 10);
    assert.equal(a.invalid, 3, 'each invalid link counts, also a repeated one');
    assert.equal(a.links[0]?.url, 'http://site.test/docs/x.html');
    assert.equal(a.links[1]?.anchorText, 'two');
  });
});
