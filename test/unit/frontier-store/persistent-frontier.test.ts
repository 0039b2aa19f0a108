/**
 * PersistentFrontier (src/frontier-store/persistent-frontier.ts) on a manual clock, each test in its
 * own temporary directory. Small windows (W) and back-queue counts (B) force paging, eviction and
 * hosts taking turns with a handful of URLs; a small `maxPendingWrites` forces many commits.
 * Crash safety under SIGKILL is tested in test/integration/frontier-store/kill-resume.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryFrontier } from '../../../src/frontier/memory-frontier.js';
import type { CompletionReport, Frontier, FrontierEntry, Lease, NextResult } from '../../../src/frontier/frontier.js';
import { canReprioritize } from '../../../src/frontier/frontier.js';
import { PersistentFrontier, type PersistentFrontierOptions } from '../../../src/frontier-store/persistent-frontier.js';
import { Rng } from '../../../src/web/prng.js';
import { entry, take } from '../../helpers/frontier.js';

/** Runs `fn` with a fresh directory under the OS temp dir, removed afterwards. */
async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-frontier-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function opened(dir: string, options: PersistentFrontierOptions = {}): Promise<PersistentFrontier> {
  const frontier = new PersistentFrontier({ resumeDelayMs: 0, ...options });
  await frontier.open(dir);
  return frontier;
}

/** Leases and completes (0 ms fetches) until `empty`, jumping the clock to each `wait`. URLs as `url#attempt`. */
function drain(frontier: Frontier, startMs = 0): { urls: string[]; leases: { url: string; host: string; atMs: number }[] } {
  const urls: string[] = [];
  const leases: { url: string; host: string; atMs: number }[] = [];
  let now = startMs;
  for (let guard = 0; guard < 1_000_000; guard++) {
    const r = frontier.next(now);
    if (r.kind === 'empty') return { urls, leases };
    if (r.kind === 'wait') {
      assert.ok(r.untilMs > now && Number.isFinite(r.untilMs), `wait must move forward, got ${r.untilMs} at ${now}`);
      now = r.untilMs;
      continue;
    }
    urls.push(`${r.lease.entry.url}#${r.lease.attempt}`);
    leases.push({ url: r.lease.entry.url, host: r.lease.entry.host, atMs: now });
    frontier.complete(r.lease, { fetchDurationMs: 0 }, now);
  }
  return assert.fail('drain did not finish');
}

