/** The regular-expression filter (src/url/filter/regex-filter.ts): excludes win, empty include = everything. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { RegexFilter } from '../../../../src/url/filter/regex-filter.js';

const verdict = (f: RegexFilter, url: string): string => {
  const v = f.check({ url, host: new URL(url).hostname, depth: 0 });
  return v.isAccepted ? 'ok' : v.reason;
};

describe('RegexFilter', () => {
  test('with no patterns accepts everything', () => {
    const f = new RegexFilter();
    assert.equal(verdict(f, 'http://example.com/anything?at=all'), 'ok');
    assert.deepEqual(f.spec, { id: 'regex', params: { include: [], exclude: [] } });
  });

  test('include: a URL must match one pattern', () => {
    const f = new RegexFilter({ include: ['^https?://[^/]*\\.edu/', /\/docs\//] });
    assert.equal(verdict(f, 'http://cs.example.edu/x'), 'ok');
    assert.equal(verdict(f, 'http://example.com/docs/a'), 'ok');
    assert.equal(verdict(f, 'http://example.com/blog/a'), 'not-included');
  });

  test('exclude wins over include', () => {
    const f = new RegexFilter({ include: ['example\\.com'], exclude: ['\\?replytocom=', /\/print\//i] });
    assert.equal(verdict(f, 'http://example.com/a'), 'ok');
    assert.equal(verdict(f, 'http://example.com/a?replytocom=3'), 'regex-excluded');
    assert.equal(verdict(f, 'http://example.com/PRINT/a'), 'regex-excluded');
    assert.equal(verdict(f, 'http://other.org/print/a'), 'regex-excluded');
    assert.equal(verdict(f, 'http://other.org/a'), 'not-included');
  });

  test('global and sticky flags are dropped, so repeated checks agree', () => {
    const f = new RegexFilter({ exclude: [/private/gy, /secret/g] });
    for (let i = 0; i < 4; i++) assert.equal(verdict(f, 'http://example.com/secret/1'), 'regex-excluded');
  });

  test('lists every pattern that does not compile', () => {
    assert.throws(
      () => new RegexFilter({ include: ['[a-'], exclude: ['ok', '*bad'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['include[0]', 'exclude[1]'],
        );
        return true;
      },
    );
  });
});
