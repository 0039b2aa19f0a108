/**
 * The UrlFilter contract (src/url/filter/url-filter.ts), run against every filter: each file
 * `src/url/filter/<id>-filter.ts` and the two filters of src/url/scope.ts. There is no registry of
 * filters (the node's chain is built in src/node/stages/filter-chain.ts), so the suite reads the
 * folder: a new filter file without an entry in {@link FILTERS} fails the first test.
 *
 * Each filter is built with its defaults and with options that make it reject, and must: answer
 * with the shared frozen verdicts and a reason from the closed union; accept one URL and reject
 * another for its own reason (so the suite cannot pass on a filter that does nothing); give the
 * same verdict twice, from two instances, with and without `parsed`; never throw on odd input,
 * pathological lengths included; read no clock and no randomness; leave the candidate alone; name
 * itself in `spec`; and throw `ConfigError` listing every issue for bad options.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, mock, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.js';
import { DynamicPathFilter } from '../../src/url/filter/dynamic-path-filter.js';
import { ExtensionFilter } from '../../src/url/filter/extension-filter.js';
import { HostFilter } from '../../src/url/filter/host-filter.js';
import { LengthFilter } from '../../src/url/filter/length-filter.js';
import { RegexFilter } from '../../src/url/filter/regex-filter.js';
import { SchemeFilter } from '../../src/url/filter/scheme-filter.js';
import { TrapFilter } from '../../src/url/filter/trap-filter.js';
import {
  ACCEPTED,
  REJECT_REASONS,
  composeFilters,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type RejectReason,
  type UrlFilter,
} from '../../src/url/filter/url-filter.js';
import { normalizeUrl } from '../../src/url/normalize.js';
import { ScopeCounters, scopeFilter } from '../../src/url/scope.js';

/** How the suite builds one filter and what it expects of it. */
interface FilterCase {
  /** Built with its defaults (where it has them). */
  readonly plain: () => UrlFilter;
  /** Built with options under which `rejects` is rejected. */
  readonly configured: () => UrlFilter;
  /** A URL (normalized by the suite) that `configured` accepts, with its depth. */
  readonly accepts: readonly [url: string, depth: number];
  /** A URL that `configured` rejects, with its depth and the reason. */
  readonly rejects: readonly [url: string, depth: number, reason: RejectReason];
  /** Options with `issues` problems: the constructor must throw a ConfigError listing each. */
  readonly bad: () => unknown;
  readonly issues: number;
}

const YEAR = 2024;

