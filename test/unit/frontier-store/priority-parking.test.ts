/**
 * PersistentFrontier under a priority order with parking (`parked-host.ts`, `parked-priorities.ts`):
 * a host's URLs beyond its share wait on disk in priority bands and come back best band first; a
 * new priority for a parked URL is held until it is back in a slot; a crash loses none of it. Each
 * test in its own temporary directory, on a manual clock (no delay between fetches).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../../src/frontier/frontier.js';
import { PersistentFrontier, type PersistentFrontierOptions } from '../../../src/frontier-store/persistent-frontier.js';
import { BANDS_PER_OCTAVE, bandOf, ParkedHost } from '../../../src/frontier-store/parked-host.js';
import { ParkedPriorities } from '../../../src/frontier-store/parked-priorities.js';
import { urlFingerprintInto } from '../../../src/url/fingerprint.js';
import { Rng } from '../../../src/core/prng.js';
import { entry } from '../../helpers/frontier.js';
import { withDir as withScratchDir } from '../../helpers/scratch.js';

const withDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => withScratchDir('shoal-priority-parking-test-', fn);

async function opened(dir: string, options: PersistentFrontierOptions): Promise<PersistentFrontier> {
  const frontier = new PersistentFrontier({ resumeDelayMs: 0, minDelayMs: 0, delayFactor: 0, ...options });
  await frontier.open(dir);
  return frontier;
}

/** Leases and completes, one at a time, until empty; the leases' URLs and priorities, in order. */
function drain(frontier: PersistentFrontier): { url: string; priority: number }[] {
  const out: { url: string; priority: number }[] = [];
  for (let r = frontier.next(0); r.kind !== 'empty'; r = frontier.next(0)) {
    if (r.kind === 'wait') assert.fail('no delay in these tests: nothing should wait');
    out.push({ url: r.lease.entry.url, priority: r.lease.entry.priority });
    frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
  }
  return out;
}

/** For each lease, how many URLs leased before it had a lower band: the bound says at most the share. */
function worseBefore(leased: readonly number[]): number {
  let most = 0;
  for (let i = 0; i < leased.length; i++) {
    const band = bandOf(leased[i] as number);
    let worse = 0;
    for (let j = 0; j < i; j++) if (bandOf(leased[j] as number) < band) worse++;
    most = Math.max(most, worse);
  }
  return most;
}

describe('priority bands', () => {
  test('a higher priority never has a lower band; one band spans less than a factor 2^(1/4)', () => {
    const rng = new Rng(3, 23, 1);
    const values = [0, -0, 1e-300, -1e-300, 1e300, -1e300, Number.MIN_VALUE, -Number.MAX_VALUE, Number.MAX_VALUE, 1, -1];
    for (let i = 0; i < 2000; i++) values.push((rng.next() - 0.5) * 10 ** rng.int(40 - 20));
    values.sort((a, b) => a - b);
    for (let i = 1; i < values.length; i++) {
      assert.ok(bandOf(values[i] as number) >= bandOf(values[i - 1] as number), `${values[i - 1]} then ${values[i]}`);
    }
    for (const p of values) {
      if (!(p >= 1e-300 && p <= 1e300)) continue; // normal doubles, where 1.19 times p is a double apart
      assert.ok(bandOf(p * 2 ** (1 / BANDS_PER_OCTAVE) * 1.000001) > bandOf(p), `${p} and 1.19 times it share no band`);
    }
    assert.ok(bandOf(-1e-300) < bandOf(0) && bandOf(0) < bandOf(1e-300), 'zero is a band between the signs');
    assert.equal(bandOf(3), bandOf(3.1), 'close priorities share a band');
  });

  test('a parked host gives its best band first, first come first served within a band', () => {
    const host = new ParkedHost();
    const pushes: [number, number][] = [
      [1, 10],
      [8, 11],
      [1, 12],
      [8.1, 13],
      [0.5, 14],
      [64, 15],
    ];
    for (const [priority, location] of pushes) host.push(bandOf(priority), location);
    assert.equal(host.size, 6);
    const out: number[] = [];
    while (host.size > 0) out.push(host.shift());
    assert.deepEqual(out, [15, 11, 13, 10, 12, 14]);
    assert.throws(() => host.shift(), RangeError);
    // A move takes a location out of its band (wherever it is in it) and puts it behind the new band's.
    for (let i = 0; i < 10; i++) host.push(bandOf(i % 2 === 0 ? 1 : 8), 100 + i);
    assert.equal(host.move(104, bandOf(8)), true);
    assert.equal(host.move(104, bandOf(8)), false, 'already there');
    assert.equal(host.move(999, bandOf(64)), false, 'not parked here');
    assert.equal(host.move(101, bandOf(0.1)), true);
    const moved: number[] = [];
    while (host.size > 0) moved.push(host.shift());
    assert.deepEqual(moved, [103, 105, 107, 109, 104, 100, 102, 106, 108, 101]);
  });

  test('the table of new priorities: latest wins, a taken cell is forgotten, a collision overwrites and is counted', () => {
    const t = new ParkedPriorities(4);
    t.set(1, 5, 0.5);
    t.set(1, 5, 0.7);
    assert.equal(t.size, 1);
    t.set(2, 9, 3); // 9 & 3 === 5 & 3: the same cell, another URL
    assert.equal(t.overwritten, 1);
    assert.ok(Number.isNaN(t.take(1, 5)), 'its change was overwritten');
    assert.equal(t.take(2, 9), 3);
    assert.ok(Number.isNaN(t.take(2, 9)), 'taken once');
    assert.equal(t.size, 0);
    assert.throws(() => new ParkedPriorities(6), RangeError);
  });
});