describe('PersistentFrontier: order', () => {
  test('one host: higher priority first, FIFO among equals, across pages of the window', () => withDir(async (dir) => {
    // W = 2: at most two of a.test's URLs are in memory, the rest are read back a page at a time.
    const frontier = await opened(dir, { urlsPerHostInMemory: 2, maxPendingWrites: 3, minDelayMs: 10 });
    const priorities = [1, 3, 1, 3, 2, 1, 3];
    priorities.forEach((priority, i) => frontier.add(entry(`http://a.test/${i}`, { priority }), 0));
    assert.deepEqual(drain(frontier).urls, ['1', '3', '6', '4', '0', '2', '5'].map((i) => `http://a.test/${i}#1`));
    await frontier.close();
  }));

  test('a better URL arriving while the rest wait on disk goes ahead; a retried URL pushed out waits on disk', () => withDir(async (dir) => {
    // W = 2. a/1..a/3 (priority 0): a/1 and a/2 in memory, a/3 on disk. a/1 is leased; h1 and h2
    // (priority 5) arrive and push a/2 out to disk. a/1 is then retried: a/2 and a/3 wait on disk
    // behind h1 and h2, so a/1 (worse than h2, the window's cursor) waits on disk too, in its place.
    const frontier = await opened(dir, { urlsPerHostInMemory: 2, minDelayMs: 10 });
    for (const i of [1, 2, 3]) frontier.add(entry(`http://a.test/${i}`), 0);
    const first = take(frontier, 0);
    assert.equal(first.entry.url, 'http://a.test/1');
    frontier.add(entry('http://a.test/h1', { priority: 5 }), 1);
    frontier.add(entry('http://a.test/h2', { priority: 5 }), 1);
    assert.equal(frontier.stats().evictions, 2, 'a/3 when it was added, a/2 now');
    frontier.complete(first, { fetchDurationMs: 0, shouldRetry: true }, 2);
    assert.ok(frontier.stats().residentUrls <= frontier.stats().residentUrlLimit);
    assert.deepEqual(drain(frontier, 2).urls, ['http://a.test/h1#1', 'http://a.test/h2#1', 'http://a.test/1#2', 'http://a.test/2#1', 'http://a.test/3#1']);
    await frontier.close();
  }));

  test('the same answers as MemoryFrontier whenever every host can hold a back queue', async () => {
    // A seeded random crawl (adds, duplicate adds, leases, completions with retries, back-off,
    // Retry-After, Crawl-delay, IPs learned late, flushes) is fed to both frontiers; every answer of
    // next() must be identical, lease for lease and wait for wait. W is tiny, so URLs keep moving
    // between memory and disk underneath.
    for (const seed of [1, 2, 3, 4]) {
      await withDir(async (dir) => {
        const rng = new Rng(seed, 31, 1);
        const politeness = { minDelayMs: 100, delayFactor: 2, maxConnectionsPerHost: 1 + (seed % 2), maxConnectionsPerIp: 2, backoffBaseMs: 500, backoffMaxMs: 4000 };
        const memory = new MemoryFrontier({ ...politeness, backQueueCount: 8 });
        const persistent = await opened(dir, { ...politeness, backQueueCount: 8, urlsPerHostInMemory: 1 + (seed % 3), maxPendingWrites: 7 });
        const hosts = Array.from({ length: 7 }, (_, i) => ({ name: `h${i}.test`, ip: `10.0.0.${i % 3}`, isIpKnown: i % 2 === 0 }));
        const added: FrontierEntry[] = [];
        const leases: [Lease, Lease][] = [];
        let now = 0;
        const compare = (p: NextResult, m: NextResult, where: string): void => assert.deepEqual(p, m, `seed ${seed}, ${where}`);
        for (let step = 0; step < 2500; step++) {
          const u = rng.next();
          if (u < 0.3) {
            const isRepeat = added.length > 0 && rng.chance(0.1);
            const host = rng.pick(hosts);
            const e: FrontierEntry = isRepeat
              ? rng.pick(added)
              : { url: `http://${host.name}/${step}`, host: host.name, depth: 1, priority: rng.int(3), ...(host.isIpKnown ? { ip: host.ip } : {}) };
            if (!isRepeat) added.push(e);
            assert.equal(persistent.add(e, now), memory.add(e, now), `seed ${seed}, add ${e.url} at step ${step}`);
          } else if (u < 0.65) {
            const p = persistent.next(now);
            const m = memory.next(now);
            compare(p, m, `next at step ${step}`);
            if (p.kind === 'url' && m.kind === 'url') leases.push([p.lease, m.lease]);
          } else if (u < 0.93 && leases.length > 0) {
            const [p, m] = leases.splice(rng.int(leases.length), 1)[0] as [Lease, Lease];
            const host = hosts.find((h) => h.name === p.entry.host) as (typeof hosts)[number];
            const report: CompletionReport = {
              fetchDurationMs: rng.int(300),
              ...(rng.chance(0.2) ? { shouldRetry: true } : {}),
              ...(rng.chance(0.1) ? { shouldBackOff: true } : {}),
              ...(rng.chance(0.05) ? { retryAfterMs: rng.int(3000) } : {}),
              ...(rng.chance(0.2) ? { crawlDelayMs: rng.int(400) } : {}),
              ...(rng.chance(0.5) ? { ip: host.ip } : {}),
            };
            persistent.complete(p, report, now);
            memory.complete(m, report, now);
          } else if (u < 0.95) {
            await persistent.flush();
          } else {
            now += rng.int(1500);
          }
          if (step % 100 === 0) {
            assert.equal(persistent.stats().queued, memory.stats().queued);
            assert.equal(persistent.stats().inFlight, memory.stats().inFlight);
          }
        }
        for (const [p, m] of leases) {
          persistent.complete(p, { fetchDurationMs: 1 }, now);
          memory.complete(m, { fetchDurationMs: 1 }, now);
        }
        assert.deepEqual(drain(persistent, now), drain(memory, now), `seed ${seed}: drain`);
        assert.ok(persistent.stats().pageIns > 0 && persistent.stats().commits > 10, 'the test must exercise paging and commits');
        await persistent.close();
      });
    }
  });

  test('more hosts than back queues: every URL leaves once, per-host order and delays hold, hosts take turns', () => withDir(async (dir) => {
    // 40 hosts, 3 back queues, W = 2, 10 URLs per host with priorities 0..2.
    const minDelayMs = 50;
    const frontier = await opened(dir, { backQueueCount: 3, urlsPerHostInMemory: 2, maxPendingWrites: 16, minDelayMs });
    const rng = new Rng(5, 32, 1);
    const byHost = new Map<string, { url: string; priority: number; seq: number }[]>();
    let seq = 0;
    for (let i = 0; i < 10; i++) {
      for (let h = 0; h < 40; h++) {
        const e = entry(`http://h${h}.test/${i}`, { priority: rng.int(3) });
        frontier.add(e, 0);
        byHost.set(e.host, [...(byHost.get(e.host) ?? []), { url: e.url, priority: e.priority, seq: seq++ }]);
      }
    }
    assert.equal(frontier.stats().activeHosts, 3);
    assert.equal(frontier.stats().indexedHosts, 37);
    const { leases } = drain(frontier);
    assert.equal(leases.length, 400);
    assert.equal(new Set(leases.map((l) => l.url)).size, 400, 'no URL leased twice');
    for (const [host, urls] of byHost) {
      const expected = [...urls].sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((u) => u.url);
      const got = leases.filter((l) => l.host === host);
      assert.deepEqual(got.map((l) => l.url), expected, `${host}: best first, FIFO among equals`);
      for (let i = 1; i < got.length; i++) assert.ok(got[i]!.atMs - got[i - 1]!.atMs >= minDelayMs, `${host}: delay kept`);
    }
    // Taking turns: every host has had a lease within the first 40 % of the crawl.
    const early = new Set(leases.slice(0, 160).map((l) => l.host));
    assert.equal(early.size, 40);
    await frontier.close();
  }));
});

