/**
 * X4's per-host activity cap (src/frontier/activity-cap.ts) in the frontier, on a manual clock:
 * every `nowMs` is a number chosen here, fetches take 0 ms and the politeness gap is 0 ms unless a
 * test says otherwise, so the order of leases is decided by the cap and the add order alone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ActivityWindow } from '../../../src/frontier/activity-cap.js';
import type { CompletionReport } from '../../../src/frontier/frontier.js';
import { MemoryFrontier, type MemoryFrontierOptions } from '../../../src/frontier/memory-frontier.js';
import { entry, take, waitUntil } from '../../helpers/frontier.js';

const NO_GAP = { minDelayMs: 0, delayFactor: 0 } as const;
const HALF_A_MINUTE = { maxShare: 0.5, windowMs: 60_000 } as const;

function frontierOf(options: MemoryFrontierOptions, urls: readonly string[], nowMs = 0): MemoryFrontier {
  const f = new MemoryFrontier({ ...NO_GAP, ...options });
  for (const u of urls) f.add(entry(`http://${u}`), nowMs);
  return f;
}

/** Leases and completes (0 ms, `report`) everything that may go at `nowMs`; the URLs in lease order, without the scheme. */
function drain(f: MemoryFrontier, nowMs: number, report: (url: string) => Partial<CompletionReport> = () => ({})): string[] {
  const order: string[] = [];
  for (let r = f.next(nowMs); r.kind === 'url'; r = f.next(nowMs)) {
    const url = r.lease.entry.url.slice('http://'.length);
    order.push(url);
    f.complete(r.lease, { fetchDurationMs: 0, ...report(url) }, nowMs);
  }
  return order;
}

describe('ActivityWindow', () => {
  test('a host is over its share when it took more than maxShare of the leases', () => {
    const w = new ActivityWindow({ maxShare: 0.25, windowMs: 60_000 });
    assert.equal(w.isOverShare('a.test'), false, 'nothing counted: nobody is over');
    for (const h of ['a.test', 'b.test', 'c.test', 'd.test']) w.record(h, 0);
    assert.equal(w.isOverShare('a.test'), false, '1 of 4 is exactly the share');
    w.record('a.test', 0);
    assert.equal(w.isOverShare('a.test'), true, '2 of 5');
    assert.equal(w.isOverShare('b.test'), false);
  });

  test('the window slides in steps of windowMs / 60', () => {
    // Steps of 1000 ms: a lease of t=500 (step 0) counts until the step that starts at 60,000.
    const w = new ActivityWindow({ maxShare: 0.5, windowMs: 60_000 });
    w.record('a.test', 500);
    w.record('b.test', 30_000);
    w.expire(59_999);
    assert.deepEqual([w.size, w.countOf('a.test')], [2, 1]);
    w.expire(60_000);
    assert.deepEqual([w.size, w.countOf('a.test'), w.countOf('b.test')], [1, 0, 1]);
    w.expire(90_000);
    assert.equal(w.size, 0);
  });

  test('refuses a share outside (0, 1] and an empty window', () => {
    for (const bad of [
      { maxShare: 0, windowMs: 1000 },
      { maxShare: 1.5, windowMs: 1000 },
      { maxShare: 0.5, windowMs: 0 },
      { maxShare: 0.5, windowMs: Number.POSITIVE_INFINITY },
    ])
      assert.throws(() => new ActivityWindow(bad), RangeError, JSON.stringify(bad));
  });
});

