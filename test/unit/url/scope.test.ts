/**
 * Crawl scope (src/url/scope.ts): host rules (hosts, registrable domains, suffixes, seeds-only by
 * host or by domain) as a union, link depth and path depth, configuration errors, and the counted
 * budgets of ScopeCounters (pages per host, pages, bytes) with checkpoint and resume.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import { normalizeUrl } from '../../../src/url/normalize.js';
import { GEO_PAPER_MAX_PATH_DEPTH, ScopeCounters, SeedMatch, scopeFilter, type CrawlScope } from '../../../src/url/scope.js';
import type { UrlFilter } from '../../../src/url/filter/url-filter.js';

function verdict(f: UrlFilter, raw: string, depth = 0): string {
  const r = normalizeUrl(raw);
  assert.equal(r.kind, 'ok', raw);
  if (r.kind !== 'ok') return 'invalid';
  const v = f.check({ url: r.url, host: r.host, depth });
  return v.isAccepted ? 'ok' : v.reason;
}

function expectHosts(scope: CrawlScope, inScope: readonly string[], outOfScope: readonly string[]): void {
  const f = scopeFilter(scope);
  for (const h of inScope) assert.equal(verdict(f, `http://${h}/`), 'ok', h);
  for (const h of outOfScope) assert.equal(verdict(f, `http://${h}/`), 'out-of-scope', h);
}

function issuePaths(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.issues.map((i) => i.path);
  }
  assert.fail('no ConfigError');
}

describe('host rules', () => {
  test('no rule: every host is in scope', () => {
    expectHosts({}, ['example.com', 'a.b.c.test', '127.0.0.1', '[::1]'], []);
    expectHosts({ hosts: [], domains: [], suffixes: [] }, ['example.com'], []);
  });

  test('hosts are exact', () => {
    expectHosts({ hosts: ['www.Example.com'] }, ['www.example.com', 'WWW.EXAMPLE.COM'], ['example.com', 'a.www.example.com']);
  });

  test('domains are registrable domains with all their hosts', () => {
    expectHosts(
      { domains: ['example.co.uk', 'caffè.test'] },
      ['example.co.uk', 'www.example.co.uk', 'a.b.example.co.uk', 'xn--caff-8oa.test', 'menu.caffè.test'],
      ['other.co.uk', 'badexample.co.uk', 'example.com', 'co.uk'],
    );
  });

  test('a domain that is a subdomain or a public suffix is a configuration error, naming the fix', () => {
    assert.deepEqual(
      issuePaths(() => scopeFilter({ domains: ['www.example.com', 'co.uk', 'github.io', '127.0.0.1', 'alice.github.io', 'x/y'] })),
      ['domains[0]', 'domains[1]', 'domains[2]', 'domains[3]', 'domains[5]'],
    );
    assert.throws(() => scopeFilter({ domains: ['www.example.co.uk'] }), /its domain is 'example\.co\.uk'/);
    assert.throws(() => scopeFilter({ domains: ['co.uk'] }), /public suffix/);
  });

  test('suffixes match on a label boundary, with or without a leading dot', () => {
    expectHosts(
      { suffixes: ['.test', 'edu', 'ac.uk'] },
      ['a.test', 'www.javelin-ranked.test', 'cs.stanford.edu', 'www.ox.ac.uk', 'test'],
      ['a.testing', 'attest.com', 'example.com', 'education.com'],
    );
  });

  test("seeds-only by host: exactly the seeds' hosts", () => {
    const seeds = {
      urls: ['http://www.example.com/start', 'https://Blog.Example.org:8443/', 'http://127.0.0.1:8080/'],
      match: SeedMatch.host,
    };
    expectHosts(
      { seeds },
      ['www.example.com', 'blog.example.org', '127.0.0.1'],
      ['example.com', 'news.example.com', 'example.org', '127.0.0.2'],
    );
  });

  test("seeds-only by domain: the seeds' registrable domains, private suffixes kept apart", () => {
    const seeds = {
      urls: ['http://www.example.co.uk/', 'https://alice.github.io/blog/', 'http://localhost:3000/', 'http://10.0.0.1/'],
      match: SeedMatch.domain,
    };
    expectHosts(
      { seeds },
      ['example.co.uk', 'news.example.co.uk', 'alice.github.io', 'www.alice.github.io', 'localhost', '10.0.0.1'],
      ['bob.github.io', 'github.io', 'other.co.uk', '10.0.0.2', 'a.localhost'],
    );
  });

  test('rules form a union', () => {
    expectHosts(
      { hosts: ['one.com'], domains: ['two.org'], suffixes: ['.edu'], seeds: { urls: ['http://seed.net/'], match: SeedMatch.host } },
      ['one.com', 'www.two.org', 'mit.edu', 'seed.net'],
      ['www.one.com', 'www.seed.net', 'three.com'],
    );
  });

  test('bad seeds and a seeds-only scope without seeds are errors', () => {
    assert.deepEqual(
      issuePaths(() => scopeFilter({ seeds: { urls: ['http://ok.com/', 'mailto:a@b.c', 'not a url'], match: SeedMatch.domain } })),
      ['seeds.urls[1]', 'seeds.urls[2]'],
    );
    assert.deepEqual(
      issuePaths(() => scopeFilter({ seeds: { urls: [], match: SeedMatch.host } })),
      ['seeds.urls'],
    );
    assert.deepEqual(
      issuePaths(() => scopeFilter({ seeds: { urls: ['http://a.com/'], match: 'site' as SeedMatch } })),
      ['seeds.match'],
    );
  });
});

describe('depth limits', () => {
  test('maxDepth bounds the links from a seed', () => {
    const f = scopeFilter({ maxDepth: 3 });
    assert.equal(verdict(f, 'http://a.com/', 0), 'ok');
    assert.equal(verdict(f, 'http://a.com/', 3), 'ok');
    assert.equal(verdict(f, 'http://a.com/', 4), 'depth');
    assert.equal(verdict(scopeFilter({ maxDepth: 0 }), 'http://a.com/', 1), 'depth');
  });

  test('maxPathDepth bounds the path levels (the geo paper used 5)', () => {
    const f = scopeFilter({ maxPathDepth: GEO_PAPER_MAX_PATH_DEPTH });
    assert.equal(verdict(f, 'http://a.com/'), 'ok');
    assert.equal(verdict(f, 'http://a.com/1/2/3/4/5.html'), 'ok');
    assert.equal(verdict(f, 'http://a.com/1/2/3/4/5/'), 'ok');
    assert.equal(verdict(f, 'http://a.com/1/2/3/4/5/6.html'), 'path-depth');
    assert.equal(verdict(f, 'http://a.com/1/2/3/4/5/?q=a/b/c'), 'ok');
  });

  test('out-of-scope hosts are reported before path depth, depth before both', () => {
    const f = scopeFilter({ hosts: ['a.com'], maxDepth: 1, maxPathDepth: 1 });
    assert.equal(verdict(f, 'http://b.com/x/y/', 2), 'depth');
    assert.equal(verdict(f, 'http://b.com/x/y/', 1), 'out-of-scope');
    assert.equal(verdict(f, 'http://a.com/x/y/', 1), 'path-depth');
  });

  test('limits must be non-negative integers or Infinity', () => {
    assert.deepEqual(
      issuePaths(() => scopeFilter({ maxDepth: -1, maxPathDepth: 1.5, maxPages: Number.NaN, maxBytes: -3, maxPagesPerHost: 2 })),
      ['maxDepth', 'maxPathDepth', 'maxPages', 'maxBytes'],
    );
    assert.doesNotThrow(() => scopeFilter({ maxDepth: Infinity, maxPathDepth: 0 }));
  });
});

describe('scope spec', () => {
  test('names every rule that was set, and only those', () => {
    assert.deepEqual(scopeFilter({}).spec, { id: 'scope', params: {} });
    assert.deepEqual(
      scopeFilter({ suffixes: ['.test'], seeds: { urls: ['http://a.test/'], match: SeedMatch.domain }, maxDepth: 4, maxPages: 10 }).spec,
      {
        id: 'scope',
        params: { suffixes: ['.test'], seedMatch: 'domain', seeds: ['http://a.test/'], maxDepth: 4 },
      },
    );
  });
});

describe('ScopeCounters', () => {
  const at = (c: ScopeCounters, host: string): string => {
    const v = c.check({ url: `http://${host}/`, host, depth: 0 });
    return v.isAccepted ? 'ok' : v.reason;
  };

  test('with no limits accepts everything and counts totals only', () => {
    const c = new ScopeCounters({});
    for (let i = 0; i < 5; i++) c.recordPage('a.com', 100);
    assert.equal(at(c, 'a.com'), 'ok');
    assert.equal(c.pages, 5);
    assert.equal(c.bytes, 500);
    assert.equal(c.pagesOf('a.com'), 0);
    assert.equal(c.isExhausted, false);
    assert.deepEqual(c.spec, { id: 'scope-limits', params: {} });
  });

  test('maxPagesPerHost closes one host at a time', () => {
    const c = new ScopeCounters({ maxPagesPerHost: 2 });
    c.recordPage('a.com', 10);
    assert.equal(at(c, 'a.com'), 'ok');
    c.recordPage('a.com', 10);
    assert.equal(at(c, 'a.com'), 'host-page-limit');
    assert.equal(at(c, 'b.com'), 'ok');
    assert.equal(c.pagesOf('a.com'), 2);
    assert.equal(c.isExhausted, false);
  });

  test('maxPages and maxBytes close the whole crawl', () => {
    const pages = new ScopeCounters({ maxPages: 3 });
    for (const h of ['a.com', 'b.com']) pages.recordPage(h, 1);
    assert.equal(at(pages, 'c.com'), 'ok');
    pages.recordPage('c.com', 1);
    assert.equal(at(pages, 'd.com'), 'page-limit');
    assert.equal(pages.isExhausted, true);

    const bytes = new ScopeCounters({ maxBytes: 1000, maxPagesPerHost: 1 });
    bytes.recordPage('a.com', 999);
    assert.equal(at(bytes, 'b.com'), 'ok');
    assert.equal(at(bytes, 'a.com'), 'host-page-limit');
    bytes.recordPage('b.com', 1);
    assert.equal(at(bytes, 'c.com'), 'byte-limit');
    assert.equal(bytes.isExhausted, true);
  });

  test('a zero budget admits nothing', () => {
    assert.equal(at(new ScopeCounters({ maxPages: 0 }), 'a.com'), 'page-limit');
    assert.equal(at(new ScopeCounters({ maxPagesPerHost: 0 }), 'a.com'), 'host-page-limit');
  });

  test('takes its limits from a whole scope and resumes from a snapshot', () => {
    const scope: CrawlScope = { suffixes: ['.test'], maxPagesPerHost: 2, maxPages: 10, maxBytes: 1 << 20 };
    const c = new ScopeCounters(scope);
    c.recordPage('a.test', 300);
    c.recordPage('a.test', 200);
    c.recordPage('b.test', 100);
    const snap = c.snapshot();
    assert.deepEqual(snap, { pages: 3, bytes: 600, hostPages: { 'a.test': 2, 'b.test': 1 } });
    const resumed = new ScopeCounters(scope, JSON.parse(JSON.stringify(snap)));
    assert.equal(at(resumed, 'a.test'), 'host-page-limit');
    assert.equal(at(resumed, 'b.test'), 'ok');
    assert.equal(resumed.pages, 3);
    assert.equal(resumed.bytes, 600);
    assert.deepEqual(resumed.spec, { id: 'scope-limits', params: { maxPagesPerHost: 2, maxPages: 10, maxBytes: 1 << 20 } });
  });

  test('bad limits and bad byte counts are refused', () => {
    assert.deepEqual(
      issuePaths(() => new ScopeCounters({ maxPagesPerHost: -1, maxBytes: 0.5 })),
      ['maxPagesPerHost', 'maxBytes'],
    );
    const c = new ScopeCounters({});
    for (const bytes of [-1, 1.5, Number.NaN, Infinity]) assert.throws(() => c.recordPage('a.com', bytes), RangeError, String(bytes));
    assert.equal(c.pages, 0);
  });
});
