/**
 * Lookups sent to named DNS servers (src/dns/server-lookup.ts), against a DNS server on loopback UDP
 * (test/helpers/dns-server.ts): answers with their TTL, NXDOMAIN final without an AAAA query, a
 * silent server a transient failure; and behind the caching resolver, the cache, the negative cache
 * and the hosts map still decide before any query leaves, and closing it cancels what is in flight.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import { createServerLookup, dnsServerProblem } from '../../../src/dns/server-lookup.js';
import { startTestDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

let server: TestDnsServer;
before(async () => {
  server = await startTestDnsServer(
    new Map([
      ['a.test', '127.0.0.5'],
      ['www.b.test', '127.0.0.6'],
    ]),
    90,
  );
});
after(async () => {
  await server.close();
});

describe('dnsServerProblem', () => {
  test('takes IPv4, IPv4:port, IPv6 and [IPv6]:port', () => {
    for (const ok of ['127.0.0.1', '10.0.0.53:5353', '::1', '2001:db8::53', '[::1]:53']) assert.equal(dnsServerProblem(ok), null, ok);
  });
  test('refuses names, bad ports and broken brackets', () => {
    for (const bad of ['dns.example', 'dns.example:53', '127.0.0.1:0', '127.0.0.1:70000', '127.0.0.1:x', '[127.0.0.1]:53', '[::1', ''])
      assert.notEqual(dnsServerProblem(bad), null, bad);
  });
});

describe('server lookup', () => {
  test('an A record comes back with its TTL, and only the named server is asked', async () => {
    const lookup = createServerLookup([server.address]);
    const before = server.queries.length;
    assert.deepEqual(await lookup('A.test'), { kind: 'ok', ip: '127.0.0.5', family: 4, ttlMs: 90_000 });
    assert.deepEqual(server.queries.slice(before), ['A a.test']);
  });

  test('NXDOMAIN is final: no AAAA query, no system fallback even for a name /etc/hosts knows', async () => {
    const lookup = createServerLookup([server.address]);
    const before = server.queries.length;
    const r = await lookup('nowhere.test');
    assert.equal(r.kind, 'dns-error');
    assert.equal(r.kind === 'dns-error' && r.code, 'ENOTFOUND');
    const local = await lookup('localhost');
    assert.equal(local.kind === 'dns-error' && local.code, 'ENOTFOUND');
    assert.deepEqual(server.queries.slice(before), ['A nowhere.test', 'A localhost']);
  });

  test('a server that does not answer is a transient failure, within the tries and timeout', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const lookup = createServerLookup([`127.0.0.1:${silent.address().port}`], { timeoutMs: 100, tries: 1 });
      const r = await lookup('a.test');
      assert.equal(r.kind, 'dns-error');
      assert.equal(r.kind === 'dns-error' && r.code, 'ETIMEOUT');
    } finally {
      silent.close();
    }
  });

  test('refuses an empty list and a malformed entry', () => {
    assert.throws(() => createServerLookup([]), RangeError);
    assert.throws(() => createServerLookup(['dns.example']), /address, not a name/);
  });
});

describe('caching resolver over a server lookup', () => {
  test('closing it cancels the queries in flight', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const resolver = new CachingResolver({
        lookup: createServerLookup([`127.0.0.1:${silent.address().port}`], { timeoutMs: 3000, tries: 1 }),
      });
      const pending = resolver.resolve('a.test');
      resolver.close();
      const r = await pending;
      assert.equal(r.kind === 'dns-error' && r.code, 'ECANCELLED');
    } finally {
      silent.close();
    }
  });

  test('answers and failures are cached, and the hosts map is asked first', async () => {
    let nowMs = 0;
    const resolver = new CachingResolver({
      lookup: createServerLookup([server.address]),
      hostsMap: HostsMap.fromEntries(['fixed.test=127.0.0.9'], 'test'),
      negativeTtlMs: 60_000,
      now: () => nowMs,
    });
    const before = server.queries.length;
    assert.deepEqual(await resolver.resolve('www.b.test'), { kind: 'ok', ip: '127.0.0.6', family: 4, source: 'dns' });
    assert.deepEqual(await resolver.resolve('www.b.test'), { kind: 'ok', ip: '127.0.0.6', family: 4, source: 'cache' });
    assert.equal((await resolver.resolve('gone.test')).kind, 'dns-error');
    assert.equal((await resolver.resolve('gone.test')).source, 'cache');
    assert.deepEqual(await resolver.resolve('fixed.test'), { kind: 'ok', ip: '127.0.0.9', family: 4, source: 'hosts-map' });
    assert.deepEqual(server.queries.slice(before), ['A www.b.test', 'A gone.test']);
    // The record's 90 s TTL, then the negative 60 s, pass: both names are asked again.
    nowMs = 91_000;
    await resolver.resolve('www.b.test');
    await resolver.resolve('gone.test');
    assert.deepEqual(server.queries.slice(before), ['A www.b.test', 'A gone.test', 'A www.b.test', 'A gone.test']);
    resolver.close();
  });
});
