/**
 * A page that links to hundreds of hosts the crawl has not met, against a name server of limited
 * capacity on loopback UDP (test/helpers/dns-server.ts: answers 20 ms after the query, drops a query
 * that finds 40 unanswered): the caching resolver's turn-taking (`maxLookups`) gets every name its
 * answer, where all the queries at once lose most of them to timeouts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CachingResolver, DEFAULT_MAX_LOOKUPS } from '../../../src/dns/caching-resolver.js';
import type { ResolveResult } from '../../../src/dns/resolver.js';
import { createServerLookup } from '../../../src/dns/server-lookup.js';
import { startTestDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

const NAMES = 400;
let server: TestDnsServer;
before(async () => {
  server = await startTestDnsServer(new Map([['live.test', '127.0.0.5']]), 60, { delayMs: 20, maxPending: 40 });
});
after(async () => {
  await server.close();
});

/** Resolves `live.test` and NAMES dead names at once through a resolver taking `maxLookups` turns; the failure codes counted. */
async function flood(maxLookups: number): Promise<{ codes: Record<string, number>; live: ResolveResult }> {
  const r = new CachingResolver({ lookup: createServerLookup([server.address], { timeoutMs: 400, tries: 1 }), maxLookups });
  try {
    const [live, ...dead] = await Promise.all([
      r.resolve('live.test'),
      ...Array.from({ length: NAMES }, (_, i) => r.resolve(`gone${i}.${maxLookups}.test`)),
    ]);
    const codes: Record<string, number> = {};
    for (const d of dead) {
      const code = d.kind === 'dns-error' ? d.code : 'ok';
      codes[code] = (codes[code] ?? 0) + 1;
    }
    return { codes, live: live as ResolveResult };
  } finally {
    r.close();
  }
}

describe('a flood of new names', () => {
  test('taken a few at a time, every name gets its answer', async () => {
    const { codes, live } = await flood(DEFAULT_MAX_LOOKUPS);
    assert.deepEqual(codes, { ENOTFOUND: NAMES });
    assert.equal(live.kind === 'ok' ? live.ip : live.kind, '127.0.0.5');
  });

  test('all at once (the control), the server drops most of them', async () => {
    const { codes } = await flood(10_000);
    assert.ok((codes.ETIMEOUT ?? 0) > NAMES / 2, JSON.stringify(codes));
  });
});
