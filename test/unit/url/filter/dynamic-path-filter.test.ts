/** The dynamic-path filter (src/url/filter/dynamic-path-filter.ts): path and query only, never the host. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { DynamicPathFilter } from '../../../../src/url/filter/dynamic-path-filter.js';

const verdict = (f: DynamicPathFilter, url: string): string => {
  const v = f.check({ url, host: new URL(url).hostname, depth: 0 });
  return v.isAccepted ? 'ok' : v.reason;
};

describe('DynamicPathFilter with the default patterns', () => {
  const f = new DynamicPathFilter();

  test('rejects cgi-bin directories and .cgi / .pl scripts', () => {
    for (const url of [
      'http://example.com/cgi-bin/search',
      'http://example.com/CGI-BIN/a?b=1',
      'http://example.com/x/cgi-bin/',
      'http://example.com/search.cgi',
      'http://example.com/search.cgi?q=1',
      'http://example.com/wiki.pl/Page',
      'http://example.com/a.PL;x',
      'http://example.com/go?to=/cgi-bin/x',
    ])
      assert.equal(verdict(f, url), 'dynamic-path', url);
  });

  test('accepts ordinary pages and never looks at the host', () => {
    for (const url of [
      'http://example.com/',
      'http://cgi-bin.example.com/',
      'http://example.pl/',
      'http://example.com/cgi-binary/',
      'http://example.com/a.plan',
      'http://example.com/index.php?q=1',
    ]) {
      assert.equal(verdict(f, url), 'ok', url);
    }
  });
});

describe('DynamicPathFilter with configured patterns', () => {
  test('strings compile as regular expressions; a g flag does not make verdicts depend on the last URL', () => {
    const f = new DynamicPathFilter({ patterns: ['\\?', /\/servlet\//g] });
    assert.equal(verdict(f, 'http://example.com/a?b'), 'dynamic-path');
    for (let i = 0; i < 3; i++) assert.equal(verdict(f, 'http://example.com/servlet/x'), 'dynamic-path');
    assert.equal(verdict(f, 'http://example.com/cgi-bin/x'), 'ok');
    assert.deepEqual(f.spec, { id: 'dynamic-path', params: { patterns: ['/\\?/', '/\\/servlet\\//'] } });
  });

  test('refuses a pattern that does not compile', () => {
    assert.throws(
      () => new DynamicPathFilter({ patterns: ['ok', '(unclosed'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['patterns[1]'],
        );
        return true;
      },
    );
  });
});
