/** The length filter (src/url/filter/length-filter.ts): inclusive limit, 2,048 by default. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { DEFAULT_MAX_URL_LENGTH, LengthFilter } from '../../../../src/url/filter/length-filter.js';

const urlOfLength = (n: number): string => {
  const head = 'http://example.com/';
  return head + 'a'.repeat(n - head.length);
};

describe('LengthFilter', () => {
  test('accepts up to 2,048 characters by default and rejects one more as too-long', () => {
    const f = new LengthFilter();
    assert.equal(DEFAULT_MAX_URL_LENGTH, 2048);
    assert.equal(urlOfLength(2048).length, 2048);
    assert.ok(f.check({ url: urlOfLength(2048), host: 'example.com', depth: 0 }).isAccepted);
    assert.deepEqual(f.check({ url: urlOfLength(2049), host: 'example.com', depth: 0 }), { isAccepted: false, reason: 'too-long' });
  });

  test('takes another limit', () => {
    const f = new LengthFilter({ maxLength: 30 });
    assert.ok(f.check({ url: urlOfLength(30), host: 'example.com', depth: 0 }).isAccepted);
    assert.ok(!f.check({ url: urlOfLength(31), host: 'example.com', depth: 0 }).isAccepted);
    assert.deepEqual(f.spec, { id: 'length', params: { maxLength: 30 } });
  });

  test('refuses limits that are not positive integers', () => {
    for (const maxLength of [0, -1, 1.5, Number.NaN, Infinity])
      assert.throws(() => new LengthFilter({ maxLength }), ConfigError, String(maxLength));
  });
});
