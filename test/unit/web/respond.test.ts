import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeTarget, isPlainTarget } from '../../../src/web/respond.js';
import { hostName } from '../../../src/web/server.js';

/** What decodeTarget must return: the WHATWG URL parser's path (decoded) and query. */
function viaUrlParser(raw: string): { path: string; query: string } | null {
  try {
    const u = new URL(raw, 'http://x');
    return { path: decodeURIComponent(u.pathname), query: u.search };
  } catch {
    return null;
  }
}

describe('decodeTarget', () => {
  const targets = [
    '/',
    '/a/b-1.html',
    '/a/b-1/',
    '/search?q=1&p2=3',
    '/search?q=1&p2=3?',
    '/x?q=%zz',
    '/a?',
    "/a'b?c'd",
    '/%41%42',
    '/caf%C3%A9-3.html',
    '/a b',
    '/./x',
    '/a/../b',
    '/a/./b/',
    '/a/%2e%2e/b',
    '/a#frag',
    '/a\\b',
    '/a?q=1#f',
    '/.well-known/x',
    '/a/b/..',
    '/%zz',
    '/~user/(x)',
    "/!$&'()*+,;=:@-._~",
  ];
  for (const raw of targets) {
    test(`${JSON.stringify(raw)} decodes as the URL parser does`, () => {
      assert.deepEqual(decodeTarget(raw), viaUrlParser(raw));
    });
  }

  test('the fast path is taken only for targets the URL parser leaves unchanged', () => {
    for (const raw of targets) {
      if (!isPlainTarget(raw)) continue;
      const u = new URL(raw, 'http://x');
      assert.equal(`${u.pathname}${u.search}`, raw, raw);
    }
    assert.ok(isPlainTarget('/a/b-1.html'));
    assert.ok(!isPlainTarget('/a/../b'));
    assert.ok(!isPlainTarget('/%41'));
  });
});

describe('hostName (Host header to host name)', () => {
  const cases: [string, string][] = [
    ['a.test', 'a.test'],
    ['a.test:8080', 'a.test'],
    ['a.test.', 'a.test'],
    ['a.test.:80', 'a.test'],
    ['[::1]:8080', '[::1]'],
    ['[::1]', '[::1]'],
    ['a.test:', 'a.test:'],
    ['a.test:x1', 'a.test:x1'],
    ['', ''],
  ];
  for (const [header, name] of cases) {
    test(`${JSON.stringify(header)} -> ${JSON.stringify(name)}`, () => assert.equal(hostName(header), name));
  }
});
