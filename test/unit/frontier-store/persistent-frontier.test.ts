/**
 * PersistentFrontier (src/frontier-store/persistent-frontier.ts) on a manual clock, each test in its
 * own temporary directory. Tiny staging buffers and segments force writes, segment rotation and
 * compaction with a handful of URLs. Crash safety under SIGKILL is tested in
 * test/integration/frontier-store/kill-resume.test.ts; torn tails and damaged records here.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryFrontier } from '../../../src/frontier/memory-frontier.js';
import type { CompletionReport, Frontier, FrontierEntry, Lease, NextResult } from '../../../src/frontier/frontier.js';
import { canReprioritize } from '../../../src/frontier/frontier.js';
import { PersistentFrontier, type PersistentFrontierOptions } from '../../../src/frontier-store/persistent-frontier.js';
import { Rng } from '../../../src/core/prng.js';
import { ShoalError } from '../../../src/core/errors.js';
import { addRecordBytes } from '../../../src/frontier-store/frontier-log.js';
import { urlFingerprintInto } from '../../../src/url/fingerprint.js';
import { entry, take } from '../../helpers/frontier.js';
import { withDir as withScratchDir } from '../../helpers/scratch.js';

const withDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => withScratchDir('shoal-frontier-test-', fn);

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
  test('one host: higher priority first, FIFO among equals; entries read back from the log', () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { stageBytes: 100, minDelayMs: 10 });
      const priorities = [1, 3, 1, 3, 2, 1, 3];
      priorities.forEach((priority, i) =>
        frontier.add(entry(`http://a.test/${i}`, { priority, depth: i, fromUrl: `http://from.test/${i}` }), 0),
      );
      const r = frontier.next(0);
      assert.deepEqual(r.kind === 'url' ? r.lease.entry : null, {
        url: 'http://a.test/1',
        host: 'a.test',
        depth: 1,
        priority: 3,
        fromUrl: 'http://from.test/1',
      });
      if (r.kind === 'url') frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
      assert.deepEqual(
        drain(frontier).urls,
        ['3', '6', '4', '0', '2', '5'].map((i) => `http://a.test/${i}#1`),
      );
      await frontier.close();
    }));

  test('the same answers as MemoryFrontier, reprioritizations and flushes included', async () => {
    // A seeded random crawl (adds, duplicate adds, leases, completions with retries, back-off,
    // Retry-After, Crawl-delay, IPs learned late, reprioritizations, flushes) is fed to both
    // frontiers; every answer of next() must be identical, lease for lease and wait for wait. Segments
    // are tiny, so the log rotates and compacts underneath.
    for (const seed of [1, 2, 3, 4]) {
      await withDir(async (dir) => {
        const rng = new Rng(seed, 31, 1);
        const politeness = {
          minDelayMs: 100,
          delayFactor: 2,
          maxConnectionsPerHost: 1 + (seed % 2),
          maxConnectionsPerIp: 2,
          backoffBaseMs: 500,
          backoffMaxMs: 4000,
        };
        const memory = new MemoryFrontier({ ...politeness, backQueueCount: 8 });
        // Nothing parked (the default): a host's URLs all stay in memory, as in MemoryFrontier (parking.test.ts covers parking).
        const persistent = await opened(dir, {
          ...politeness,
          backQueueCount: 8,
          stageBytes: 50 + 100 * seed,
          segmentBytes: 4096,
          compactBytesPerFlush: 4096,
        });
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
              : {
                  url: `http://${host.name}/${step}`,
                  host: host.name,
                  depth: 1,
                  priority: rng.int(3),
                  ...(host.isIpKnown ? { ip: host.ip } : {}),
                };
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
          } else if (u < 0.94 && added.length > 0) {
            const e = rng.pick(added);
            const priority = rng.int(5) - 1;
            assert.equal(
              persistent.reprioritize(e.url, priority),
              memory.reprioritize(e.url, priority),
              `seed ${seed}, reprioritize at step ${step}`,
            );
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
        const s = persistent.stats();
        assert.ok(s.deletedSegments > 0 && s.compactedRecords > 0, `the test must exercise rotation and compaction: ${JSON.stringify(s)}`);
        await persistent.close();
      });
    }
  });

  test('more hosts than back queues: every URL leaves once, per-host order and delays hold, hosts take turns', () =>
    withDir(async (dir) => {
      // 40 hosts, 3 back queues, W = 2, 10 URLs per host with priorities 0..2.
      const minDelayMs = 50;
      const frontier = await opened(dir, { backQueueCount: 3, stageBytes: 1000, minDelayMs });
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
      assert.equal(frontier.stats().frontQueued, 400 - 3 * 10);
      const { leases } = drain(frontier);
      assert.equal(leases.length, 400);
      assert.equal(new Set(leases.map((l) => l.url)).size, 400, 'no URL leased twice');
      for (const [host, urls] of byHost) {
        const expected = [...urls].sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((u) => u.url);
        const got = leases.filter((l) => l.host === host);
        assert.deepEqual(
          got.map((l) => l.url),
          expected,
          `${host}: best first, FIFO among equals`,
        );
        for (let i = 1; i < got.length; i++) assert.ok(got[i]!.atMs - got[i - 1]!.atMs >= minDelayMs, `${host}: delay kept`);
      }
      // Taking turns: every host has had a lease within the first 40 % of the crawl.
      const early = new Set(leases.slice(0, 160).map((l) => l.host));
      assert.equal(early.size, 40);
      await frontier.close();
    }));

  test('the k × duration term of the gap stops at maxDelayMs, as in MemoryFrontier', () =>
    withDir(async (dir) => {
      // A 120 s fetch completes at 120,000: 5 × 120 s is capped at 12 s, so the next URL goes at 132,000.
      const frontier = await opened(dir, { maxDelayMs: 12_000 });
      frontier.add(entry('http://a.test/1'), 0);
      frontier.add(entry('http://a.test/2'), 0);
      frontier.complete(take(frontier, 0), { fetchDurationMs: 120_000 }, 120_000);
      const r = frontier.next(120_000);
      assert.deepEqual(r, { kind: 'wait', untilMs: 132_000 });
      assert.equal(take(frontier, 132_000).entry.url, 'http://a.test/2');
      await frontier.close();
    }));
});

/** Bytes of the segment files in `dir`. */
async function segmentFileBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.seg')) total += (await stat(join(dir, name))).size;
  return total;
}