describe('PersistentFrontier: priority order with parking', () => {
  test("one host's URLs come out in priority order, to within a band, behind at most its share of worse ones", () =>
    withDir(async (dir) => {
      for (const share of [1, 3, 8]) {
        const rng = new Rng(share, 23, 2);
        const frontier = await opened(`${dir}/${share}`, { memoryUrlsPerHost: share, stageBytes: 512 });
        const priorities: number[] = [];
        for (let i = 0; i < 300; i++) {
          const p = 10 ** (rng.next() * 6 - 6);
          priorities.push(p);
          assert.equal(frontier.add(entry(`http://a.test/${i}`, { priority: p }), 0), true);
        }
        assert.equal(frontier.stats().parked, 300 - share);
        const leased = drain(frontier).map((l) => l.priority);
        assert.equal(leased.length, 300);
        assert.deepEqual(
          [...leased].sort((a, b) => a - b),
          [...priorities].sort((a, b) => a - b),
          'every URL once',
        );
        const worse = worseBefore(leased);
        assert.ok(worse <= share, `share ${share}: a URL was leased after ${worse} of a lower band`);
        // Past the URLs that took slots on arrival, the bands never rise.
        const bands = leased.slice(share).map(bandOf);
        for (let i = 1; i < bands.length; i++)
          assert.ok((bands[i] as number) <= (bands[i - 1] as number), `share ${share}: lease ${i + share}`);
        // With parking, the same URLs in memory (MemoryFrontier's exact order) give the same bands.
        const exact = [...priorities].sort((a, b) => b - a).map(bandOf);
        assert.notDeepEqual(
          leased.slice(0, share).map(bandOf),
          exact.slice(0, share),
          'the first ones arrived first (the bound is needed)',
        );
        await frontier.close();
      }
    }));

  test('a parked URL re-prioritized comes back into a slot with its new priority and goes before the others', () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { memoryUrlsPerHost: 2 });
      for (let i = 0; i < 6; i++) frontier.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      assert.equal(frontier.stats().parked, 4);
      // 5 is parked: the change is held, not applied (false: not in a slot).
      assert.equal(frontier.reprioritize('http://a.test/5', 0.5), false);
      assert.equal(frontier.reprioritize('http://a.test/3', 100), false);
      assert.equal(frontier.reprioritize('http://a.test/0', 0.1), true, 'a URL in a slot is re-ranked at once');
      const fp = new Uint32Array(2);
      urlFingerprintInto('http://a.test/4', fp);
      assert.equal(frontier.reprioritizeFingerprints(1, [fp[0] as number], [fp[1] as number], [50]), 0);
      assert.equal(frontier.stats().parkedPriorities, 3);
      const order = drain(frontier);
      // 1 (slot, 1) first; 0 dropped to 0.1 and waits. Completing 1 brings 2 (oldest of the band of
      // 1) back; it goes before 0. Completing 2 brings 3 back with 100: first at once. Then 4 with
      // 50, then 5 (its band was 1's, its priority now 0.5), then 0.
      assert.deepEqual(
        order.map((l) => l.url.slice('http://a.test/'.length)),
        ['1', '2', '3', '4', '5', '0'],
      );
      assert.deepEqual(
        order.map((l) => l.priority),
        [1, 1, 1, 1, 1, 1],
        "a lease's entry is its record, as added",
      );
      assert.equal(frontier.stats().parkedPriorities, 0, 'every held change was taken');
      await frontier.close();
    }));

  test('the sweep moves a re-prioritized parked URL to its new band at the next flushes', () =>
    withDir(async (dir) => {
      const frontier = await opened(dir, { memoryUrlsPerHost: 2, segmentBytes: 4096, sweepBytesPerFlush: 4096 });
      for (let i = 0; i < 60; i++) frontier.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      await frontier.flush();
      assert.equal(frontier.reprioritize('http://a.test/50', 100), false, 'parked');
      assert.equal(frontier.reprioritize('http://a.test/40', 0.01), false, 'parked');
      // A small slice per flush: it takes a few flushes to reach the records.
      for (let k = 0; k < 8 && frontier.stats().rebanded < 2; k++) await frontier.flush();
      assert.equal(frontier.stats().rebanded, 2);
      const order = drain(frontier).map((l) => Number(l.url.slice('http://a.test/'.length)));
      // 0 and 1 held slots; completing 0 brings 50 (best band) back, which goes before 1.
      assert.deepEqual(order.slice(0, 3), [0, 50, 1]);
      assert.equal(order.at(-1), 40, 'lowered: last');
      assert.equal(order.length, 60);
      await frontier.close();
    }));

  test('seeded crawls with re-prioritizations, tiny segments and reopenings: every URL leaves once', async () => {
    // The sweep moves parked locations between bands while compaction copies records out of old
    // segments: a location left pointing into a deleted segment would fail its read, a lost one
    // would leave a URL behind.
    for (const seed of [1, 2, 3]) {
      await withDir(async (dir) => {
        const rng = new Rng(seed, 23, 4);
        const options = (): PersistentFrontierOptions => ({
          memoryUrlsPerHost: 1 + rng.int(3),
          stageBytes: 100 + rng.int(400),
          segmentBytes: 4096,
          compactBytesPerFlush: 4096,
          sweepBytesPerFlush: 4096,
          parkedPriorityCells: 64,
        });
        let frontier = await opened(dir, options());
        const added: string[] = [];
        const done = new Set<string>();
        let leases: Lease[] = [];
        let rebanded = 0;
        let compacted = 0;
        for (let step = 0; step < 2500; step++) {
          const u = rng.next();
          if (u < 0.3) {
            const url = `http://h${rng.int(5)}.test/${step}`;
            assert.equal(frontier.add(entry(url, { priority: 10 ** (rng.next() * 4) }), 0), true);
            added.push(url);
          } else if (u < 0.5 && added.length > 0) {
            frontier.reprioritize(added[rng.int(added.length)] as string, 10 ** (rng.next() * 4));
          } else if (u < 0.7) {
            const r = frontier.next(0);
            if (r.kind === 'url') {
              assert.ok(!done.has(r.lease.entry.url), `seed ${seed}: ${r.lease.entry.url} leased after it was done`);
              leases.push(r.lease);
            }
          } else if (u < 0.9 && leases.length > 0) {
            const l = leases.splice(rng.int(leases.length), 1)[0] as Lease;
            frontier.complete(l, { fetchDurationMs: 0 }, 0);
            done.add(l.entry.url);
          } else if (u < 0.98) {
            await frontier.flush();
          } else {
            rebanded += frontier.stats().rebanded;
            compacted += frontier.stats().compactedRecords;
            await frontier.close();
            frontier = await opened(dir, options());
            leases = [];
          }
        }
        for (const l of leases) {
          frontier.complete(l, { fetchDurationMs: 0 }, 0);
          done.add(l.entry.url);
        }
        rebanded += frontier.stats().rebanded;
        compacted += frontier.stats().compactedRecords;
        for (const { url } of drain(frontier)) {
          assert.ok(!done.has(url), `seed ${seed}: ${url} leased after it was done`);
          done.add(url);
        }
        assert.equal(done.size, added.length, `seed ${seed}: every URL added is done once`);
        assert.ok(rebanded > 10 && compacted > 0, `seed ${seed}: the sweep moved ${rebanded}, compaction copied ${compacted}`);
        await frontier.close();
      });
    }
  });

  test('after a crash, the parked URLs come back in their bands: none lost, none completed twice', () =>
    withDir(async (dir) => {
      const rng = new Rng(9, 23, 3);
      const first = await opened(dir, { memoryUrlsPerHost: 2, stageBytes: 256 });
      const all = new Map<string, number>();
      for (let i = 0; i < 120; i++) {
        const host = `h${i % 3}.test`;
        const url = `http://${host}/${i}`;
        const priority = 1 + rng.int(1000);
        all.set(url, priority);
        first.add(entry(url, { priority }), 0);
      }
      const done = new Set<string>();
      for (let k = 0; k < 20; k++) {
        const r = first.next(0);
        assert.equal(r.kind, 'url');
        if (r.kind !== 'url') return;
        first.complete(r.lease, { fetchDurationMs: 0 }, 0);
        done.add(r.lease.entry.url);
      }
      await first.flush();
      // After the flush: completions held in memory, lost in the crash; their URLs come back.
      const lost: string[] = [];
      for (let k = 0; k < 5; k++) {
        const r = first.next(0);
        if (r.kind !== 'url') continue;
        first.complete(r.lease, { fetchDurationMs: 0 }, 0);
        lost.push(r.lease.entry.url);
      }
      // The crash: the first frontier is never closed (closing would write what it holds).
      const second = await opened(dir, { memoryUrlsPerHost: 2 });
      const s = second.stats();
      assert.equal(s.queued, 100, '120 added, 20 completed before the flush');
      assert.ok(s.parked > 80, `parked ${s.parked}`);
      const leased = drain(second);
      const urls = leased.map((l) => l.url);
      assert.deepEqual(new Set(urls), new Set([...all.keys()].filter((u) => !done.has(u))), 'every URL not completed at the flush');
      for (const u of lost) assert.ok(urls.includes(u), `${u}: its completion was not durable`);
      assert.equal(new Set(urls).size, urls.length, 'once each');
      for (const host of ['h0.test', 'h1.test', 'h2.test']) {
        const ps = leased.filter((l) => l.url.includes(host)).map((l) => l.priority);
        assert.ok(worseBefore(ps) <= 2, `${host}: leased in priority order to within a band beyond its share`);
      }
      await second.close();
    }));
});
