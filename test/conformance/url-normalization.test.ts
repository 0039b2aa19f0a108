/**
 * Runs the URL normalization table (url-normalization.json): one test per row, named by its note.
 * Every `ok` row must also be a fixed point (normalizing the result changes nothing), and the
 * shortcut of normalizeUrl must agree with the rule-by-rule reference on every row and on a few
 * thousand generated URLs. Equivalent pairs share a fingerprint; distinct pairs and distinct
 * expected URLs do not.
 */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { urlFingerprintHex } from '../../src/url/fingerprint.js';
import { normalizeUrl, normalizeUrlReference, type NormalizeOptions, type NormalizeResult } from '../../src/url/normalize.js';

interface Case {
  readonly input: string;
  readonly base?: string;
  readonly options?: NormalizeOptions;
  readonly expected: string | null;
  readonly reason?: 'unparseable' | 'unsupported-scheme';
  readonly note: string;
}

interface Pair {
  readonly a: string;
  readonly b: string;
  readonly base?: string;
  readonly options?: NormalizeOptions;
  readonly note: string;
}

const table = JSON.parse(readFileSync(new URL('./url-normalization.json', import.meta.url), 'utf8')) as {
  cases: Case[];
  equivalent: Pair[];
  distinct: Pair[];
};

function okUrl(r: NormalizeResult, what: string): string {
  assert.equal(r.kind, 'ok', `${what}: ${JSON.stringify(r)}`);
  return r.kind === 'ok' ? r.url : '';
}

test('the table is large enough and its notes name each row once', () => {
  assert.ok(table.cases.length >= 80, `${table.cases.length} rows`);
  assert.ok(table.equivalent.length >= 10 && table.distinct.length >= 10);
  const notes = table.cases.map((c) => c.note);
  assert.equal(new Set(notes).size, notes.length, 'duplicate notes');
  for (const c of table.cases) {
    if (c.expected === null) assert.ok(c.reason !== undefined, `${c.note}: invalid rows say why`);
  }
});

describe('URL normalization table', () => {
  for (const c of table.cases) {
    test(c.note, () => {
      const got = normalizeUrl(c.input, c.base, c.options);
      if (c.expected === null) {
        assert.deepEqual(got, { kind: 'invalid', reason: c.reason });
      } else {
        assert.equal(okUrl(got, c.input), c.expected);
        assert.equal(got.kind === 'ok' ? got.host : '', new URL(c.expected).hostname, 'host is the hostname of the URL');
        // Idempotent: the result is its own normal form (no base needed, same options).
        assert.equal(okUrl(normalizeUrl(c.expected, undefined, c.options), c.expected), c.expected);
      }
      assert.deepEqual(normalizeUrlReference(c.input, c.base, c.options), got, 'shortcut and reference agree');
    });
  }
});

describe('fingerprints of the table', () => {
  const fp = (url: string, p: Pair): string => urlFingerprintHex(okUrl(normalizeUrl(url, p.base, p.options), url));

  for (const p of table.equivalent) {
    test(`equivalent: ${p.note}`, () => {
      assert.equal(fp(p.a, p), fp(p.b, p), `${p.a} ~ ${p.b}`);
    });
  }
  for (const p of table.distinct) {
    test(`distinct: ${p.note}`, () => {
      assert.notEqual(fp(p.a, p), fp(p.b, p), `${p.a} vs ${p.b}`);
    });
  }
  test('different expected URLs have different fingerprints', () => {
    const urls = new Set(table.cases.flatMap((c) => (c.expected === null ? [] : [c.expected])));
    const prints = new Set([...urls].map((u) => urlFingerprintHex(u)));
    assert.equal(prints.size, urls.size);
  });
});

/** Small deterministic generator for the fuzz test (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces chosen to reach every branch: the shortcut (no %, ?, ; and no trailing dot) and each rule.
const SCHEMES = ['http://', 'HTTP://', 'https://', 'ftp://', '//', ''];
const USERS = ['', '', 'u@', 'u:p@', '%75@'];
const HOSTS = [
  'example.com',
  'EXAMPLE.com.',
  'www.example.com',
  'WWW.ex.com.',
  'www.com',
  'bücher.example',
  '[::1]',
  '127.0.0.1',
  'a..',
  'ex%61mple.com',
];
const PORTS = ['', '', ':80', ':443', ':8080', ':'];
const SEGMENTS = [
  '/a',
  '/b',
  '/./',
  '/../',
  '/%7e',
  '/%2f',
  '/%zz',
  '/%',
  '/%%34%31',
  '/;jsessionid=1',
  '/x;sid=2',
  '/;y=1',
  '/ü',
  '/%2E%2e',
  '/b c',
  '\\x',
  '/A-Z_~',
  '/%41',
];
const QUERIES = ['', '', '?', '?a=1', '?b=2&a=1', '?utm_source=x', '?&&', '?%7e=%41', '?sid=1&x', '?q=a+b&Z=1'];
const FRAGMENTS = ['', '', '#', '#f', '#a?b=c'];
const BASES = [undefined, 'http://Base.example/dir/page.html?q', 'https://www.base.example./a/b/'];
const OPTIONS: NormalizeOptions[] = [
  {},
  { stripWww: true },
  { sortQuery: true },
  { dropParams: [] },
  { stripWww: true, sortQuery: true, dropParams: ['a', 'q*'] },
];

test('the shortcut agrees with the reference on generated URLs, and every result is a fixed point', () => {
  const next = rng(20_240_611);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  let ok = 0;
  let plain = 0;
  for (let i = 0; i < 20_000; i++) {
    const scheme = pick(SCHEMES);
    let path = '';
    for (let n = Math.floor(next() * 4); n > 0; n--) path += pick(SEGMENTS);
    const authority = scheme === '' ? '' : pick(USERS) + pick(HOSTS) + pick(PORTS);
    const input = scheme + authority + path + pick(QUERIES) + pick(FRAGMENTS);
    const base = pick(BASES);
    const options = pick(OPTIONS);
    const got = normalizeUrl(input, base, options);
    assert.deepEqual(normalizeUrlReference(input, base, options), got, `${input} against ${base}`);
    if (got.kind !== 'ok') continue;
    ok++;
    if (!/[%?;]/.test(got.url)) plain++;
    assert.deepEqual(normalizeUrl(got.url, undefined, options), got, `fixed point: ${got.url}`);
  }
  // Both the shortcut and the full path were exercised many times.
  assert.ok(ok > 10_000 && plain > 2_000 && ok - plain > 2_000, `${ok} ok, ${plain} plain`);
});