describe('PersistentFrontier: the log', () => {
  test('200,000 URLs over 5,000 hosts, 150,000 crawled: old segments are compacted away, the log stays near the live records', () =>
    withDir(async (dir) => {
      // About 40 URLs per host: beyond the 16 in memory, a host's URLs are parked, and compacted as well.
      const options = { backQueueCount: 64, minDelayMs: 100, segmentBytes: 1 << 20, compactBytesPerFlush: 1 << 19, memoryUrlsPerHost: 16 };
      const frontier = await opened(dir, options);
      const rng = new Rng(9, 33, 1);
      for (let i = 0; i < 200_000; i++) {
        const host = `h${rng.int(5000)}.test`;
        assert.equal(frontier.add({ url: `http://${host}/${i}`, host, depth: 1, priority: rng.int(4) }, 0), true);
        if (i % 10_000 === 0) await frontier.flush();
      }
      await frontier.flush();
      const full = frontier.stats();
      assert.equal(full.queued, 200_000);
      assert.ok(full.segments >= 8, `${full.segments} segments`);
      // Crawl 150,000 of them (10 fetch slots, 30 ms fetches), a checkpoint every 1,000.
      let now = 0;
      let done = 0;
      while (done < 150_000) {
        for (let k = 0; k < 10; k++) {
          const r = frontier.next(now);
          if (r.kind !== 'url') break;
          frontier.complete(r.lease, { fetchDurationMs: 30 }, now + 30);
          done++;
        }
        now += 30;
        if (done % 1000 < 10) await frontier.flush();
      }
      await frontier.flush();
      const s = frontier.stats();
      assert.equal(s.queued, 50_000);
      assert.ok(s.deletedSegments > 0 && s.compactedRecords > 0, JSON.stringify(s));
      assert.ok(full.parked > 100_000 && s.parked > 0, `URLs parked: ${full.parked} when all were added, ${s.parked} at the end`);
      assert.ok(s.logBytes <= 2 * s.liveBytes + 2 * options.segmentBytes, `log ${s.logBytes} bytes for ${s.liveBytes} live`);
      const entries = [...frontier.entries()];
      const held = new Set(entries.map((e) => e.entry.url));
      assert.equal(
        s.liveBytes,
        entries.reduce((sum, e) => sum + addRecordBytes(e.entry.host, e.entry.url, e.entry.ip ?? null, null), 0),
        'live bytes are the held records',
      );
      assert.equal(s.logBytes, await segmentFileBytes(dir), 'log bytes are the segment files on disk');
      assert.equal(s.segments, (await readdir(dir)).filter((n) => n.endsWith('.seg')).length);
      await frontier.close();
      const again = await opened(dir, options);
      assert.equal(again.stats().queued, 50_000);
      assert.deepEqual(new Set([...again.entries()].map((e) => e.entry.url)), held);
      await again.close();
    }));

  test('a torn tail, cut at every byte of the last records, leaves a prefix of the adds and nothing else', () =>
    withDir(async (dir) => {
      const first = await opened(dir, { minDelayMs: 0 });
      for (let i = 0; i < 5; i++) first.add(entry(`http://a.test/${i}`), 0);
      await first.close();
      const segment = join(dir, 'log-000001.seg');
      const whole = await readFile(segment);
      const durable = 5;
      const more = await opened(dir, { minDelayMs: 0 });
      for (let i = 5; i < 8; i++) more.add(entry(`http://a.test/${i}`, { fromUrl: 'http://from.test/x' }), 0);
      await more.close();
      const grown = await readFile(segment);
      // Where each later record ends: a cut keeps exactly the records wholly before it.
      const ends: number[] = [];
      for (let i = 5, at = whole.length; i < 8; i++)
        ends.push((at += addRecordBytes('a.test', `http://a.test/${i}`, null, 'http://from.test/x')));
      assert.equal(ends.at(-1), grown.length, 'the three adds are the only records after the first five');
      for (let cut = whole.length; cut <= grown.length; cut++) {
        await writeFile(segment, grown.subarray(0, cut));
        const f = await opened(dir, { minDelayMs: 0 });
        const urls = [...f.entries()].map((e) => e.entry.url);
        const whollyBefore = ends.filter((end) => end <= cut).length;
        assert.equal(urls.length, durable + whollyBefore, `cut at ${cut}: every record wholly before the cut, and no other`);
        assert.deepEqual(
          urls,
          Array.from({ length: urls.length }, (_, i) => `http://a.test/${i}`),
          `cut at ${cut}: a prefix`,
        );
        await f.close();
        assert.equal(
          (await stat(segment)).size,
          whollyBefore === 0 ? whole.length : ends[whollyBefore - 1],
          'the torn bytes, and only they, are cut off',
        );
      }
    }));

  test('a URL too long for its record is refused before anything changes; held already, it is a duplicate', () =>
    withDir(async (dir) => {
      const f = await opened(dir, { minDelayMs: 0 });
      f.add(entry('http://a.test/1'), 0);
      const long = `http://a.test/${'x'.repeat(70_000)}`;
      assert.throws(
        () => f.add(entry(long), 0),
        (err: unknown) => err instanceof RangeError && /url longer than 65535 bytes/.test(err.message),
      );
      assert.throws(() => f.add(entry('http://a.test/2', { fromUrl: long }), 0), /fromUrl longer than/);
      assert.equal(f.add(entry('http://a.test/1', { fromUrl: long }), 0), false, 'held: refused as a duplicate');
      assert.equal(f.stats().queued, 1);
      assert.equal(f.add(entry('http://a.test/2'), 0), true, 'the frontier is still usable');
      await f.close();
      const again = await opened(dir, { minDelayMs: 0 });
      assert.deepEqual(
        [...again.entries()].map((e) => e.entry.url),
        ['http://a.test/1', 'http://a.test/2'],
      );
      await again.close();
    }));

  test('damage before the last segment is an error, not a silent loss', () =>
    withDir(async (dir) => {
      const f = await opened(dir, { minDelayMs: 0, segmentBytes: 4096 });
      for (let i = 0; i < 200; i++) {
        f.add(entry(`http://a.test/${i}`), 0);
        if (i % 20 === 0) await f.flush();
      }
      await f.close();
      const first = join(dir, 'log-000001.seg');
      const bytes = await readFile(first);
      bytes[40] = (bytes[40] as number) ^ 0xff;
      await writeFile(first, bytes);
      const broken = new PersistentFrontier();
      await assert.rejects(
        broken.open(dir),
        (err: unknown) => err instanceof ShoalError && err.code === 'FRONTIER_CORRUPT' && /segment 1/.test(err.message),
      );
    }));

  test('re-prioritizing changes the order, in memory only', () =>
    withDir(async (dir) => {
      const f = await opened(dir, { minDelayMs: 0, delayFactor: 0 });
      for (const i of [1, 2, 3]) f.add(entry(`http://a.test/${i}`), 0);
      assert.equal(canReprioritize(f), true);
      assert.equal(f.reprioritize('http://a.test/3', 9), true);
      assert.equal(f.reprioritize('http://a.test/none', 9), false);
      assert.equal(take(f, 0).entry.url, 'http://a.test/3');
      await f.close();
      const again = await opened(dir, { minDelayMs: 0, delayFactor: 0 });
      assert.deepEqual(
        drain(again).urls,
        ['http://a.test/1#1', 'http://a.test/2#1', 'http://a.test/3#1'],
        'a/3 was leased, not completed: it comes back with its first priority',
      );
      await again.close();
    }));
});

