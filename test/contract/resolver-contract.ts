/**
 * The contract suite of the Resolver extension point (src/dns/resolver.ts), run by every resolver
 * set-up from its own test file. Only loopback and made-up `.test` names are used, answered by a
 * hosts map or by a stub lookup: no query ever leaves the process.
 *
 * `make(names)` gives a resolver that knows exactly `names` (name -> address, names in canonical
 * form: lower-case punycode); every other name does not resolve. A resolver that caches also gives
 * `advance` (moves its injected clock) and `ttlMs`, and runs the time-to-live part.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResolveResult, Resolver } from '../../src/dns/resolver.js';

/** One resolver under test. */
export interface ResolverWorld {
  readonly resolver: Resolver;
  /** Lookups that left the resolver for its source so far (0 for one that never asks). */
  queries(): number;
  /** Moves the resolver's clock forward, ms (caching resolvers only). */
  advance?(ms: number): void;
}

/** How the suite builds the resolvers of one set-up. */
export interface ResolverFactory {
  make(names: Readonly<Record<string, string>>): ResolverWorld;
  /** With `advance`: how long an answer, and a failure, is kept, ms. */
  readonly ttlMs?: { readonly positive: number; readonly negative: number };
}

const NAMES = { 'www.a.test': '127.0.0.2', 'xn--bcher-kva.test': '127.0.0.3', 'v6.test': '::1', 'slow.test': '127.0.0.4' } as const;

/** Names a page may link to, or a config may hold: none of them may make `resolve` reject. */
const ODD_NAMES = [
  '',
  ' ',
  '.',
  '..',
  'a..b',
  '-',
  'a b',
  'x'.repeat(300),
  `${'a.'.repeat(200)}test`,
  '[::1',
  '::g',
  '256.1.1.1',
  '\u0000',
  'ünï.çødé',
  'xn--',
  '*.test',
  'a_b.test',
];

function okOf(r: ResolveResult): { ip: string; family: number } {
  assert.equal(r.kind, 'ok', JSON.stringify(r));
  return r.kind === 'ok' ? { ip: r.ip, family: r.family } : { ip: '', family: 0 };
}

