/** Seeds from the configuration and a file: normalized, without repeats, every bad one reported. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { loadSeeds, parseSeedsFile } from '../../../src/node/seeds.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-seeds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('seeds', () => {
  test('a seeds file: one URL per line, comments and blank lines skipped, fragments kept for the normalizer', () => {
    assert.deepEqual(parseSeedsFile('# seeds\nhttp://a.test/\n\n  http://b.test/x#top   # the b host\r\n#http://c.test/\n'), ['http://a.test/', 'http://b.test/x#top']);
  });

  test('flags first, then the file; normalized, repeats dropped', () => {
    const file = join(dir, 'seeds.txt');
    writeFileSync(file, 'HTTP://B.test:80/x#top\nhttp://a.test\n');
    assert.deepEqual(loadSeeds({ urls: ['http://a.test/', 'http://A.TEST/'], file }), [
      { url: 'http://a.test/', hostname: 'a.test' }, { url: 'http://b.test/x', hostname: 'b.test' },
    ]);
  });

  test('reports every bad seed with where it came from, an unreadable file, or no seeds at all', () => {
    const file = join(dir, 'bad.txt');
    writeFileSync(file, 'http://ok.test/\nmailto:someone@example.org\n');
    assert.throws(() => loadSeeds({ urls: ['not a url'], file }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.issues.map((i) => i.path), ['seeds.urls.0', 'seeds.file:2']);
      return true;
    });
    assert.throws(() => loadSeeds({ urls: [], file: join(dir, 'missing.txt') }), (err: unknown) => err instanceof ConfigError && err.code === 'CONFIG_FILE_UNREADABLE');
    assert.throws(() => loadSeeds({ urls: [], file: null }), /no seed URLs/);
    assert.throws(() => loadSeeds({ urls: [], file: null, sitemaps: ['ftp://x.test/s.xml'] }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.issues.map((i) => i.path), ['seeds.sitemaps.0']);
      return true;
    });
  });

  test('sitemaps are seeds of their own kind, first; a URL given both ways is a sitemap; a sitemap alone is enough', () => {
    assert.deepEqual(loadSeeds({ urls: ['http://a.test/sitemap.xml', 'http://a.test/'], file: null, sitemaps: ['HTTP://a.test/sitemap.xml', 'http://b.test/s.xml.gz', 'http://b.test/s.xml.gz'] }), [
      { url: 'http://a.test/sitemap.xml', hostname: 'a.test', isSitemap: true },
      { url: 'http://b.test/s.xml.gz', hostname: 'b.test', isSitemap: true },
      { url: 'http://a.test/', hostname: 'a.test' },
    ]);
    assert.deepEqual(loadSeeds({ urls: [], file: null, sitemaps: ['http://c.test/map.txt'] }), [{ url: 'http://c.test/map.txt', hostname: 'c.test', isSitemap: true }]);
  });
});