const FILTERS: Readonly<Record<string, FilterCase>> = {
  'dynamic-path': {
    plain: () => new DynamicPathFilter(),
    configured: () => new DynamicPathFilter({ patterns: [/\/cgi-bin\//g, '\\.pl$'] }),
    accepts: ['http://a.test/bin/x.html', 0],
    rejects: ['http://a.test/cgi-bin/x', 0, 'dynamic-path'],
    bad: () => new DynamicPathFilter({ patterns: ['(', '[a-'] }),
    issues: 2,
  },
  extension: {
    plain: () => new ExtensionFilter(),
    configured: () => new ExtensionFilter({ extensions: ['.PDF', 'jpg'] }),
    accepts: ['http://a.test/paper.html?x=a.pdf', 0],
    rejects: ['http://a.test/paper.pdf', 0, 'extension'],
    bad: () => new ExtensionFilter({ extensions: ['p df', 'a/b', 'ok'] }),
    issues: 2,
  },
  host: {
    plain: () => new HostFilter(),
    configured: () => new HostFilter({ hosts: ['www.blocked.test'], domains: ['evil.test'] }),
    accepts: ['http://blocked.test/', 0],
    rejects: ['http://deep.sub.evil.test/x', 0, 'host-blocked'],
    bad: () => new HostFilter({ hosts: ['not a host'], domains: ['http://x.test/path'] }),
    issues: 2,
  },
  length: {
    plain: () => new LengthFilter(),
    configured: () => new LengthFilter({ maxLength: 40 }),
    accepts: ['http://a.test/short', 0],
    rejects: [`http://a.test/${'x'.repeat(40)}`, 0, 'too-long'],
    bad: () => new LengthFilter({ maxLength: 0 }),
    issues: 1,
  },
  regex: {
    plain: () => new RegexFilter(),
    configured: () => new RegexFilter({ include: [/\.test\//g], exclude: ['/private/', /\/logout$/y] }),
    accepts: ['http://a.test/public/logout-help', 0],
    rejects: ['http://a.test/private/x', 0, 'regex-excluded'],
    bad: () => new RegexFilter({ include: ['('], exclude: ['+'] }),
    issues: 2,
  },
  scheme: {
    plain: () => new SchemeFilter(),
    configured: () => new SchemeFilter({ schemes: ['HTTPS'] }),
    accepts: ['https://a.test/', 0],
    rejects: ['http://a.test/', 0, 'scheme'],
    bad: () => new SchemeFilter({ schemes: ['ftp', 'file'] }),
    issues: 2,
  },
  trap: {
    plain: () => new TrapFilter({ currentYear: YEAR }),
    configured: () => new TrapFilter({ currentYear: YEAR, maxQueryParams: 2 }),
    accepts: ['http://a.test/a/b/c?x=1&y=2', 0],
    rejects: ['http://a.test/a/?x=1&y=2&z=3', 0, 'trap-query-params'],
    bad: () => new TrapFilter({ currentYear: 1200, maxPathDepth: -1, sessionMarkers: [''] }),
    issues: 3,
  },
  scope: {
    plain: () => scopeFilter({}),
    configured: () => scopeFilter({ hosts: ['a.test'], suffixes: ['.ok.test'], maxDepth: 3, maxPathDepth: 4 }),
    accepts: ['http://x.ok.test/a/b', 3],
    rejects: ['http://b.test/', 0, 'out-of-scope'],
    bad: () => scopeFilter({ domains: ['co.uk'], maxDepth: -1, maxPathDepth: 1.5 }),
    issues: 3,
  },
  'scope-limits': {
    plain: () => new ScopeCounters({}),
    configured: () => {
      const counters = new ScopeCounters({ maxPagesPerHost: 2, maxPages: 100 });
      counters.recordPage('full.test', 10);
      counters.recordPage('full.test', 10);
      counters.recordPage('a.test', 10);
      return counters;
    },
    accepts: ['http://a.test/next', 0],
    rejects: ['http://full.test/more', 0, 'host-page-limit'],
    bad: () => new ScopeCounters({ maxPages: -1, maxBytes: 0.5 }),
    issues: 2,
  },
};

/** A candidate as the node makes it: the normalizer's URL and host. */
function candidate(input: string, depth = 0): CandidateUrl {
  const r = normalizeUrl(input);
  if (r.kind !== 'ok') return assert.fail(`${input} does not normalize: ${JSON.stringify(r)}`);
  return Object.freeze({ url: r.url, host: r.host, depth });
}

/** Links as pages write them, normalized: odd and pathological ones included. */
const WEB_LINKS: readonly string[] = [
  'http://a.test/',
  'https://A.TEST:8443/x/../y/./z?b=2&a=1#frag',
  'http://bücher.test/straße/ä.html',
  'http://[::1]:8080/x',
  'http://127.0.0.1/cgi-bin/x.pl?session=abc',
  'http://a.test/2019/01/01/',
  `http://a.test/2031/12/`,
  'http://a.test/s/5c6422be/page',
  'http://a.test/(S(x1y2z3abcdefghijklmnop))/p.aspx',
  'http://a.test/a/b/a/b/a/b/a/b/',
  'http://a.test/img.JPG',
  'http://a.test/x.tar.gz',
  'http://a.test/.htaccess',
  'http://a.test/x.',
  'http://a.test/?',
  'http://a.test/?&&&=&',
  'http://user:pass@a.test/%2F%3F?%23',
  'http://a.test/%00%ff%zz',
  'http://xn--bcher-kva.test/',
  'http://a.test/' + 'a/'.repeat(30_000),
  'http://a.test/?' + 'p=1&'.repeat(20_000),
  'http://a.test/' + 'ab'.repeat(50_000) + '.pdf',
  'http://a.test/' + '/'.repeat(20_000),
  'http://a.test/' + 'x/y/'.repeat(15_000) + 'x/',
  'http://localhost/',
  'http://co.uk/',
  'http://a.test/?' + 'x'.repeat(100_000),
];

/** Strings no normalizer gives, which a filter must still answer for rather than throw. */
const RAW: readonly CandidateUrl[] = [
  { url: '', host: '', depth: 0 },
  { url: 'garbage', host: 'garbage', depth: 0 },
  { url: 'http://', host: '', depth: -1 },
  { url: 'http://a.test', host: 'a.test', depth: Number.MAX_SAFE_INTEGER },
  { url: '//a.test?x', host: 'a.test', depth: 0 },
  { url: 'ftp://a.test/x.jpg', host: 'a.test', depth: 0 },
  { url: 'http://a.test/\u0000\uffff', host: 'a.test', depth: NaN },
].map((c) => Object.freeze(c));

/** The verdict checked against the contract's shape: a shared, frozen verdict with a known reason. */
function checked(filter: UrlFilter, c: CandidateUrl): FilterVerdict {
  const v = filter.check(c);
  assert.ok(Object.isFrozen(v), 'verdicts are frozen');
  if (v.isAccepted) assert.equal(v, ACCEPTED, 'the shared ACCEPTED');
  else {
    assert.ok(REJECT_REASONS.includes(v.reason), `unknown reason ${String(v.reason)}`);
    assert.equal(v, rejected(v.reason), 'the shared rejection');
  }
  return v;
}

describe('UrlFilter contract', () => {
  // A filter reads no clock and no randomness: any call during a check fails the check.
  before(() => {
    mock.method(Date, 'now', () => assert.fail('a filter called Date.now'));
    mock.method(Math, 'random', () => assert.fail('a filter called Math.random'));
    mock.method(performance, 'now', () => assert.fail('a filter called performance.now'));
  });
  after(() => mock.restoreAll());

  test('every filter in src/url/filter/ has an entry in this suite', () => {
    const ids = readdirSync(new URL('../../src/url/filter/', import.meta.url))
      .filter((f) => f.endsWith('-filter.ts'))
      .map((f) => f.slice(0, -'-filter.ts'.length));
    assert.deepEqual(
      ids.filter((id) => id !== 'url' && !(id in FILTERS)),
      [],
      'add the new filter to FILTERS',
    );
    assert.ok(ids.length >= 7);
  });

  for (const [id, c] of Object.entries(FILTERS)) {
    describe(`UrlFilter contract: ${id}`, () => {
      test('spec names the filter with its effective parameters, frozen, the same for the same options', () => {
        for (const build of [c.plain, c.configured]) {
          const a = build();
          assert.equal(a.spec.id, id);
          assert.deepEqual(build().spec, a.spec);
          assert.ok(Object.isFrozen(a.spec) && Object.isFrozen(a.spec.params), 'spec is frozen');
          for (const [key, value] of Object.entries(a.spec.params)) {
            const isScalar = ['string', 'number', 'boolean'].includes(typeof value);
            assert.ok(isScalar || (Array.isArray(value) && value.every((v) => typeof v === 'string')), `${id}: param ${key}`);
          }
        }
        assert.notDeepEqual(c.configured().spec, c.plain().spec, 'the options show in spec');
      });

      test('accepts one URL and rejects another for its own reason', () => {
        const f = c.configured();
        assert.equal(checked(f, candidate(c.accepts[0], c.accepts[1])), ACCEPTED, c.accepts[0]);
        assert.equal(checked(f, candidate(c.rejects[0], c.rejects[1])), rejected(c.rejects[2]), c.rejects[0]);
      });

      test('pure and deterministic: the same verdict twice, from two instances, with and without parsed; odd input never throws', () => {
        for (const build of [c.plain, c.configured]) {
          const a = build();
          const b = build();
          const all = [
            ...WEB_LINKS.map((u, i) => candidate(u, i % 5)),
            ...RAW,
            candidate(c.accepts[0], c.accepts[1]),
            candidate(c.rejects[0], c.rejects[1]),
          ];
          const first = all.map((x) => checked(a, x));
          // Again in reverse order: a verdict must not depend on the URL checked before it.
          const again = [...all]
            .reverse()
            .map((x) => checked(a, x))
            .reverse();
          assert.deepEqual(again, first);
          assert.deepEqual(
            all.map((x) => checked(b, x)),
            first,
          );
          const withParsed = all.map((x) => {
            let parsed: URL | null = null;
            try {
              parsed = new URL(x.url);
            } catch {
              return first[all.indexOf(x)];
            }
            return checked(a, Object.freeze({ ...x, parsed }));
          });
          assert.deepEqual(withParsed, first);
        }
      });

      test('bad options throw a ConfigError listing every issue', () => {
        assert.throws(c.bad, (err: unknown) => {
          assert.ok(err instanceof ConfigError, String(err));
          assert.equal(err.issues.length, c.issues, JSON.stringify(err.issues));
          return true;
        });
      });
    });
  }

  test('composeFilters asks in order and returns the first rejection; an empty chain accepts; the list is copied', () => {
    const list: UrlFilter[] = [new SchemeFilter({ schemes: ['https'] }), new LengthFilter({ maxLength: 20 })];
    const chain = composeFilters(list);
    list.push(new HostFilter({ hosts: ['a.test'] }));
    assert.equal(chain.spec.id, 'chain');
    assert.equal(checked(chain, candidate(`http://a.test/${'x'.repeat(30)}`)), rejected('scheme'));
    assert.equal(checked(chain, candidate(`https://a.test/${'x'.repeat(30)}`)), rejected('too-long'));
    assert.equal(checked(chain, candidate('https://a.test/')), ACCEPTED, 'the host filter pushed later is not in the chain');
    assert.equal(checked(composeFilters([]), candidate('http://a.test/')), ACCEPTED);
  });
});