describe('PersistentFrontier: reopen', () => {
  test('close and reopen: every URL is still there, with where it was found and whether it is a sitemap, and leaves in the same order', async () => {
    const options = { backQueueCount: 4, stageBytes: 300, minDelayMs: 20 };
    const rng = new Rng(3, 34, 1);
    const entries = Array.from({ length: 300 }, (_, i) =>
      entry(`http://h${rng.int(12)}.test/${i}`, {
        priority: rng.int(3),
        depth: i % 4,
        ...(i % 5 === 0 ? { ip: '10.1.1.1' } : {}),
        ...(i % 3 === 0 ? { fromUrl: `http://from.test/${i}` } : {}),
        ...(i % 7 === 0 ? { isSitemap: true } : {}),
      }),
    );
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
      assert.deepEqual(
        new Set(stored.map((e) => JSON.stringify(e))),
        new Set(entries.map((e) => JSON.stringify(e))),
        'entries come back whole',
      );
      assert.deepEqual(drain(second).urls, straight);
      await second.close();
    });
  });

  test('close with leases out, retries and completions: exactly the held URLs come back, queued, with their attempts', () =>
    withDir(async (dir) => {
      const options = {
        backQueueCount: 5,
        stageBytes: 200,
        minDelayMs: 0,
        delayFactor: 0,
        maxConnectionsPerHost: 5,
        maxConnectionsPerIp: 5,
      };
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
      assert.deepEqual(
        [second.stats().queued, second.stats().inFlight, second.stats().recoveredUrls, second.stats().recoveredCompletions],
        [47, 0, 47, 3],
      );
      const urls = drain(second, 10).urls;
      assert.deepEqual(new Set(urls.map((u) => u.slice(0, u.indexOf('#')))), new Set(held.keys()));
      assert.equal(urls.length, 47);
      await second.close();
    }));

  test('URLs the caller knows were done are completed at open, parked ones too, and stay done; a sitemap never is', () =>
    withDir(async (dir) => {
      const options = { stageBytes: 200, minDelayMs: 0, delayFactor: 0, memoryUrlsPerHost: 2 };
      const first = await opened(dir, options);
      for (let i = 0; i < 12; i++) first.add(entry(`http://h${i % 2}.test/${i}`, i === 11 ? { isSitemap: true } : {}), 0);
      await first.close();
      // Done after the last flush, as a crawl log would say: one in a slot, one parked (the 2 of each host
      // in slots are 0-3), and the sitemap.
      const done = new Set(['http://h0.test/2', 'http://h1.test/9', 'http://h1.test/11']);
      const fp = new Uint32Array(2);
      const keys = new Map<string, string>();
      for (const url of done) {
        urlFingerprintInto(url, fp);
        keys.set(`${fp[0]}:${fp[1]}`, url);
      }
      const asked: string[] = [];
      const second = new PersistentFrontier({ resumeDelayMs: 0, ...options });
      await second.open(dir, {
        isCompleted: (hi, lo, isSitemap) => {
          const url = keys.get(`${hi}:${lo}`);
          if (url === undefined) return false;
          asked.push(`${url}${isSitemap ? ' (sitemap)' : ''}`);
          return !isSitemap;
        },
      });
      assert.deepEqual(asked.sort(), ['http://h0.test/2', 'http://h1.test/11 (sitemap)', 'http://h1.test/9']);
      assert.equal(second.stats().completedAtOpen, 2);
      assert.equal(second.stats().queued, 10);
      await second.close();
      const third = await opened(dir, options);
      const urls = drain(third, 0).urls.map((u) => u.slice(0, u.indexOf('#')));
      assert.equal(urls.length, 10);
      assert.ok(!urls.includes('http://h0.test/2') && !urls.includes('http://h1.test/9'));
      assert.ok(urls.includes('http://h1.test/11'), 'the sitemap is fetched again');
      await third.close();
    }));

  test('a fetch ended but not completed frees the host and its IP, writes nothing, and comes back after a crash', () =>
    withDir(async (dir) => {
      const options = { minDelayMs: 100, delayFactor: 0, maxConnectionsPerIp: 1 };
      const first = await opened(dir, options);
      first.add(entry('http://a.test/1', { ip: '10.0.0.1' }), 0);
      first.add(entry('http://a.test/2', { ip: '10.0.0.1' }), 0);
      first.add(entry('http://b.test/1', { ip: '10.0.0.1' }), 0);
      const a1 = take(first, 0);
      assert.equal(a1.entry.url, 'http://a.test/1');
      assert.deepEqual(first.next(5), { kind: 'wait', untilMs: Infinity }, "the IP's one connection is out");
      first.endFetch(a1, { fetchDurationMs: 10 }, 10);
      const b1 = take(first, 10);
      assert.equal(b1.entry.url, 'http://b.test/1', 'the IP is free once the fetch ended');
      first.endFetch(b1, { fetchDurationMs: 5 }, 15);
      assert.deepEqual(first.next(15), { kind: 'wait', untilMs: 110 }, "a.test's gap runs from the end of its fetch");
      const a2 = take(first, 110);
      assert.equal(a2.entry.url, 'http://a.test/2');
      assert.equal(first.add(entry('http://a.test/1'), 110), false, 'still held until completed');
      assert.equal(first.stats().inFlight, 3);
      assert.throws(() => first.endFetch(a1, { fetchDurationMs: 10 }, 111), /not in flight, or its fetch already ended/);
      assert.throws(
        () => first.endFetch(a2, { fetchDurationMs: 1, shouldRetry: true }, 120),
        RangeError,
        'a retry is completed, not ended',
      );
      first.complete(a2, { fetchDurationMs: 1 }, 120);
      first.complete(b1, { fetchDurationMs: 5 }, 200);
      await first.flush();
      await first.close(); // a.test/1 ended and never completed: it comes back
      const second = await opened(dir, options);
      assert.deepEqual(
        [...second.entries()].map((s) => s.entry.url),
        ['http://a.test/1'],
      );
      await second.close();
    }));

  test('a held URL is refused; a completed one is taken again, once, even before a flush', () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { minDelayMs: 0, delayFactor: 0 });
      for (const i of [1, 2, 3]) frontier.add(entry(`http://a.test/${i}`), 0);
      assert.equal(frontier.add(entry('http://a.test/3'), 0), false, 'queued');
      const lease = take(frontier, 0);
      assert.equal(frontier.add(entry('http://a.test/1'), 0), false, 'in flight');
      frontier.complete(lease, { fetchDurationMs: 0 }, 0);
      assert.equal(frontier.add(entry('http://a.test/1', { priority: 7 }), 0), true, 'completed, so new again');
      await frontier.close();
      const again = await opened(dir);
      assert.deepEqual(
        [...again.entries()].map((s) => `${s.entry.url}@${s.entry.priority}`),
        ['http://a.test/1@7', 'http://a.test/2@0', 'http://a.test/3@0'],
      );
      await again.close();
    }));

  test('after reopening a store that holds URLs, no host is contacted before the first now + resumeDelayMs', () =>
    withDir(async (dir) => {
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
  test('open and close are idempotent; calls outside the open life throw', () =>
    withDir(async (dir) => {
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

  test('bad options, priorities and leases throw as in MemoryFrontier', () =>
    withDir(async (dir) => {
      assert.throws(() => new PersistentFrontier({ segmentBytes: 100 }), RangeError);
      assert.throws(() => new PersistentFrontier({ stageBytes: 1.5 }), RangeError);
      assert.throws(() => new PersistentFrontier({ resumeDelayMs: -1 }), RangeError);
      assert.throws(() => new PersistentFrontier({ minDelayMs: -1 }), RangeError);
      assert.throws(() => new PersistentFrontier({ maxDelayMs: -1 }), RangeError);
      const frontier = await opened(dir);
      assert.throws(() => frontier.add(entry('http://a.test/', { priority: Number.NaN }), 0), RangeError);
      frontier.add(entry('http://a.test/'), 0);
      const lease = take(frontier, 0);
      assert.throws(() => frontier.complete(lease, { fetchDurationMs: -1 }, 0), RangeError);
      frontier.complete(lease, { fetchDurationMs: 0 }, 0);
      assert.throws(() => frontier.complete(lease, { fetchDurationMs: 0 }, 0), /not in flight/);
      assert.equal(frontier.next(5000).kind, 'empty');
      await frontier.close();
    }));
});
