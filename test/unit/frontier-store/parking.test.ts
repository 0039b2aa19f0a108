/**
 * PersistentFrontier's parking (`memoryUrlsPerHost`): a host's URLs beyond its share of memory wait
 * in the log on disk, with only their record's location in memory, and come back in the order they
 * were added as the host's URLs complete. Each test in its own temporary directory, on a manual clock.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../../src/frontier/frontier.js';
import { fifoShareFor, PersistentFrontier, type PersistentFrontierOptions } from '../../../src/frontier-store/persistent-frontier.js';
import { join } from 'node:path';
import { Rng } from '../../../src/core/prng.js';
import { entry } from '../../helpers/frontier.js';
import { withDir as withScratchDir } from '../../helpers/scratch.js';

const withDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => withScratchDir('shoal-parking-test-', fn);

async function opened(dir: string, options: PersistentFrontierOptions): Promise<PersistentFrontier> {
  const frontier = new PersistentFrontier({ resumeDelayMs: 0, minDelayMs: 0, delayFactor: 0, ...options });
  await frontier.open(dir);
  return frontier;
}

/** Leases and completes, one at a time, until empty; the URLs in lease order. */
function drain(frontier: PersistentFrontier): string[] {
  const urls: string[] = [];
  let now = 0;
  for (let r = frontier.next(now); r.kind !== 'empty'; r = frontier.next(now)) {
    if (r.kind === 'wait') {
      now = r.untilMs;
      continue;
    }
    urls.push(r.lease.entry.url);
    frontier.complete(r.lease, { fetchDurationMs: 0 }, now);
  }
  return urls;
}