/** Runs the Resolver contract against the resolvers `factory` builds; see the file comment. */
export function resolverContract(name: string, factory: ResolverFactory): void {
  describe(`Resolver contract: ${name}`, () => {
    test('known names resolve to their address and family; unknown names are a dns-error with a code, never a rejection', async () => {
      const { resolver } = factory.make(NAMES);
      assert.deepEqual(okOf(await resolver.resolve('www.a.test')), { ip: '127.0.0.2', family: 4 });
      assert.deepEqual(okOf(await resolver.resolve('v6.test')), { ip: '::1', family: 6 });
      for (const host of ['nowhere.test', 'a.test', 'www.a.test.nowhere.test']) {
        const r = await resolver.resolve(host);
        assert.equal(r.kind, 'dns-error', host);
        if (r.kind === 'dns-error') assert.ok(r.code.length > 0 && r.message.length > 0, host);
      }
      resolver.close();
    });

    test('IP literals resolve to themselves without a lookup', async () => {
      const world = factory.make(NAMES);
      for (const [host, ip, family] of [
        ['127.0.0.1', '127.0.0.1', 4],
        ['10.1.2.3', '10.1.2.3', 4],
        ['::1', '::1', 6],
        ['[::1]', '::1', 6],
        ['[fe80::1]', 'fe80::1', 6],
      ] as const) {
        assert.deepEqual(okOf(await world.resolver.resolve(host)), { ip, family }, host);
        if (world.resolver.peek !== undefined)
          assert.deepEqual(okOf(world.resolver.peek(host) ?? assert.fail(`peek(${host})`)), { ip, family });
      }
      assert.equal(world.queries(), 0);
      world.resolver.close();
    });

    test('names are compared case-insensitively and in their punycode form', async () => {
      const world = factory.make(NAMES);
      for (const host of ['WWW.A.TEST', 'Www.A.Test', 'www.a.test.'])
        assert.deepEqual(okOf(await world.resolver.resolve(host)), { ip: '127.0.0.2', family: 4 }, host);
      for (const host of ['bücher.test', 'BÜCHER.test', 'XN--BCHER-KVA.TEST'])
        assert.deepEqual(okOf(await world.resolver.resolve(host)), { ip: '127.0.0.3', family: 4 }, host);
      assert.ok(world.queries() <= 2, `one lookup per name at most, got ${world.queries()}`);
      world.resolver.close();
    });

    test('odd names never reject', async () => {
      const { resolver } = factory.make(NAMES);
      for (const host of ODD_NAMES) {
        const r = await resolver.resolve(host);
        assert.ok(r.kind === 'ok' || r.kind === 'dns-error', JSON.stringify(host));
        if (resolver.peek !== undefined) assert.doesNotThrow(() => resolver.peek?.(host), JSON.stringify(host));
      }
      resolver.close();
    });

    test('concurrent lookups of one name share a single query', async () => {
      const world = factory.make(NAMES);
      const before = world.queries();
      const answers = await Promise.all(Array.from({ length: 5 }, () => world.resolver.resolve('slow.test')));
      const failures = await Promise.all(Array.from({ length: 5 }, () => world.resolver.resolve('missing.test')));
      assert.ok(world.queries() - before <= 2, `${world.queries() - before} queries for 2 names`);
      assert.deepEqual(new Set(answers.map((a) => JSON.stringify(okOf(a)))).size, 1);
      assert.ok(failures.every((f) => f.kind === 'dns-error'));
      world.resolver.close();
    });

    test('peek, when it answers, gives what resolve gives', async () => {
      const { resolver } = factory.make(NAMES);
      for (const host of ['www.a.test', 'nowhere.test', '127.0.0.1', 'V6.test']) {
        const seen = resolver.peek?.(host) ?? null;
        const r = await resolver.resolve(host);
        const after = resolver.peek?.(host) ?? null;
        for (const p of [seen, after]) {
          if (p === null) continue;
          assert.equal(p.kind, r.kind, host);
          if (p.kind === 'ok' && r.kind === 'ok') assert.deepEqual([p.ip, p.family], [r.ip, r.family], host);
        }
      }
      resolver.close();
    });

    test('close is idempotent', () => {
      const { resolver } = factory.make(NAMES);
      resolver.close();
      assert.doesNotThrow(() => resolver.close());
    });

    const { ttlMs } = factory;
    if (ttlMs === undefined) return;
    describe('caching', () => {
      test('an answer is kept for its positive time-to-live, then asked again', async () => {
        const world = factory.make(NAMES);
        const advance = world.advance ?? assert.fail('a caching set-up gives advance');
        await world.resolver.resolve('www.a.test');
        const asked = world.queries();
        assert.equal(asked, 1);
        advance(ttlMs.positive - 1);
        assert.deepEqual(okOf(await world.resolver.resolve('WWW.a.test')), { ip: '127.0.0.2', family: 4 });
        assert.equal(world.queries(), asked, 'fresh: from the cache');
        advance(1);
        await world.resolver.resolve('www.a.test');
        assert.equal(world.queries(), asked + 1, 'expired: asked again');
        world.resolver.close();
      });

      test('a failure is kept for the negative time-to-live, then asked again', async () => {
        const world = factory.make(NAMES);
        const advance = world.advance ?? assert.fail('a caching set-up gives advance');
        assert.equal((await world.resolver.resolve('gone.test')).kind, 'dns-error');
        advance(ttlMs.negative - 1);
        assert.equal((await world.resolver.resolve('gone.test')).kind, 'dns-error');
        assert.equal(world.queries(), 1);
        advance(1);
        await world.resolver.resolve('gone.test');
        assert.equal(world.queries(), 2);
        world.resolver.close();
      });
    });
  });
}
