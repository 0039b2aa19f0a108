/**
 * New priorities of parked URLs in the frontier log (`parked-priorities.ts`, PRIORITY records of
 * `frontier-log.ts`, `recovery.ts`): a change held at a checkpoint survives a crash, and the URL
 * comes back in the band of its latest priority and is leased with it; a change after the last
 * checkpoint is lost as a completion would be; compaction never takes a journaled change back; a
 * log of layout version 1 is read and written on in a new segment. Each test in its own temporary
 * directory; a crash is a second frontier opened on the directory of one never closed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readSync, writeSync, closeSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PersistentFrontier, type PersistentFrontierOptions } from '../../../src/frontier-store/persistent-frontier.js';
import { FrontierLog, type ScannedRecord } from '../../../src/frontier-store/frontier-log.js';
import { ParkedPriorities } from '../../../src/frontier-store/parked-priorities.js';
import { Rng } from '../../../src/core/prng.js';
import { entry } from '../../helpers/frontier.js';
import { withDir as withScratchDir } from '../../helpers/scratch.js';

const withDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => withScratchDir('shoal-priority-journal-test-', fn);

async function opened(dir: string, options: PersistentFrontierOptions = {}): Promise<PersistentFrontier> {
  const frontier = new PersistentFrontier({ resumeDelayMs: 0, minDelayMs: 0, delayFactor: 0, memoryUrlsPerHost: 2, ...options });
  await frontier.open(dir);
  return frontier;
}

/** Leases and completes, one at a time, until empty: the paths leased, in order. */
function drain(frontier: PersistentFrontier): string[] {
  const out: string[] = [];
  for (let r = frontier.next(0); r.kind !== 'empty'; r = frontier.next(0)) {
    if (r.kind === 'wait') assert.fail('no delay in these tests: nothing should wait');
    out.push(new URL(r.lease.entry.url).pathname.slice(1));
    frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
  }
  return out;
}

/** The records of the log in `dir`, in order (opening it repairs nothing in a log that was flushed). */
function records(dir: string): ScannedRecord[] {
  const out: ScannedRecord[] = [];
  FrontierLog.open(dir, (r) => out.push(r)).close();
  return out;
}

describe('the table of new priorities: what is written down', () => {
  test('a change is unwritten until drained; drained once, in cell order; a taken or restored one is not unwritten', () => {
    const t = new ParkedPriorities(64);
    t.set(7, 3, 2);
    t.set(7, 3, 5);
    t.set(8, 40, 9);
    assert.equal(t.unwrittenSize, 2, 'two URLs, however many changes');
    assert.equal(t.isUnwritten(7, 3), true);
    const drained: [number, number, number][] = [];
    t.drainUnwritten((hi, lo, p) => drained.push([hi, lo, p]));
    assert.deepEqual(drained, [
      [7, 3, 5],
      [8, 40, 9],
    ]);
    assert.equal(t.unwrittenSize, 0);
    assert.equal(t.isUnwritten(7, 3), false);
    t.drainUnwritten(() => assert.fail('nothing unwritten'));
    assert.equal(t.peek(7, 3), 5, 'written, still held');
    t.set(7, 3, 6);
    assert.equal(t.take(7, 3), 6);
    assert.equal(t.unwrittenSize, 0, 'a taken change is the caller’s to write');
    t.restore(9, 33, 4);
    assert.equal(t.isUnwritten(9, 33), false);
    assert.equal(t.peek(9, 33), 4);
    t.set(1, 33 + 64, 1); // the same cell, another URL: the restored change is overwritten
    assert.equal(t.isUnwritten(1, 97), true);
    assert.equal(t.overwritten, 1);
  });
});