describe('PersistentFrontier: memory', () => {
  test('200,000 URLs over 5,000 hosts: at most B × (W + connections per host) URLs in memory', () => withDir(async (dir) => {
    const options = { backQueueCount: 64, urlsPerHostInMemory: 16, minDelayMs: 100 };
    const frontier = await opened(dir, options);
    const limit = frontier.stats().residentUrlLimit;
    assert.equal(limit, 64 * (16 + 1));
    const rng = new Rng(9, 33, 1);
    let peak = 0;
    const observe = (): void => {
      const s = frontier.stats();
      peak = Math.max(peak, s.residentUrls);
      assert.ok(s.residentUrls <= limit, `${s.residentUrls} URLs in memory, limit ${limit}`);
      assert.ok(s.activeHosts <= 64);
      assert.ok(s.pendingWrites <= 4096 + 8);
    };
    for (let i = 0; i < 200_000; i++) {
      const host = `h${rng.int(5000)}.test`;
      assert.equal(frontier.add({ url: `http://${host}/${i}`, host, depth: 1, priority: rng.int(4) }, 0), true);
      if (i % 997 === 0) observe();
    }
    observe();
    assert.equal(frontier.stats().queued, 200_000);
    assert.equal(frontier.stats().indexedHosts, 5000 - 64);
    assert.equal(frontier.stats().frontQueued, 200_000 - frontier.stats().residentUrls);
    // Crawl 20,000 of them (10 fetch slots, 30 ms fetches): the bound holds while hosts rotate.
    let now = 0;
    let done = 0;
    const out: Lease[] = [];
    while (done < 20_000) {
      const r = frontier.next(now);
      if (r.kind === 'url' && out.length < 10) {
        out.push(r.lease);
        continue;
      }
      if (r.kind === 'url') frontier.complete(r.lease, { fetchDurationMs: 0, shouldRetry: true }, now);
      now += 30;
      for (const lease of out.splice(0)) frontier.complete(lease, { fetchDurationMs: 30 }, now);
      done += 10;
      if (done % 1000 === 0) observe();
    }
    assert.equal(frontier.stats().queued, 180_000);
    assert.ok(peak > limit / 2, `the test must fill memory (peak ${peak})`);
    await frontier.close();
    const again = await opened(dir, options);
    assert.equal(again.stats().queued, 180_000);
    assert.ok(again.stats().residentUrls <= limit);
    await again.close();
  }));
});

