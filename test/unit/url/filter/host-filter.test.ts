/**
 * The host blocklist (src/url/filter/host-filter.ts): exact hosts, domains with everything below
 * them on a label boundary, entries compared as the normalizer writes hosts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { HostFilter, hostNameOf, isInDomainSet } from '../../../../src/url/filter/host-filter.js';
import { normalizeUrl } from '../../../../src/url/normalize.js';

const verdict = (f: HostFilter, raw: string): string => {
  const r = normalizeUrl(raw);
  assert.equal(r.kind, 'ok');
  if (r.kind !== 'ok') return 'invalid';
  const v = f.check({ url: r.url, host: r.host, depth: 0 });
  return v.isAccepted ? 'ok' : v.reason;
};

describe('hostNameOf', () => {
  const cases: [string, string | null][] = [
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['.example.com', 'example.com'],
    [' a.test ', 'a.test'],
    ['caffè.test', 'xn--caff-8oa.test'],
    ['[::1]', '[::1]'],
    ['127.0.0.1', '127.0.0.1'],
    ['zip', 'zip'],
    ['', null],
    ['http://example.com', null],
    ['example.com/a', null],
    ['example.com:8080', null],
    ['example.com:80', null],
    ['user@example.com', null],
    ['::1', null],
    ['a b.com', null],
  ];
  for (const [entry, name] of cases) test(`'${entry}' -> ${String(name)}`, () => assert.equal(hostNameOf(entry), name));
});

describe('isInDomainSet', () => {
  const set = new Set(['example.co.uk', 'zip']);
  test('the name itself and every host below it, on label boundaries only', () => {
    for (const h of ['example.co.uk', 'www.example.co.uk', 'a.b.example.co.uk', 'files.zip']) assert.ok(isInDomainSet(h, set), h);
    for (const h of ['badexample.co.uk', 'co.uk', 'example.co.uk.evil.com', 'zipper.com', '[::1]']) assert.ok(!isInDomainSet(h, set), h);
    assert.ok(!isInDomainSet('example.co.uk', new Set()));
  });
});

describe('HostFilter', () => {
  test('accepts everything when nothing is blocked', () => {
    assert.equal(verdict(new HostFilter(), 'http://example.com/'), 'ok');
  });

  test('blocks hosts exactly, and domains with their subdomains', () => {
    const f = new HostFilter({ hosts: ['ads.example.com', 'CAFFÈ.test'], domains: ['tracker.co.uk', 'zip'] });
    assert.equal(verdict(f, 'http://ads.example.com/x'), 'host-blocked');
    assert.equal(verdict(f, 'http://ADS.example.com:8080/x'), 'host-blocked');
    assert.equal(verdict(f, 'http://caffè.test/'), 'host-blocked');
    assert.equal(verdict(f, 'http://example.com/'), 'ok');
    assert.equal(verdict(f, 'http://x.ads.example.com/'), 'ok');
    assert.equal(verdict(f, 'http://tracker.co.uk/'), 'host-blocked');
    assert.equal(verdict(f, 'http://a.b.tracker.co.uk/'), 'host-blocked');
    assert.equal(verdict(f, 'http://nottracker.co.uk/'), 'ok');
    assert.equal(verdict(f, 'http://any.zip/'), 'host-blocked');
    assert.deepEqual(f.spec, {
      id: 'host',
      params: { hosts: ['ads.example.com', 'xn--caff-8oa.test'], domains: ['tracker.co.uk', 'zip'] },
    });
  });

  test('lists every bad entry', () => {
    assert.throws(
      () => new HostFilter({ hosts: ['ok.com', 'http://x.com/'], domains: ['', 'a.com:99'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['hosts[1]', 'domains[0]', 'domains[1]'],
        );
        return true;
      },
    );
  });
});