describe('MemoryFrontier with an activity cap', () => {
  test('a host over its share is passed over while another host may go, and goes once none may', () => {
    // a1..a6 then b1..b3, all at t=0. Without the cap breadth-first takes a's six first (its URLs
    // are older). With half as the share, a goes whenever it took at most half of the leases so far:
    //   a1 (0 of 0)  b1 (a: 1 of 1)  a2 (1 of 2)  b2 (2 of 3)  a3 (2 of 4)  b3 (3 of 5)
    // then b is empty and a is the only host left: a4, a5, a6 go although a is over its share.
    const urls = [1, 2, 3, 4, 5, 6].map((i) => `a.test/${i}`).concat([1, 2, 3].map((i) => `b.test/${i}`));
    const off = frontierOf({}, urls);
    assert.deepEqual(drain(off, 0), urls);
    assert.equal(off.stats().heldBack, undefined);
    const capped = frontierOf({ activityCap: HALF_A_MINUTE }, urls);
    assert.deepEqual(drain(capped, 0), [
      'a.test/1',
      'b.test/1',
      'a.test/2',
      'b.test/2',
      'a.test/3',
      'b.test/3',
      'a.test/4',
      'a.test/5',
      'a.test/6',
    ]);
    assert.equal(capped.stats().heldBack, 3);
  });

  test('never idles a slot: a host over its share goes while the others wait for their time', () => {
    // b's robots.txt asks for 5 s between requests. t=0: a1, b1 (a over), a2 (1 of 2: not over);
    // then a is over (2 of 3) but b is not ready before 5000: a3 goes at once rather than wait.
    const f = frontierOf({ activityCap: HALF_A_MINUTE }, ['a.test/1', 'a.test/2', 'a.test/3', 'b.test/1', 'b.test/2']);
    assert.deepEqual(
      drain(f, 0, (url) => (url.startsWith('b.') ? { crawlDelayMs: 5000 } : {})),
      ['a.test/1', 'b.test/1', 'a.test/2', 'a.test/3'],
    );
    assert.equal(waitUntil(f.next(0)), 5000);
    assert.equal(take(f, 5000).entry.url, 'http://b.test/2');
  });

  test('a host comes back under its share as its leases leave the window', () => {
    // t=0: a.test alone takes a1..a3 (nobody else to go: no stall). t=1000: a4 is older than b1
    // and b2, but a took 3 of 3: b1, b2 first (a: 3 of 4 is still over), then a4.
    const f = frontierOf({ activityCap: HALF_A_MINUTE }, ['a.test/1', 'a.test/2', 'a.test/3']);
    assert.deepEqual(drain(f, 0), ['a.test/1', 'a.test/2', 'a.test/3']);
    for (const u of ['a.test/4', 'b.test/1', 'b.test/2']) f.add(entry(`http://${u}`), 1000);
    assert.deepEqual(drain(f, 1000), ['b.test/1', 'b.test/2', 'a.test/4']);
    // t=59,999: the window still holds all seven leases, a's four among them: a5 waits behind b3.
    for (const u of ['a.test/5', 'b.test/3']) f.add(entry(`http://${u}`), 59_999);
    assert.deepEqual(drain(f, 59_999), ['b.test/3', 'a.test/5']);
    // t=60,000: a1..a3 (step 0) have left; a has 2 of 5: a6 goes first again.
    for (const u of ['a.test/6', 'b.test/4']) f.add(entry(`http://${u}`), 60_000);
    assert.deepEqual(drain(f, 60_000), ['a.test/6', 'b.test/4']);
  });

  test('hosts on one address: the cap reorders within an IP group as across groups', () => {
    // Three hosts on one address (one connection at a time for all), every host passed over put back.
    const ip = '192.0.2.1';
    const f = new MemoryFrontier({ ...NO_GAP, activityCap: { maxShare: 0.4, windowMs: 60_000 } });
    for (const u of ['a.test/1', 'a.test/2', 'a.test/3', 'b.test/1', 'b.test/2', 'c.test/1', 'c.test/2'])
      f.add(entry(`http://${u}`, { ip }), 0);
    // a1 (0/0); a over (1/1), b1 (b 0/1); a, b over (1/2 each), c1; a 1/3 ok: a2; a over (2/4), b 1/4: b2;
    // a 2/5 ok: a3; then a over (3/6), b over... b is empty, c 1/6: c2.
    assert.deepEqual(drain(f, 0), ['a.test/1', 'b.test/1', 'c.test/1', 'a.test/2', 'b.test/2', 'a.test/3', 'c.test/2']);
  });
});
