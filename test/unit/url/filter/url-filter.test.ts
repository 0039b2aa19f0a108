/**
 * The UrlFilter extension point (src/url/filter/url-filter.ts): shared verdicts, composition (first
 * rejection wins, in order), and the URL splitting helpers every built-in filter relies on.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCEPTED,
  REJECT_REASONS,
  RejectReason,
  composeFilters,
  pathDepth,
  rejected,
  urlParts,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
} from '../../../../src/url/filter/url-filter.js';

const candidate = (url: string): CandidateUrl => ({ url, host: new URL(url).hostname, depth: 0 });

/** A filter that records the URLs it saw and answers `verdict`. */
function fixed(id: string, verdict: FilterVerdict, seen: string[]): UrlFilter {
  return {
    spec: { id, params: {} },
    check(c) {
      seen.push(`${id}:${c.url}`);
      return verdict;
    },
  };
}

describe('verdicts', () => {
  test('reasons are unique kebab-case labels, one shared frozen verdict each', () => {
    assert.equal(new Set(REJECT_REASONS).size, REJECT_REASONS.length);
    for (const r of REJECT_REASONS) {
      assert.match(r, /^[a-z]+(?:-[a-z]+)*$/);
      const v = rejected(r);
      assert.deepEqual(v, { isAccepted: false, reason: r });
      assert.equal(rejected(r), v);
      assert.ok(Object.isFrozen(v));
    }
    assert.ok(Object.isFrozen(ACCEPTED));
    assert.deepEqual(ACCEPTED, { isAccepted: true });
  });
});

describe('composeFilters', () => {
  const url = candidate('http://example.com/a');

  test('an empty chain accepts everything', () => {
    assert.equal(composeFilters([]).check(url), ACCEPTED);
  });

  test('returns the first rejection and asks no filter after it', () => {
    const seen: string[] = [];
    const chain = composeFilters([
      fixed('a', ACCEPTED, seen),
      fixed('b', rejected(RejectReason.extension), seen),
      fixed('c', rejected(RejectReason.scheme), seen),
    ]);
    assert.deepEqual(chain.check(url), { isAccepted: false, reason: 'extension' });
    assert.deepEqual(seen, ['a:http://example.com/a', 'b:http://example.com/a']);
  });

  test('accepts when every filter accepts, and names its members in its spec', () => {
    const seen: string[] = [];
    const filters = [fixed('a', ACCEPTED, seen), fixed('b', ACCEPTED, seen)];
    const chain = composeFilters(filters);
    filters.push(fixed('late', rejected(RejectReason.depth), seen));
    assert.equal(chain.check(url), ACCEPTED);
    assert.deepEqual(chain.spec, { id: 'chain', params: { filters: ['a', 'b'] } });
  });
});

describe('urlParts', () => {
  const cases: [string, string, string][] = [
    ['http://example.com/', '/', ''],
    ['http://example.com/a/b.html', '/a/b.html', ''],
    ['https://example.com:8443/a?b=1&c=2', '/a', 'b=1&c=2'],
    ['http://user:p%2Fw@example.com/x?', '/x', ''],
    ['http://[::1]:8080/p/q?x=/y?z', '/p/q', 'x=/y?z'],
    ['http://example.com', '/', ''],
    ['http://example.com?q', '/', 'q'],
  ];
  for (const [url, path, query] of cases) {
    test(url, () => assert.deepEqual(urlParts(url), { path, query }));
  }
});

describe('pathDepth', () => {
  const cases: [string, number][] = [
    ['/', 0],
    ['/a', 1],
    ['/a/', 1],
    ['/a/b.html', 2],
    ['/a//b/', 2],
    ['/a/b/c/d/e/', 5],
  ];
  for (const [path, depth] of cases) test(`${path} has ${depth} levels`, () => assert.equal(pathDepth(path), depth));
});
