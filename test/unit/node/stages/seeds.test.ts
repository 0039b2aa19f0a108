/** Seeds from the configuration and a file: normalized, without repeats, every bad one reported. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../../../src/core/errors.js';
import { loadSeeds, parseSeedsFile, readSeedsFile, type Seed } from '../../../../src/node/stages/seeds.js';
import { normalizeUrl } from '../../../../src/url/normalize.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-seeds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('seeds', () => {
  test('a seeds file: one URL per line, comments and blank lines skipped, fragments kept for the normalizer', () => {
    assert.deepEqual(parseSeedsFile('# seeds\nhttp://a.test/\n\n  http://b.test/x#top   # the b host\r\n#http://c.test/\n'), [
      'http://a.test/',
      'http://b.test/x#top',
    ]);
  });

  test('listed seeds normalized without repeats; the file checked and counted, one URL per host kept for the scope', () => {
    const file = join(dir, 'seeds.txt');
    writeFileSync(file, 'HTTP://B.test:80/x#top\nhttp://a.test\n# comment\n\nhttp://b.test/y');
    const seeds = loadSeeds({ urls: ['http://a.test/', 'http://A.TEST/'], file });
    assert.deepEqual(seeds.listed, [{ url: 'http://a.test/', hostname: 'a.test' }]);
    assert.deepEqual(seeds.file, { path: file, count: 3 });
    assert.equal(seeds.count, 4);
    assert.deepEqual(seeds.hostUrls, ['http://a.test/', 'http://b.test/x']);
  });

  test('the seeds file is read back in batches, in order, across chunk boundaries and multi-byte characters', async () => {
    const file = join(dir, 'many.txt');
    // Long lines with non-ASCII hosts, so that 1 MiB chunk ends fall inside characters.
    const lines = Array.from({ length: 30_000 }, (_, i) => `http://bücher-${i % 50}.test/${'päge-'.repeat(8)}${i}`);
    writeFileSync(file, `${lines.join('\r\n')}\n`);
    const seeds = loadSeeds({ urls: [], file });
    assert.equal(seeds.file?.count, 30_000);
    const read: Seed[] = [];
    let batches = 0;
    for await (const batch of readSeedsFile(file, 4096)) {
      assert.ok(batch.length <= 4096);
      batches++;
      read.push(...batch);
    }
    assert.equal(batches, Math.ceil(30_000 / 4096));
    assert.equal(read.length, 30_000);
    read.forEach((s, i) => {
      const n = normalizeUrl(lines[i] as string);
      assert.ok(n.kind === 'ok');
      assert.equal(s.url, n.url, `line ${i + 1}`);
    });
    assert.match(read[0]?.url ?? '', /^http:\/\/xn--bcher-0-[a-z0-9]+\.test\/(p%C3%A4ge-){8}0$/);
  });

  test('reports every bad seed with where it came from, an unreadable file, or no seeds at all', () => {
    const file = join(dir, 'bad.txt');
    writeFileSync(file, 'http://ok.test/\nmailto:someone@example.org\n');
    assert.throws(
      () => loadSeeds({ urls: ['not a url'], file }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['seeds.urls.0', 'seeds.file:2'],
        );
        return true;
      },
    );
    assert.throws(
      () => loadSeeds({ urls: [], file: join(dir, 'missing.txt') }),
      (err: unknown) => err instanceof ConfigError && err.code === 'CONFIG_FILE_UNREADABLE',
    );
    assert.throws(() => loadSeeds({ urls: [], file: null }), /no seed URLs/);
    const many = join(dir, 'many-bad.txt');
    writeFileSync(many, Array.from({ length: 250 }, (_, i) => `nope-${i}`).join('\n'));
    assert.throws(
      () => loadSeeds({ urls: [], file: many }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.issues.length, 101, 'a hundred reported, then how many more');
        assert.equal(err.issues[0]?.path, 'seeds.file:1');
        assert.match(err.issues[100]?.message ?? '', /150 more/);
        return true;
      },
    );
    assert.throws(
      () => loadSeeds({ urls: [], file: null, sitemaps: ['ftp://x.test/s.xml'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['seeds.sitemaps.0'],
        );
        return true;
      },
    );
  });

  test('sitemaps are seeds of their own kind, first; a URL given both ways is a sitemap; a sitemap alone is enough', () => {
    assert.deepEqual(
      loadSeeds({
        urls: ['http://a.test/sitemap.xml', 'http://a.test/'],
        file: null,
        sitemaps: ['HTTP://a.test/sitemap.xml', 'http://b.test/s.xml.gz', 'http://b.test/s.xml.gz'],
      }).listed,
      [
        { url: 'http://a.test/sitemap.xml', hostname: 'a.test', isSitemap: true },
        { url: 'http://b.test/s.xml.gz', hostname: 'b.test', isSitemap: true },
        { url: 'http://a.test/', hostname: 'a.test' },
      ],
    );
    assert.deepEqual(loadSeeds({ urls: [], file: null, sitemaps: ['http://c.test/map.txt'] }).listed, [
      { url: 'http://c.test/map.txt', hostname: 'c.test', isSitemap: true },
    ]);
  });
});
