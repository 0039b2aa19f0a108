/**
 * The admission stage (src/node/admission.ts) with the URL ids of a policy that keeps per-URL state:
 * a candidate that carries its fingerprint and id (the page processor hashed the link already) is
 * not hashed again, and one that carries none (a seed, a sitemap entry, a URL from another node) is.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier } from '../../../src/frontier/memory-frontier.js';
import { Admission, type Candidate } from '../../../src/node/admission.js';
import { ManualClock } from '../../../src/node/clock.js';
import { CrawlStats } from '../../../src/node/crawl-stats.js';
import type { RobotsCache } from '../../../src/node/robots-cache.js';
import { Waker } from '../../../src/node/waker.js';
import type { Resolver } from '../../../src/dns/resolver.js';
import { NEEDS_LINKS_ONLY, NO_PRIORITY_CHANGES, type DiscoveredUrl, type OrderingPolicy } from '../../../src/order/policy.js';
import { MemorySeenSet } from '../../../src/seen/memory-seen-set.js';
import type { Fingerprints } from '../../../src/seen/seen-set.js';
import { urlFingerprint, urlFingerprintInto } from '../../../src/url/fingerprint.js';
import { UrlIds } from '../../../src/url/url-ids.js';

/** A memory seen set that keeps every batch it was given. */
class RecordingSeenSet extends MemorySeenSet {
  readonly batches: bigint[][] = [];
  override addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.batches.push(Array.from(fingerprints));
    return super.addBatch(fingerprints);
  }
}

function setup(): { admission: Admission; seen: RecordingSeenSet; urlIds: UrlIds; prioritized: DiscoveredUrl[] } {
  const prioritized: DiscoveredUrl[] = [];
  const policy: OrderingPolicy = {
    spec: { id: 'spy', params: {} }, needs: NEEDS_LINKS_ONLY,
    prioritize: (u) => { prioritized.push(u); return 0; },
    observe: () => NO_PRIORITY_CHANGES,
  };
  const clock = new ManualClock();
  const seen = new RecordingSeenSet();
  const urlIds = new UrlIds();
  const admission = new Admission({
    frontier: new MemoryFrontier({ minDelayMs: 0 }), seen, policy, urlIds,
    robots: { peekRules: () => null } as unknown as RobotsCache,
    resolver: { resolve: async () => ({ kind: 'ok', ip: '127.0.0.1', family: 4, source: 'literal' }), close: () => {} } satisfies Resolver,
    isProxied: false, filter: null, clock, stats: new CrawlStats(), waker: new Waker(clock), onRobotsDenied: () => {},
  });
  return { admission, seen, urlIds, prioritized };
}

describe('Admission', () => {
  test('uses the fingerprint and id a candidate carries, and hashes and numbers the others', async () => {
    const { admission, seen, urlIds, prioritized } = setup();
    const linked = 'http://a.test/linked';
    const seed = 'http://a.test/seed';
    // Carried words that are not the URL's own show that admission takes them as they are.
    const carried = new Uint32Array(2);
    urlFingerprintInto('http://elsewhere.test/', carried);
    const candidates: Candidate[] = [
      { url: linked, hostname: 'a.test', depth: 1, fromUrl: 'http://a.test/', fromId: 0, id: 41, fingerprintHi: carried[0] as number, fingerprintLo: carried[1] as number },
      { url: seed, hostname: 'a.test', depth: 0, fromUrl: null },
    ];
    await admission.admit(candidates);
    assert.deepEqual(seen.batches, [[urlFingerprint('http://elsewhere.test/'), urlFingerprint(seed)]]);
    assert.deepEqual(prioritized.map((u) => [u.url, u.id]), [[linked, 41], [seed, urlIds.peek(seed)]]);
    assert.notEqual(urlIds.peek(seed), -1, 'the seed was numbered');
    assert.equal(urlIds.peek(linked), -1, 'the carried id was not looked up');
  });
});
