import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CachingResolver, type SystemAnswer } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import { isUnresolvable } from '../../../src/dns/resolver.js';

/** A scripted system lookup that counts its calls. */
function scripted(answers: Record<string, SystemAnswer>): { lookup: (h: string) => Promise<SystemAnswer>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    lookup: async (h) => {
      calls.push(h);
      return answers[h] ?? { kind: 'dns-error', code: 'ENOTFOUND', message: `no ${h}` };
    },
  };
}

describe('CachingResolver', () => {
  it('answers from the hosts map first, IP literals as themselves', async () => {
    const sys = scripted({ 'a.test': { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 1000 } });
    const r = new CachingResolver({ hostsMap: HostsMap.fromEntries(['*.test=127.0.0.5']), lookup: sys.lookup });
    assert.deepEqual(await r.resolve('A.test'), { kind: 'ok', ip: '127.0.0.5', family: 4, source: 'hosts-map' });
    assert.deepEqual(await r.resolve('127.0.0.9'), { kind: 'ok', ip: '127.0.0.9', family: 4, source: 'literal' });
    assert.deepEqual(await r.resolve('[::1]'), { kind: 'ok', ip: '::1', family: 6, source: 'literal' });
    assert.deepEqual(sys.calls, []);
  });

  it('peek gives only the answers at hand: literals, the hosts map, fresh cache entries (failures too)', async () => {
    let now = 0;
    const sys = scripted({ 'a.example': { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 1000 } });
    const r = new CachingResolver({
      hostsMap: HostsMap.fromEntries(['*.test=127.0.0.5']),
      lookup: sys.lookup,
      now: () => now,
      negativeTtlMs: 1000,
    });
    assert.deepEqual(r.peek('127.0.0.9'), { kind: 'ok', ip: '127.0.0.9', family: 4, source: 'literal' });
    assert.deepEqual(r.peek('x.test'), { kind: 'ok', ip: '127.0.0.5', family: 4, source: 'hosts-map' });
    assert.equal(r.peek('a.example'), null, 'not looked up yet');
    const pending = r.resolve('a.example');
    assert.equal(r.peek('a.example'), null, 'still being looked up');
    await pending;
    assert.deepEqual(r.peek('A.example'), { kind: 'ok', ip: '10.0.0.1', family: 4, source: 'cache' });
    await r.resolve('gone.example');
    assert.equal(r.peek('gone.example')?.kind, 'dns-error', 'a failure at hand is an answer too');
    now = 1000;
    assert.equal(r.peek('a.example'), null, 'expired');
    assert.deepEqual(sys.calls, ['a.example', 'gone.example'], 'peek never looks anything up');
  });

  it('caches answers for their TTL, capped, and asks again after it', async () => {
    let now = 1_000;
    const sys = scripted({
      'a.example': { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 30_000 },
      'b.example': { kind: 'ok', ip: '10.0.0.2', family: 4, ttlMs: null },
      'c.example': { kind: 'ok', ip: '10.0.0.3', family: 4, ttlMs: 86_400_000 },
    });
    const r = new CachingResolver({ lookup: sys.lookup, now: () => now, defaultTtlMs: 5_000, maxTtlMs: 60_000 });
    assert.equal((await r.resolve('a.example')).source, 'dns');
    assert.equal((await r.resolve('a.example')).source, 'cache');
    now += 29_999;
    assert.equal((await r.resolve('a.example')).source, 'cache');
    now += 1;
    assert.equal((await r.resolve('a.example')).source, 'dns', 'expired after its own TTL');
    await r.resolve('b.example');
    now += 5_000;
    assert.equal((await r.resolve('b.example')).source, 'dns', 'no TTL: the default applies');
    await r.resolve('c.example');
    now += 60_000;
    assert.equal((await r.resolve('c.example')).source, 'dns', 'TTLs are capped');
    assert.deepEqual(sys.calls, ['a.example', 'a.example', 'b.example', 'b.example', 'c.example', 'c.example']);
  });

  it('remembers failures for the negative TTL and reports them as data', async () => {
    let now = 0;
    const sys = scripted({});
    const r = new CachingResolver({ lookup: sys.lookup, now: () => now, negativeTtlMs: 10_000 });
    const first = await r.resolve('gone.example');
    assert.equal(first.kind, 'dns-error');
    assert.equal(first.kind === 'dns-error' ? first.code : '', 'ENOTFOUND');
    assert.equal((await r.resolve('gone.example')).source, 'cache');
    now = 10_000;
    await r.resolve('gone.example');
    assert.equal(sys.calls.length, 2);
  });

  it('remembers a name server that did not answer for transientTtlMs only: the next attempt asks again', async () => {
    let now = 0;
    const sys = scripted({
      'slow.example': { kind: 'dns-error', code: 'ETIMEOUT', message: 'timed out' },
      'broken.example': { kind: 'dns-error', code: 'ESERVFAIL', message: 'server failure' },
    });
    const r = new CachingResolver({ lookup: sys.lookup, now: () => now, negativeTtlMs: 60_000, transientTtlMs: 5_000 });
    for (const name of ['slow.example', 'broken.example', 'gone.example']) await r.resolve(name);
    now = 4_999;
    assert.deepEqual(
      ['slow.example', 'broken.example', 'gone.example'].map((n) => r.peek(n)?.source),
      ['cache', 'cache', 'cache'],
    );
    now = 5_000;
    assert.deepEqual(
      ['slow.example', 'broken.example', 'gone.example'].map((n) => r.peek(n)?.source ?? null),
      [null, null, 'cache'],
      'NXDOMAIN is kept for the negative TTL',
    );
    await r.resolve('slow.example');
    assert.deepEqual(sys.calls, ['slow.example', 'broken.example', 'gone.example', 'slow.example']);
  });

  it('a lookup that throws is a dns-error, not a crash', async () => {
    const r = new CachingResolver({
      lookup: async () => {
        throw Object.assign(new Error('boom'), { code: 'ESERVFAIL' });
      },
    });
    const res = await r.resolve('x.example');
    assert.equal(res.kind, 'dns-error');
    assert.equal(res.kind === 'dns-error' ? res.code : '', 'ESERVFAIL');
  });

  it('shares one query among concurrent lookups of a name', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const r = new CachingResolver({
      lookup: async () => {
        calls++;
        await gate;
        return { kind: 'ok', ip: '10.1.1.1', family: 4, ttlMs: 1000 };
      },
    });
    const all = Promise.all([r.resolve('a.example'), r.resolve('A.EXAMPLE'), r.resolve('a.example.')]);
    release();
    const results = await all;
    assert.equal(calls, 1);
    assert.ok(results.every((x) => x.kind === 'ok' && x.ip === '10.1.1.1'));
  });

  it('keeps at most maxEntries names, least recently used out first', async () => {
    const sys = scripted({
      'a.example': { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 60_000 },
      'b.example': { kind: 'ok', ip: '10.0.0.2', family: 4, ttlMs: 60_000 },
      'c.example': { kind: 'ok', ip: '10.0.0.3', family: 4, ttlMs: 60_000 },
    });
    const r = new CachingResolver({ lookup: sys.lookup, maxEntries: 2 });
    await r.resolve('a.example');
    await r.resolve('b.example');
    await r.resolve('a.example'); // a is now the most recent
    await r.resolve('c.example'); // evicts b
    assert.equal(r.cacheSize, 2);
    assert.equal((await r.resolve('a.example')).source, 'cache');
    assert.equal((await r.resolve('b.example')).source, 'dns');
  });

  it('can refuse names the hosts map does not cover', async () => {
    const sys = scripted({ 'a.example': { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 1 } });
    const r = new CachingResolver({ hostsMap: HostsMap.fromEntries(['*.test=127.0.0.1']), isSystemAllowed: false, lookup: sys.lookup });
    const res = await r.resolve('a.example');
    assert.equal(res.kind === 'dns-error' ? res.code : '', 'ENOHOSTSMAP');
    assert.equal((await r.resolve('q.test')).kind, 'ok');
    assert.deepEqual(sys.calls, []);
  });

  it('looks up at most maxLookups names at once; the others wait their turn and are answered', async () => {
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const r = new CachingResolver({
      maxLookups: 4,
      lookup: async (h) => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return { kind: 'dns-error', code: 'ENOTFOUND', message: `no ${h}` };
      },
    });
    const all = Promise.all(Array.from({ length: 50 }, (_, i) => r.resolve(`h${i}.example`)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(r.lookupsInFlight, { active: 4, queued: 46 });
    while (gates.length > 0 || running > 0) {
      gates.splice(0).forEach((open) => open());
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await all;
    assert.equal(most, 4);
    assert.ok(results.every((x) => x.kind === 'dns-error' && x.code === 'ENOTFOUND' && x.source === 'dns'));
    assert.deepEqual(r.lookupsInFlight, { active: 0, queued: 0 });
  });

  it('close ends the lookups still waiting their turn at once, and remembers none of them', async () => {
    const gates: (() => void)[] = [];
    const sys: string[] = [];
    const r = new CachingResolver({
      maxLookups: 1,
      lookup: async (h) => {
        sys.push(h);
        await new Promise<void>((resolve) => gates.push(resolve));
        return { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 60_000 };
      },
    });
    const first = r.resolve('a.example');
    const waiting = [r.resolve('b.example'), r.resolve('c.example')];
    await new Promise((resolve) => setImmediate(resolve));
    r.close();
    for (const w of await Promise.all(waiting)) assert.equal(w.kind === 'dns-error' ? w.code : w.kind, 'ECANCELLED');
    gates.forEach((open) => open());
    assert.equal((await first).kind, 'ok', 'the lookup under way finishes');
    assert.deepEqual(sys, ['a.example'], 'the waiting names were never asked');
    assert.equal(r.cacheSize, 0);
  });

  it('answers names under .invalid as not existing without a lookup, unless the hosts map has them', async () => {
    const sys = scripted({});
    const r = new CachingResolver({ hostsMap: HostsMap.fromEntries(['mapped.invalid=127.0.0.7']), lookup: sys.lookup });
    for (const name of ['h1.invalid', 'A.B.INVALID', 'invalid', 'x.invalid.']) {
      const res = await r.resolve(name);
      assert.equal(res.kind === 'dns-error' ? res.code : res.kind, 'ENOTFOUND', name);
      assert.ok(isUnresolvable(res), `${name}: a definite answer`);
      assert.deepEqual(r.peek(name), res, `${name}: at hand for the fetch slots`);
    }
    assert.deepEqual(await r.resolve('mapped.invalid'), { kind: 'ok', ip: '127.0.0.7', family: 4, source: 'hosts-map' });
    assert.equal((await r.resolve('invalid.example')).source, 'dns', 'only the domain itself');
    assert.deepEqual(sys.calls, ['invalid.example']);
  });
});