describe('PersistentFrontier: priorities of parked URLs across a crash', () => {
  test('a change journaled at a checkpoint comes back: new band, new priority in its slot; a later one is lost', () =>
    withDir(async (dir) => {
      const first = await opened(dir);
      for (let i = 0; i < 8; i++) first.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      await first.flush();
      // 6 up, 4 up a little (ties with nothing), then 6 changed again: one record for 6.
      assert.equal(first.reprioritize('http://a.test/6', 50), false, 'parked');
      assert.equal(first.reprioritize('http://a.test/4', 3), false);
      assert.equal(first.reprioritize('http://a.test/6', 100), false);
      const before = first.stats().logBytes;
      await first.flush();
      assert.equal(first.stats().logBytes - before, 2 * 25, 'two PRIORITY records of 25 bytes');
      const priorities = records(dir).filter((r) => r.kind === 'priority');
      assert.equal(priorities.length, 2, 'one PRIORITY record per URL changed since the last checkpoint');
      // After the checkpoint: 5 up, held in memory only.
      assert.equal(first.reprioritize('http://a.test/5', 1000), false);
      const second = await opened(dir);
      assert.equal(second.stats().recoveredPriorities, 2);
      assert.equal(second.stats().parked, 6);
      // 0 and 1 take the slots again (add order). Completing 0 brings 6 back (band of 100) with 100:
      // before 1. Completing 6 brings 4 with 3: before 1 too. Then 1, and 2, 3, 5, 7 in add order.
      assert.deepEqual(drain(second), ['0', '6', '4', '1', '2', '3', '5', '7']);
      await second.close();
    }));

  test('without the checkpoint nothing of the change is written, as for a completion', () =>
    withDir(async (dir) => {
      const first = await opened(dir);
      for (let i = 0; i < 6; i++) first.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      await first.flush();
      first.reprioritize('http://a.test/5', 100);
      const second = await opened(dir);
      assert.equal(second.stats().recoveredPriorities, 0);
      assert.deepEqual(drain(second), ['0', '1', '2', '3', '4', '5']);
      await second.close();
    }));

  test('closing journals the changes held since the last checkpoint', () =>
    withDir(async (dir) => {
      const first = await opened(dir);
      for (let i = 0; i < 6; i++) first.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      await first.flush();
      first.reprioritize('http://a.test/5', 100);
      await first.close();
      const second = await opened(dir);
      assert.equal(second.stats().recoveredPriorities, 1);
      assert.deepEqual(drain(second), ['0', '5', '1', '2', '3', '4']);
      await second.close();
    }));

  test('a change taken back into a slot before a checkpoint is journaled then', () =>
    withDir(async (dir) => {
      const first = await opened(dir);
      for (let i = 0; i < 5; i++) first.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      assert.equal(first.reprioritize('http://a.test/2', 0.01), false, 'parked');
      assert.equal(first.reprioritize('http://a.test/4', 64), false, 'parked');
      // Completing 0 brings 2 (the oldest: no sweep yet) into a slot with 0.01, before any checkpoint.
      const r = first.next(0);
      assert.ok(r.kind === 'url' && r.lease.entry.url === 'http://a.test/0');
      first.complete(r.lease, { fetchDurationMs: 0 }, 0);
      await first.flush();
      const second = await opened(dir, { memoryUrlsPerHost: 1 });
      // 1 takes the only slot; 4 comes back with 64, then 3 (1), then 2 (0.01: else it would go before 3).
      assert.deepEqual(drain(second), ['1', '4', '3', '2']);
      await second.close();
    }));

  test('seeded: compaction and rebanding under way, every journaled change comes back with its URL', async () => {
    // Tiny segments, so the segments holding ADD and PRIORITY records are compacted away while the
    // URLs wait; a mirror of each URL's latest priority as of the last checkpoint says what must
    // come back. The table is big enough that a change is seldom overwritten (those are lost by
    // design, and the seeds are ones where none was: checked, so the mirror holds).
    for (const seed of [1, 2, 4]) {
      await withDir(async (dir) => {
        const rng = new Rng(seed, 23, 7);
        const options: PersistentFrontierOptions = {
          memoryUrlsPerHost: 1,
          stageBytes: 300,
          segmentBytes: 4096,
          compactBytesPerFlush: 4096,
          sweepBytesPerFlush: 4096,
          parkedPriorityCells: 2 ** 20,
        };
        const frontier = await opened(dir, options);
        const latest = new Map<string, number>();
        let durable = new Map<string, number>();
        /** URLs re-prioritized in a slot: their change is journaled only if compaction copied them since. */
        const uncertain = new Set<string>();
        for (let step = 0; step < 3000; step++) {
          const u = rng.next();
          if (u < 0.3) {
            const url = `http://h${rng.int(3)}.test/${step}`;
            const p = 10 ** (rng.next() * 4);
            frontier.add(entry(url, { priority: p }), 0);
            latest.set(url, p);
          } else if (u < 0.6 && latest.size > 0) {
            const urls = [...latest.keys()];
            const url = urls[rng.int(urls.length)] as string;
            const p = 10 ** (rng.next() * 4);
            // Only parked URLs' changes are journaled: a URL in a slot keeps its change in memory.
            if (frontier.reprioritize(url, p)) uncertain.add(url);
            else latest.set(url, p);
          } else if (u < 0.75) {
            const r = frontier.next(0);
            if (r.kind === 'url') {
              frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
              latest.delete(r.lease.entry.url);
            }
          } else {
            await frontier.flush();
            durable = new Map(latest);
          }
        }
        await frontier.flush();
        durable = new Map(latest);
        const s = frontier.stats();
        assert.ok(s.deletedSegments > 2 && s.parkedPrioritiesOverwritten === 0, `seed ${seed}: ${JSON.stringify(s)}`);
        // The crash, then every URL in its order: each host's URLs best first beyond its share.
        const second = await opened(dir, options);
        const order = drain(second).map((path) => [...durable.keys()].find((u) => u.endsWith(`/${path}`)) as string);
        assert.deepEqual(new Set(order), new Set(durable.keys()), `seed ${seed}: every URL held comes back`);
        for (const host of ['h0.test', 'h1.test', 'h2.test']) {
          const ps = order.filter((u) => u.includes(host) && !uncertain.has(u)).map((u) => durable.get(u) as number);
          // Past the one that took the host's slot at recovery, the latest priorities never rise (sorted
          // by priority within a band too: each came back into the slot with its new priority).
          for (let i = 2; i < ps.length; i++)
            assert.ok((ps[i] as number) <= (ps[i - 1] as number) * 2 ** 0.25, `seed ${seed}, ${host}, lease ${i}: ${ps.join(' ')}`);
        }
        await second.close();
      });
    }
  });
});

describe('frontier log layout versions', () => {
  test('a version 1 log is read, and written on in a new segment of version 2', () =>
    withDir(async (dir) => {
      const first = await opened(dir);
      for (let i = 0; i < 4; i++) first.add(entry(`http://a.test/${i}`, { priority: 1 }), 0);
      await first.close();
      // What a shoal of layout 1 left: the same records under a header of version 1.
      const [name] = readdirSync(dir).filter((f) => f.endsWith('.seg'));
      const fd = openSync(join(dir, name as string), 'r+');
      const version = Buffer.alloc(4);
      readSync(fd, version, 0, 4, 8);
      assert.equal(version.readUInt32LE(0), 2);
      version.writeUInt32LE(1, 0);
      writeSync(fd, version, 0, 4, 8);
      closeSync(fd);
      const second = await opened(dir);
      assert.equal(second.stats().segments, 2, 'a new segment for records version 1 does not know');
      assert.equal(second.reprioritize('http://a.test/3', 10), false);
      await second.flush();
      const third = await opened(dir);
      assert.equal(third.stats().recoveredPriorities, 1);
      assert.deepEqual(drain(third), ['0', '3', '1', '2']);
      await third.close();
    }));
});
