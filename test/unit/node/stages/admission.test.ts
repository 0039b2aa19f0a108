/**
 * The admission stage (src/node/stages/admission.ts): with the URL ids of a policy that keeps per-URL state,
 * a candidate that carries its fingerprint and id (the page processor hashed the link already) is
 * not hashed again, and one that carries none (a seed, a sitemap entry, a URL from another node) is;
 * and a host whose name does not answer in time does not hold up the queueing of a page's links.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrontierEntry } from '../../../../src/frontier/frontier.js';
import { MemoryFrontier } from '../../../../src/frontier/memory-frontier.js';
import { Admission } from '../../../../src/node/stages/admission.js';
import type { Candidate } from '../../../../src/node/stages/candidate.js';
import { ManualClock } from '../../../../src/core/clock.js';
import { CrawlStats } from '../../../../src/node/crawl-stats.js';
import type { RobotsCache } from '../../../../src/node/stages/robots-cache.js';
import { Waker } from '../../../../src/node/stages/waker.js';
import type { Resolver, ResolveResult } from '../../../../src/dns/resolver.js';
import { NEEDS_LINKS_ONLY, NO_PRIORITY_CHANGES, type DiscoveredUrl, type OrderingPolicy } from '../../../../src/order/policy.js';
import { MemorySeenSet } from '../../../../src/seen/memory-seen-set.js';
import type { Fingerprints } from '../../../../src/seen/seen-set.js';
import { urlFingerprint, urlFingerprintInto } from '../../../../src/url/fingerprint.js';
import { UrlIds } from '../../../../src/url/url-ids.js';
import { NumberedSpaces } from '../../../../src/url/numbered-spaces.js';
import { ACCEPTED, RejectReason, rejected, type UrlFilter } from '../../../../src/url/filter/url-filter.js';

/** A memory seen set that keeps every batch it was given. */
class RecordingSeenSet extends MemorySeenSet {
  readonly batches: bigint[][] = [];
  override addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.batches.push(Array.from(fingerprints));
    return super.addBatch(fingerprints);
  }
}

function setup(extra: Partial<ConstructorParameters<typeof Admission>[0]> = {}): {
  admission: Admission;
  seen: RecordingSeenSet;
  urlIds: UrlIds;
  prioritized: DiscoveredUrl[];
  stats: CrawlStats;
} {
  const prioritized: DiscoveredUrl[] = [];
  const policy: OrderingPolicy = {
    spec: { id: 'spy', params: {} },
    needs: NEEDS_LINKS_ONLY,
    prioritize: (u) => {
      prioritized.push(u);
      return 0;
    },
    observe: () => NO_PRIORITY_CHANGES,
  };
  const clock = new ManualClock();
  const stats = new CrawlStats();
  const seen = new RecordingSeenSet();
  const urlIds = new UrlIds();
  const admission = new Admission({
    frontier: new MemoryFrontier({ minDelayMs: 0 }),
    seen,
    policy,
    urlIds,
    robots: { peekRules: () => null } as unknown as RobotsCache,
    resolver: { resolve: async () => ({ kind: 'ok', ip: '127.0.0.1', family: 4, source: 'literal' }), close: () => {} } satisfies Resolver,
    isProxied: false,
    filter: null,
    clock,
    stats,
    waker: new Waker(clock),
    onRobotsDenied: () => {},
    ...extra,
  });
  return { admission, seen, urlIds, prioritized, stats };
}