describe('PersistentFrontier: reopen', () => {
  test('close and reopen: every URL is still there, with where it was found and whether it is a sitemap, and leaves in the same order', async () => {
    const options = { backQueueCount: 4, urlsPerHostInMemory: 3, maxPendingWrites: 10, minDelayMs: 20 };
    const rng = new Rng(3, 34, 1);
    const entries = Array.from({ length: 300 }, (_, i) => entry(`http://h${rng.int(12)}.test/${i}`, {
      priority: rng.int(3), depth: i % 4, ...(i % 5 === 0 ? { ip: '10.1.1.1' } : {}), ...(i % 3 === 0 ? { fromUrl: `http://from.test/${i}` } : {}),
      ...(i % 7 === 0 ? { isSitemap: true } : {}),
    }));
    const straight = await withDir(async (dir) => {
      const frontier = await opened(dir, options);
      for (const e of entries) frontier.add(e, 0);
      const order = drain(frontier).urls;
      await frontier.close();
      return order;
    });
    await withDir(async (dir) => {
      const first = await opened(dir, options);
      for (const e of entries) first.add(e, 0);
      await first.close();
      const second = await opened(dir, options);
      assert.equal(second.stats().queued, 300);
      const stored = [...second.entries()].map((s) => s.entry);
      assert.deepEqual(new Set(stored.map((e) => JSON.stringify(e))), new Set(entries.map((e) => JSON.stringify(e))), 'entries come back whole');
      assert.deepEqual(drain(second).urls, straight);
      await second.close();
    });
  });

  test('close with leases out, retries and completions: exactly the held URLs come back, queued, with their attempts', () => withDir(async (dir) => {
    const options = { backQueueCount: 5, urlsPerHostInMemory: 2, maxPendingWrites: 5, minDelayMs: 0, delayFactor: 0, maxConnectionsPerHost: 5, maxConnectionsPerIp: 5 };
    const first = await opened(dir, options);
    for (let i = 0; i < 50; i++) first.add(entry(`http://h${i % 5}.test/${i}`), 0);
    const out: Lease[] = [];
    for (let i = 0; i < 10; i++) out.push(take(first, 0));
    const completed = out.slice(0, 3).map((l) => l.entry.url);
    const retried = out.slice(3, 5).map((l) => l.entry.url);
    for (const lease of out.slice(0, 3)) first.complete(lease, { fetchDurationMs: 0 }, 1);
    for (const lease of out.slice(3, 5)) first.complete(lease, { fetchDurationMs: 0, shouldRetry: true }, 1);
    await first.close(); // five leases still out
    const second = await opened(dir, options);
    const held = new Map([...second.entries()].map((s) => [s.entry.url, s.attempt]));
    assert.equal(held.size, 47);
    for (const url of completed) assert.equal(held.has(url), false, `${url} was completed`);
    for (const url of retried) assert.equal(held.get(url), 2, `${url} was retried once`);
    for (const lease of out.slice(5)) assert.equal(held.get(lease.entry.url), 1, `${lease.entry.url} was in flight`);
    assert.deepEqual([second.stats().queued, second.stats().inFlight, second.stats().recoveredLeases], [47, 0, 5]);
    const urls = drain(second, 10).urls;
    assert.deepEqual(new Set(urls.map((u) => u.slice(0, u.indexOf('#')))), new Set(held.keys()));
    assert.equal(urls.length, 47);
    await second.close();
  }));

  test('a held URL is refused even while it waits on disk; a completed one is taken again, once', () => withDir(async (dir) => {
    const frontier = await opened(dir, { urlsPerHostInMemory: 1, minDelayMs: 0, delayFactor: 0 });
    for (const i of [1, 2, 3]) frontier.add(entry(`http://a.test/${i}`), 0);
    assert.equal(frontier.add(entry('http://a.test/3'), 0), false, 'on disk');
    assert.equal(frontier.add(entry('http://a.test/1'), 0), false, 'in memory');
    const lease = take(frontier, 0);
    assert.equal(frontier.add(entry('http://a.test/1'), 0), false, 'in flight');
    frontier.complete(lease, { fetchDurationMs: 0 }, 0);
    assert.equal(frontier.add(entry('http://a.test/1', { priority: 7 }), 0), true, 'completed, so new again');
    await frontier.close();
    const again = await opened(dir, { urlsPerHostInMemory: 1 });
    assert.deepEqual([...again.entries()].map((s) => `${s.entry.url}@${s.entry.priority}`), ['http://a.test/1@7', 'http://a.test/2@0', 'http://a.test/3@0']);
    await again.close();
  }));

  test('after reopening a store that holds URLs, no host is contacted before the first now + resumeDelayMs', () => withDir(async (dir) => {
    const fresh = new PersistentFrontier({ minDelayMs: 1000 });
    await fresh.open(dir);
    fresh.add(entry('http://a.test/1'), 5000);
    assert.equal(fresh.next(5000).kind, 'url', 'a new store does not hold back');
    fresh.add(entry('http://a.test/2'), 5000);
    await fresh.close();
    const resumed = new PersistentFrontier({ minDelayMs: 1000 });
    await resumed.open(dir);
    assert.deepEqual(resumed.next(9000), { kind: 'wait', untilMs: 10_000 });
    assert.deepEqual(resumed.next(9999), { kind: 'wait', untilMs: 10_000 });
    assert.equal(take(resumed, 10_000).entry.url, 'http://a.test/1');
    await resumed.close();
  }));
});

