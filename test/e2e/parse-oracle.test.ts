/**
 * The HTML scanner against htmlparser2 on real documentation sites: every page of Debian's Python
 * 3.11, PostgreSQL 15 and Apache 2 manuals (about 4,400 pages written by different generators:
 * Sphinx, DocBook, Apache's XSLT, with inline SVG, conditional comments and scripts) must parse to
 * the same page whichever reads it, and the scanner must read them itself. `.ci/run` installs the
 * packages; without them this test fails with the command that does.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { decodeHtml, detectCharset } from '../../src/parse/charset.js';
import { parseHtml, type ParsedPage } from '../../src/parse/html-page.js';
import { scanHtml } from '../../src/parse/html-scanner.js';

const SITES = [
  { name: 'Python 3.11', dir: '/usr/share/doc/python3.11/html', pages: 400 },
  { name: 'PostgreSQL 15', dir: '/usr/share/doc/postgresql-doc-15/html', pages: 1000 },
  { name: 'Apache 2', dir: '/usr/share/doc/apache2-doc/manual', pages: 1000 },
];
const INSTALL = 'apt-get install -y --no-install-recommends python3.11-doc postgresql-doc-15 apache2-doc';

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html'))
    .map((f) => join(dir, f));
}

const withoutOffsets = (p: ParsedPage): ParsedPage => ({ ...p, links: p.links.map((l) => ({ ...l, offset: 0 })) });
const NO_EVENTS = { onopentag() {}, onclosetag() {}, ontext() {} };

describe('the HTML scanner on real documentation sites', () => {
  for (const site of SITES) {
    it(`reads every page of the ${site.name} manual as htmlparser2 does`, () => {
      assert.ok(existsSync(site.dir), `${site.dir} is missing: ${INSTALL}`);
      const files = htmlFiles(site.dir);
      assert.ok(files.length >= site.pages, `${site.dir} holds ${files.length} pages`);
      const differ: string[] = [];
      let handed = 0;
      let links = 0;
      for (const file of files) {
        const body = readFileSync(file);
        const html = decodeHtml(body, detectCharset(body, 'text/html').charset);
        const url = `http://docs.test/${file}`;
        const scanned = parseHtml(html, url);
        if (!isDeepStrictEqual(withoutOffsets(scanned), withoutOffsets(parseHtml(html, url, { engine: 'htmlparser2' })))) differ.push(file);
        if (!scanHtml(html, NO_EVENTS, new Set())) handed++;
        links += scanned.links.length;
      }
      assert.deepStrictEqual(differ.slice(0, 10), [], `${differ.length} pages differ`);
      assert.equal(handed, 0, 'pages the scanner handed to htmlparser2');
      assert.ok(links > files.length * 10, `only ${links} links`);
    });
  }
});
