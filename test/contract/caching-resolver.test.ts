/**
 * The Resolver contract (resolver-contract.ts) against CachingResolver in the two set-ups a crawl
 * uses on loopback: a hosts map alone (system lookups off), and a lookup function, here a stub
 * that answers from a table after a turn of the event loop, on an injected clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachingResolver, type SystemLookup } from '../../src/dns/caching-resolver.js';
import { HostsMap } from '../../src/dns/hosts-map.js';
import { resolverContract } from './resolver-contract.js';

resolverContract('caching, hosts map only', {
  make: (names) => ({
    resolver: new CachingResolver({
      hostsMap: HostsMap.fromEntries(Object.entries(names).map(([n, ip]) => `${n}=${ip}`)),
      isSystemAllowed: false,
    }),
    queries: () => 0,
  }),
});

const POSITIVE_TTL_MS = 30_000;
const NEGATIVE_TTL_MS = 5_000;

resolverContract('caching, stub lookup', {
  make: (names) => {
    let nowMs = 1_000_000;
    let queries = 0;
    const lookup: SystemLookup = async (host) => {
      queries++;
      await new Promise((resolve) => setImmediate(resolve));
      const ip = names[host];
      return ip === undefined
        ? { kind: 'dns-error', code: 'ENOTFOUND', message: `${host} not found` }
        : { kind: 'ok', ip, family: ip.includes(':') ? 6 : 4, ttlMs: POSITIVE_TTL_MS };
    };
    return {
      resolver: new CachingResolver({ lookup, negativeTtlMs: NEGATIVE_TTL_MS, now: () => nowMs }),
      queries: () => queries,
      advance: (ms) => {
        nowMs += ms;
      },
    };
  },
  ttlMs: { positive: POSITIVE_TTL_MS, negative: NEGATIVE_TTL_MS },
});

test('CachingResolver: a lookup function that throws is a dns-error, never a rejection', async () => {
  const resolver = new CachingResolver({
    lookup: async (host) => {
      throw Object.assign(new Error(`resolver down for ${host}`), { code: 'ESERVFAIL' });
    },
  });
  const r = await resolver.resolve('www.a.test');
  assert.deepEqual(r.kind === 'dns-error' ? [r.kind, r.code] : r, ['dns-error', 'ESERVFAIL']);
  resolver.close();
});