describe('PersistentFrontier: lifecycle', () => {
  test('open and close are idempotent; calls outside the open life throw', () => withDir(async (dir) => {
    const frontier = new PersistentFrontier();
    assert.throws(() => frontier.next(0), /not open/);
    const opening = frontier.open(dir);
    assert.equal(frontier.open(dir), opening);
    await opening;
    await assert.rejects(frontier.open(join(dir, 'other')), /already open/);
    frontier.add(entry('http://a.test/'), 0);
    const closing = frontier.close();
    assert.equal(frontier.close(), closing);
    await closing;
    assert.throws(() => frontier.add(entry('http://a.test/b'), 0), /closed/);
    await assert.rejects(frontier.flush(), /closed/);
    await assert.rejects(frontier.open(dir), /closed/);
    await new PersistentFrontier().close();
  }));

  test('bad options, priorities and leases throw as in MemoryFrontier; reprioritize is not offered', () => withDir(async (dir) => {
    assert.throws(() => new PersistentFrontier({ urlsPerHostInMemory: 0 }), RangeError);
    assert.throws(() => new PersistentFrontier({ maxPendingWrites: 1.5 }), RangeError);
    assert.throws(() => new PersistentFrontier({ resumeDelayMs: -1 }), RangeError);
    assert.throws(() => new PersistentFrontier({ minDelayMs: -1 }), RangeError);
    const frontier = await opened(dir);
    assert.throws(() => frontier.add(entry('http://a.test/', { priority: Number.NaN }), 0), RangeError);
    frontier.add(entry('http://a.test/'), 0);
    const lease = take(frontier, 0);
    assert.throws(() => frontier.complete(lease, { fetchDurationMs: -1 }, 0), RangeError);
    frontier.complete(lease, { fetchDurationMs: 0 }, 0);
    assert.throws(() => frontier.complete(lease, { fetchDurationMs: 0 }, 0), /not in flight/);
    assert.equal(canReprioritize(frontier), false);
    assert.equal(frontier.next(5000).kind, 'empty');
    await frontier.close();
  }));
});
