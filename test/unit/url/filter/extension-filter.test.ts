/**
 * The extension filter (src/url/filter/extension-filter.ts): the last path segment's extension,
 * case-insensitive, path parameters ignored, query and directories never read as extensions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import {
  DEFAULT_BLOCKED_EXTENSIONS,
  EXTENSION_GROUPS,
  ExtensionFilter,
  lastSegmentExtension,
} from '../../../../src/url/filter/extension-filter.js';

const verdict = (f: ExtensionFilter, path: string): string => {
  const v = f.check({ url: `http://example.com${path}`, host: 'example.com', depth: 0 });
  return v.isAccepted ? 'ok' : v.reason;
};

describe('lastSegmentExtension', () => {
  const cases: [string, string][] = [
    ['/', ''],
    ['/a', ''],
    ['/a.jpg', 'jpg'],
    ['/A.JPG', 'jpg'],
    ['/d/archive.tar.gz', 'gz'],
    ['/img.d/page', ''],
    ['/a.jpg/', ''],
    ['/.well-known', ''],
    ['/a.', ''],
    ['/p.pdf;v=2', 'pdf'],
    ['/x/y.Html', 'html'],
    ['/a;b.c/d', ''],
  ];
  for (const [path, ext] of cases) test(`${path} -> '${ext}'`, () => assert.equal(lastSegmentExtension(path), ext));
});

describe('ExtensionFilter with the default list', () => {
  const f = new ExtensionFilter();

  test('rejects a file of every family, in any case', () => {
    for (const [family, list] of Object.entries(EXTENSION_GROUPS)) {
      for (const ext of list) {
        assert.equal(verdict(f, `/files/x.${ext}`), 'extension', `${family} .${ext}`);
        assert.equal(verdict(f, `/files/x.${ext.toUpperCase()}`), 'extension', `${family} .${ext.toUpperCase()}`);
      }
    }
  });

  test('accepts pages, directories, queries and extensions it does not list', () => {
    for (const path of [
      '/',
      '/a/',
      '/a.html',
      '/b.htm',
      '/index.php',
      '/x.aspx',
      '/c.jsp',
      '/feed.xml',
      '/data.json',
      '/a.jpg/',
      '/view?file=a.jpg',
      '/photos.jpg.html',
      '/readme',
    ]) {
      assert.equal(verdict(f, path), 'ok', path);
    }
  });

  test('the default list is the union of the families, without duplicates', () => {
    assert.deepEqual(DEFAULT_BLOCKED_EXTENSIONS, Object.values(EXTENSION_GROUPS).flat());
    assert.equal(new Set(DEFAULT_BLOCKED_EXTENSIONS).size, DEFAULT_BLOCKED_EXTENSIONS.length);
    assert.ok(Object.isFrozen(DEFAULT_BLOCKED_EXTENSIONS));
  });
});

describe('ExtensionFilter with a configured list', () => {
  test('takes entries with or without a dot, any case; [] accepts everything', () => {
    const f = new ExtensionFilter({ extensions: ['.PDF', 'Rss'] });
    assert.equal(verdict(f, '/a.pdf'), 'extension');
    assert.equal(verdict(f, '/a.rss'), 'extension');
    assert.equal(verdict(f, '/a.jpg'), 'ok');
    assert.deepEqual(f.spec, { id: 'extension', params: { extensions: ['pdf', 'rss'] } });
    assert.equal(verdict(new ExtensionFilter({ extensions: [] }), '/a.jpg'), 'ok');
  });

  test('refuses entries that are not extensions', () => {
    assert.throws(
      () => new ExtensionFilter({ extensions: ['jpg', 'a.b', '', '*'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['extensions[1]', 'extensions[2]', 'extensions[3]'],
        );
        return true;
      },
    );
  });
});
