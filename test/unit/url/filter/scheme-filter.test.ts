/** The scheme filter (src/url/filter/scheme-filter.ts): http and https only, narrowable to https. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { SchemeFilter } from '../../../../src/url/filter/scheme-filter.js';

const check = (f: SchemeFilter, url: string): boolean => f.check({ url, host: 'example.com', depth: 0 }).isAccepted;

describe('SchemeFilter', () => {
  test('accepts http and https by default, in any case', () => {
    const f = new SchemeFilter();
    for (const url of ['http://example.com/', 'https://example.com/a', 'HTTP://example.com/', 'HttpS://example.com/'])
      assert.ok(check(f, url), url);
  });

  test('rejects every other scheme with reason scheme', () => {
    const f = new SchemeFilter();
    for (const url of [
      'ftp://example.com/',
      'mailto:a@example.com',
      'javascript:void(0)',
      'file:///etc/passwd',
      'httpx://example.com/',
      'http:example.com',
      'example.com/',
    ]) {
      assert.deepEqual(f.check({ url, host: 'example.com', depth: 0 }), { isAccepted: false, reason: 'scheme' }, url);
    }
  });

  test('can be narrowed to https', () => {
    const f = new SchemeFilter({ schemes: ['HTTPS:'] });
    assert.ok(check(f, 'https://example.com/'));
    assert.ok(!check(f, 'http://example.com/'));
    assert.deepEqual(f.spec, { id: 'scheme', params: { schemes: ['https'] } });
  });

  test('refuses schemes it cannot fetch, and an empty list', () => {
    assert.throws(
      () => new SchemeFilter({ schemes: ['ftp', 'http', 'gopher'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['schemes[0]', 'schemes[2]'],
        );
        return true;
      },
    );
    assert.throws(() => new SchemeFilter({ schemes: [] }), ConfigError);
  });
});