describe('Admission', () => {
  test('decides a URL a page links to many times once, and counts every link', async () => {
    const checked: string[] = [];
    const filter: UrlFilter = {
      spec: { id: 'spy', params: {} },
      check: (c) => {
        checked.push(c.url);
        return c.url.endsWith('.pdf') ? rejected(RejectReason.extension) : ACCEPTED;
      },
    };
    const numbered = new NumberedSpaces(1);
    const { admission, seen, stats } = setup({ filter, numbered });
    const from = 'http://a.test/list?page=1';
    const link = (url: string, depth = 1): Candidate => ({ url, hostname: 'a.test', depth, fromUrl: from });
    const urls = ['http://a.test/x', 'http://a.test/doc.pdf', 'http://a.test/x', 'http://a.test/list?page=2', 'http://a.test/doc.pdf'];
    await admission.admit([...urls, 'http://a.test/list?page=3', 'http://a.test/list?page=3', 'http://a.test/x'].map((u) => link(u)));
    assert.deepStrictEqual(checked, ['http://a.test/x', 'http://a.test/doc.pdf', 'http://a.test/list?page=2', 'http://a.test/list?page=3']);
    assert.deepStrictEqual(Object.fromEntries(stats.filtered), { extension: 2 });
    // page=2 and page=3 share a numbered space of one URL: both are new when decided, so both pass
    // here; the space's count moves at the seen test (page=2 first).
    assert.equal(stats.links.queued, 3);
    assert.equal(stats.links.seenBefore, 3);
    assert.deepStrictEqual(seen.batches[0]?.length, 6, 'every link that passed goes to the seen test, repeats included');
    // Another batch from the same page: page=4 is cut, twice, and both cuts are counted.
    checked.length = 0;
    await admission.admit([link('http://a.test/list?page=4'), link('http://a.test/list?page=4'), link('http://a.test/x', 2)]);
    assert.deepStrictEqual(checked, ['http://a.test/list?page=4', 'http://a.test/x'], 'another depth is decided again');
    assert.deepStrictEqual(Object.fromEntries(stats.filtered), { extension: 2, 'trap-numbered': 2 });
    assert.equal(numbered.cutSpaces()[0]?.cut, 2);
  });

  test('uses the fingerprint and id a candidate carries, and hashes and numbers the others', async () => {
    const { admission, seen, urlIds, prioritized } = setup();
    const linked = 'http://a.test/linked';
    const seed = 'http://a.test/seed';
    // Carried words that are not the URL's own show that admission takes them as they are.
    const carried = new Uint32Array(2);
    urlFingerprintInto('http://elsewhere.test/', carried);
    const candidates: Candidate[] = [
      {
        url: linked,
        hostname: 'a.test',
        depth: 1,
        fromUrl: 'http://a.test/',
        fromId: 0,
        id: 41,
        fingerprintHi: carried[0] as number,
        fingerprintLo: carried[1] as number,
      },
      { url: seed, hostname: 'a.test', depth: 0, fromUrl: null },
    ];
    await admission.admit(candidates);
    assert.deepEqual(seen.batches, [[urlFingerprint('http://elsewhere.test/'), urlFingerprint(seed)]]);
    assert.deepEqual(
      prioritized.map((u) => [u.url, u.id]),
      [
        [linked, 41],
        [seed, urlIds.peek(seed)],
      ],
    );
    assert.notEqual(urlIds.peek(seed), -1, 'the seed was numbered');
    assert.equal(urlIds.peek(linked), -1, 'the carried id was not looked up');
  });

  test('queues the links of a host whose name does not answer in time without its address, and remembers the answer', async () => {
    const clock = new ManualClock();
    const added: FrontierEntry[] = [];
    class RecordingFrontier extends MemoryFrontier {
      override add(entry: FrontierEntry, nowMs: number): boolean {
        added.push(entry);
        return super.add(entry, nowMs);
      }
    }
    let answerSlow: (r: ResolveResult) => void = () => {};
    const asked: string[] = [];
    const resolver: Resolver = {
      resolve: (host) => {
        asked.push(host);
        if (host === 'slow.test')
          return new Promise((resolve) => {
            answerSlow = resolve;
          });
        return Promise.resolve({ kind: 'ok', ip: '10.0.0.1', family: 4, source: 'literal' });
      },
      close: () => {},
    };
    const admission = new Admission({
      frontier: new RecordingFrontier({ minDelayMs: 0 }),
      seen: new MemorySeenSet(),
      urlIds: null,
      policy: { spec: { id: 'flat', params: {} }, needs: NEEDS_LINKS_ONLY, prioritize: () => 0, observe: () => NO_PRIORITY_CHANGES },
      robots: { peekRules: () => null } as unknown as RobotsCache,
      resolver,
      isProxied: false,
      filter: null,
      clock,
      stats: new CrawlStats(),
      waker: new Waker(clock),
      onRobotsDenied: () => {},
      dnsWaitMs: 50,
    });
    const link = (url: string): Candidate => ({ url, hostname: new URL(url).hostname, depth: 1, fromUrl: 'http://fast.test/' });
    const ipOf = (url: string): string | undefined => added.find((e) => e.url === url)?.ip;
    /** Fails instead of hanging when an admission waits for something that never comes. */
    const settled = (p: Promise<void>, what: string): Promise<void> =>
      Promise.race([
        p,
        new Promise<void>((_, reject) => {
          setTimeout(() => reject(new Error(`${what}: still waiting`)), 5000).unref();
        }),
      ]);

    const first = admission.admit([link('http://slow.test/a'), link('http://fast.test/b')]);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    assert.equal(added.length, 0, 'the answers may still come within dnsWaitMs');
    await clock.advanceTo(50);
    await settled(first, 'the first admission');
    assert.deepEqual(
      added.map((e) => e.url),
      ['http://slow.test/a', 'http://fast.test/b'],
    );
    assert.equal(ipOf('http://fast.test/b'), '10.0.0.1');
    assert.equal(ipOf('http://slow.test/a'), undefined, 'queued without the address it did not get in time');

    // The lookup is still under way: the next link of the host is queued without waiting for it again.
    await settled(admission.admit([link('http://slow.test/c')]), 'an admission while the lookup is under way');
    assert.equal(ipOf('http://slow.test/c'), undefined);
    assert.deepEqual(asked, ['slow.test', 'fast.test'], 'one lookup per name');

    answerSlow({ kind: 'ok', ip: '10.0.0.9', family: 4, source: 'literal' });
    await settled(admission.admit([link('http://slow.test/d')]), 'an admission after the answer came');
    assert.equal(ipOf('http://slow.test/d'), '10.0.0.9', 'the late answer was remembered');
    assert.deepEqual(asked, ['slow.test', 'fast.test']);
  });
});