describe("PersistentFrontier: parking a host's URLs beyond its share of memory", () => {
  test("beyond memoryUrlsPerHost, a host's URLs wait on disk and come back in add order", () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { memoryUrlsPerHost: 3, stageBytes: 200 });
      const priorities = [0, 0, 0, 5, 0, 0, 0, 0];
      priorities.forEach((priority, i) => assert.equal(frontier.add(entry(`http://a.test/${i}`, { priority }), 0), true));
      frontier.add(entry('http://b.test/0'), 0);
      assert.equal(frontier.add(entry('http://a.test/1'), 0), false, 'a URL held in memory is a duplicate');
      let s = frontier.stats();
      assert.deepEqual([s.queued, s.parked, s.parkedHosts], [9, 5, 1]);
      assert.deepEqual(
        new Set([...frontier.entries()].map((e) => e.entry.url)),
        new Set([...priorities.map((_, i) => `http://a.test/${i}`), 'http://b.test/0']),
      );
      // 3 (priority 5) was parked behind 0, 1 and 2: it comes into memory when 0 completes, and from
      // then on its priority counts (MemoryFrontier would give it first).
      // b.test/0 was added last: a.test's URLs all go before it (no delay in this test).
      assert.deepEqual(drain(frontier), [...[0, 3, 1, 2, 4, 5, 6, 7].map((i) => `http://a.test/${i}`), 'http://b.test/0']);
      s = frontier.stats();
      assert.deepEqual([s.queued, s.parked, s.parkedHosts], [0, 0, 0]);
      await frontier.close();
    }));

  test('reopened with a smaller share, more URLs are parked; they come back in add order, retries kept in memory', () =>
    withDir(async (dir) => {
      const first = await opened(dir, { memoryUrlsPerHost: 4 });
      for (let i = 0; i < 10; i++) first.add(entry(`http://a.test/${i}`), 0);
      const r = first.next(0);
      assert.equal(r.kind, 'url');
      if (r.kind === 'url') first.complete(r.lease, { fetchDurationMs: 0, shouldRetry: true }, 0);
      await first.close();
      const again = await opened(dir, { memoryUrlsPerHost: 2 });
      assert.deepEqual([again.stats().queued, again.stats().parked], [10, 8]);
      const leases: Lease[] = [];
      for (let next = again.next(0); next.kind === 'url'; next = again.next(0)) leases.push(next.lease);
      assert.deepEqual(
        leases.map((l) => [l.entry.url, l.attempt]),
        [['http://a.test/0', 2]],
        'the retried URL first, with its attempt count',
      );
      again.complete(leases[0] as Lease, { fetchDurationMs: 0 }, 0);
      assert.deepEqual(
        drain(again),
        Array.from({ length: 9 }, (_, i) => `http://a.test/${i + 1}`),
      );
      await again.close();
    }));

  test('a parked URL added again is held twice until it comes back into a slot, where the copy is dropped', () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { memoryUrlsPerHost: 2 });
      for (const url of ['http://a.test/0', 'http://a.test/x', 'http://a.test/1']) assert.equal(frontier.add(entry(url), 0), true);
      // Parked URLs are not checked for duplicates (that would cost an index cell each).
      assert.equal(frontier.add(entry('http://a.test/1'), 0), true);
      assert.deepEqual([frontier.stats().queued, frontier.stats().parked], [4, 2]);
      // a.test/0 completes: the first a.test/1 takes its slot. a.test/x completes: the second comes
      // back while the first is in a slot still.
      assert.deepEqual(drain(frontier), ['http://a.test/0', 'http://a.test/x', 'http://a.test/1'], 'the copy is dropped, not fetched');
      const s = frontier.stats();
      assert.deepEqual([s.queued, s.parked, s.liveBytes], [0, 0, 0], 'nothing held, no live bytes left behind');
      await frontier.close();
    }));

  test("a host's share bounds its leases out: a node gives it twice its connections when that is more than 16", () =>
    withDir(async (dir) => {
      const leasesOut = async (memoryUrlsPerHost: number): Promise<number> => {
        const frontier = await opened(join(dir, String(memoryUrlsPerHost)), {
          memoryUrlsPerHost,
          maxConnectionsPerHost: 20,
          maxConnectionsPerIp: 20,
        });
        for (let i = 0; i < 100; i++) frontier.add(entry(`http://a.test/${i}`), 0);
        let out = 0;
        while (frontier.next(0).kind === 'url') out++;
        await frontier.close();
        return out;
      };
      assert.equal(await leasesOut(16), 16, 'a share of 16 caps 20 connections at 16');
      assert.deepEqual([fifoShareFor(1), fifoShareFor(8), fifoShareFor(20)], [16, 16, 40]);
      assert.equal(await leasesOut(fifoShareFor(20)), 20, "the node's share lets all 20 connections work");
    }));

  test('a seeded crawl with tiny segments and reopenings: every URL leaves once, each host in add order', async () => {
    // Adds over 9 hosts (1 to 3 URLs of each in memory), leases, completions (some retried, some
    // after endFetch), checkpoints and reopenings with another share. Segments are tiny, so the
    // log rotates and is compacted under parked URLs: a parked record left in a deleted segment
    // would fail its read. Equal priorities: a host's first leases must follow its add order.
    for (const seed of [1, 2, 3, 4, 5]) {
      await withDir(async (dir) => {
        const rng = new Rng(seed, 41, 1);
        const options = (): PersistentFrontierOptions => ({
          memoryUrlsPerHost: 1 + rng.int(3),
          stageBytes: 100 + rng.int(400),
          segmentBytes: 4096,
          compactBytesPerFlush: 4096,
          maxConnectionsPerHost: 2,
        });
        let frontier = await opened(dir, options());
        const added = new Map<string, string[]>();
        const firstLeases = new Map<string, string[]>();
        const done = new Set<string>();
        let leases: Lease[] = [];
        let now = 0;
        let maxParked = 0;
        let compacted = 0;
        let deleted = 0;
        const lease = (l: Lease): void => {
          assert.ok(!done.has(l.entry.url), `seed ${seed}: ${l.entry.url} leased after it was done`);
          if (l.attempt === 1 && !(firstLeases.get(l.entry.host) ?? []).includes(l.entry.url)) {
            firstLeases.set(l.entry.host, [...(firstLeases.get(l.entry.host) ?? []), l.entry.url]);
          }
          leases.push(l);
        };
        for (let step = 0; step < 3000; step++) {
          const u = rng.next();
          if (u < 0.35) {
            const host = `h${rng.int(9)}.test`;
            const url = `http://${host}/${step}`;
            assert.equal(frontier.add(entry(url), now), true);
            added.set(host, [...(added.get(host) ?? []), url]);
          } else if (u < 0.65) {
            const r = frontier.next(now);
            if (r.kind === 'url') lease(r.lease);
            else if (r.kind === 'wait' && Number.isFinite(r.untilMs)) now = r.untilMs;
          } else if (u < 0.9 && leases.length > 0) {
            const l = leases.splice(rng.int(leases.length), 1)[0] as Lease;
            const isRetry = rng.chance(0.15);
            // A retry is completed, not ended (an ended fetch's completion only frees its slot).
            if (!isRetry && rng.chance(0.3)) frontier.endFetch(l, { fetchDurationMs: 1 }, now);
            frontier.complete(l, { fetchDurationMs: 1, ...(isRetry ? { shouldRetry: true } : {}) }, now);
            if (!isRetry) done.add(l.entry.url);
          } else if (u < 0.97) {
            await frontier.flush();
          } else {
            // A restart: leases out are void, their URLs queued again.
            const s = frontier.stats();
            compacted += s.compactedRecords;
            deleted += s.deletedSegments;
            await frontier.close();
            frontier = await opened(dir, options());
            leases = [];
          }
          now += rng.int(3);
          maxParked = Math.max(maxParked, frontier.stats().parked);
        }
        for (const l of leases) {
          frontier.complete(l, { fetchDurationMs: 1 }, now);
          done.add(l.entry.url);
        }
        const s = frontier.stats();
        compacted += s.compactedRecords;
        deleted += s.deletedSegments;
        for (const url of drain(frontier)) {
          assert.ok(!done.has(url), `seed ${seed}: ${url} leased after it was done`);
          done.add(url);
          const host = new URL(url).host;
          if (!(firstLeases.get(host) ?? []).includes(url)) firstLeases.set(host, [...(firstLeases.get(host) ?? []), url]);
        }
        const all = [...added.values()].flat();
        assert.equal(done.size, all.length, `seed ${seed}: every URL added is done once`);
        for (const [host, urls] of added) assert.deepEqual(firstLeases.get(host), urls, `seed ${seed}: ${host} in add order`);
        assert.ok(
          maxParked > 20 && compacted > 0 && deleted > 0,
          `seed ${seed}: the test must park (${maxParked}), compact (${compacted}) and delete segments (${deleted})`,
        );
        await frontier.close();
      });
    }
  });
});
