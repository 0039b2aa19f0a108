/**
 * The revisit schedule (src/node/stages/revisits.ts and src/frontier-store/revisit-store.ts) on a
 * manual clock, with a memory frontier:
 *
 *     t = 0      page a.test/x fetched (v1)          -> due at 1000 (the initial interval)
 *     t = 1000   due: added to the frontier, fetched with its ETag; 304  -> due at 3000 (doubled)
 *     t = 3000   fetched, new content (v2): a change caught
 *
 * and: validators sent only for known pages, the run held open until `durationMs` and no longer,
 * `maxRevisits`, and a second scheduler on the same directory (a restart) re-arms the schedule.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../../src/core/clock.js';
import { MemoryFrontier } from '../../../../src/frontier/memory-frontier.js';
import { RevisitStore, REVISITS_FILE } from '../../../../src/frontier-store/revisit-store.js';
import { silentLog } from '../../../../src/obs/log.js';
import { REVISIT_PRIORITY, RevisitScheduler, type PageVisit } from '../../../../src/node/stages/revisits.js';
import { Waker } from '../../../../src/node/stages/waker.js';
import type { RevisitBounds } from '../../../../src/frontier/change-rate.js';

const BOUNDS: RevisitBounds = { estimator: 'cho', initialIntervalMs: 1000, minIntervalMs: 500, maxIntervalMs: 60_000, tradeoffMs: 1000 };
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function visit(url: string, content: string): PageVisit {
  return {
    url,
    host: new URL(url).host,
    depth: 1,
    payloadDigest: `sha1:P${content}`,
    contentDigest: `sha1:C${content}`,
    etag: `"${content}"`,
    lastModified: null,
    capture: { recordId: `<urn:uuid:${content}>`, warcDate: '2024-01-01T00:00:00.000Z', url },
  };
}

function setup(dir: string | null, options: { durationMs?: number | null; maxRevisits?: number | null; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock();
  const frontier = new MemoryFrontier({ minDelayMs: 0 });
  const store = new RevisitStore(dir);
  let holds = 0;
  const scheduler = new RevisitScheduler({
    bounds: BOUNDS,
    durationMs: options.durationMs ?? null,
    maxRevisits: options.maxRevisits ?? null,
    store,
    frontier,
    clock,
    waker: new Waker(clock),
    log: silentLog,
    hold: () => {
      holds++;
      return () => holds--;
    },
  });
  return { clock, frontier, store, scheduler, holds: () => holds };
}

/** Takes the URL the frontier gives now and completes it; null when it gives none. */
function take(frontier: MemoryFrontier, now: number): string | null {
  const next = frontier.next(now);
  if (next.kind !== 'url') return null;
  frontier.complete(next.lease, { fetchDurationMs: 1 }, now);
  assert.equal(next.lease.entry.priority, REVISIT_PRIORITY);
  return next.lease.entry.url;
}

describe('revisit scheduler', () => {
  test('schedules, queues when due, sends validators, counts 304s and changes', async () => {
    const s = setup(null);
    const ac = new AbortController();
    const running = s.scheduler.run(ac.signal);
    const url = 'http://a.test/x';
    assert.deepEqual(s.scheduler.conditionalHeaders(url), {}, 'no validators for a page never fetched');
    s.scheduler.visited(visit(url, 'v1'));
    assert.equal(s.store.get(url)?.dueWallMs, s.clock.wallMs() + 1000);
    await s.clock.advanceTo(999);
    assert.equal(take(s.frontier, 999), null, 'not before it is due');
    await s.clock.advanceTo(1000);
    assert.equal(take(s.frontier, 1000), url);
    assert.deepEqual(s.scheduler.conditionalHeaders(url), { etag: '"v1"' });
    s.scheduler.notModified(url);
    // One visit compared, no change: the interval doubles.
    assert.equal(s.store.get(url)?.dueWallMs, s.clock.wallMs() + 2000);
    await s.clock.advanceTo(3000);
    assert.equal(take(s.frontier, 3000), url);
    s.scheduler.visited(visit(url, 'v2'));
    const state = s.store.get(url);
    assert.equal(state?.history.visits, 2);
    assert.equal(state?.history.changes, 1);
    assert.equal(state?.capture?.recordId, '<urn:uuid:v2>', 'a changed page refers to its new capture');
    assert.deepEqual(s.scheduler.counts, { scheduled: 1, queued: 2, notModified: 1, unchanged: 0, changed: 1 });
    ac.abort();
    await running;
  });

  test('an unchanged 2xx keeps referring to the capture that holds the content', async () => {
    const s = setup(null);
    s.scheduler.visited(visit('http://a.test/y', 'same'));
    s.scheduler.visited({
      ...visit('http://a.test/y', 'same'),
      capture: { recordId: '<urn:uuid:dup>', warcDate: 'x', url: 'http://a.test/y' },
    });
    assert.equal(s.store.get('http://a.test/y')?.capture?.recordId, '<urn:uuid:same>');
    assert.equal(s.scheduler.counts.unchanged, 1);
  });

  test("a page's link set is kept until a visit follows its links again", async () => {
    const s = setup(null);
    const url = 'http://a.test/z';
    s.scheduler.visited({ ...visit(url, 'v1'), links: 'AAAAAAAAAAE=' });
    s.scheduler.notModified(url);
    assert.equal(s.store.get(url)?.links, 'AAAAAAAAAAE=', 'a 304 keeps it');
    s.scheduler.visited(visit(url, 'v1'));
    assert.equal(s.store.get(url)?.links, 'AAAAAAAAAAE=', 'an unchanged 2xx (links not followed) keeps it');
    s.scheduler.visited({ ...visit(url, 'v2'), links: 'AAAAAAAAAAI=' });
    assert.equal(s.store.get(url)?.links, 'AAAAAAAAAAI=', 'a changed page followed: its new set');
  });

  test('durationMs holds the run open until it has passed, then lets it end', async () => {
    const s = setup(null, { durationMs: 5000 });
    const ac = new AbortController();
    const running = s.scheduler.run(ac.signal);
    assert.equal(s.holds(), 1);
    s.scheduler.visited(visit('http://a.test/z', 'v'));
    await s.clock.advanceTo(4999);
    assert.equal(s.holds(), 1);
    await s.clock.advanceTo(5000);
    await running;
    assert.equal(s.holds(), 0, 'released at the end of the re-crawl');
    // A page visited after the end is still scheduled (for a later run) but not queued.
    s.scheduler.visited(visit('http://a.test/w', 'v'));
    await s.clock.advanceTo(20_000);
    assert.equal(s.frontier.stats().queued, 1, 'a.test/z only, queued at 1000');
  });

  test('without durationMs nothing holds the run; an abort ends the scheduler at once', async () => {
    const s = setup(null);
    const ac = new AbortController();
    const running = s.scheduler.run(ac.signal);
    assert.equal(s.holds(), 0);
    s.scheduler.visited(visit('http://a.test/z', 'v'));
    ac.abort();
    await running;
  });

  test('maxRevisits bounds the revisits queued in a run', async () => {
    const s = setup(null, { maxRevisits: 2 });
    const ac = new AbortController();
    const running = s.scheduler.run(ac.signal);
    for (const p of ['a', 'b', 'c']) s.scheduler.visited(visit(`http://${p}.test/`, 'v'));
    await s.clock.advanceTo(1000);
    assert.equal(s.frontier.stats().queued, 2);
    ac.abort();
    await running;
  });

  test('the schedule file is rewritten when it holds more than twice as many lines as pages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-revisits-'));
    dirs.push(dir);
    const first = setup(dir);
    await first.store.open();
    for (let i = 0; i < 1200; i++) first.scheduler.visited(visit(`http://a.test/${i % 3}`, `v${i}`));
    await first.store.close();
    assert.equal(readFileSync(join(dir, REVISITS_FILE), 'utf8').trim().split('\n').length, 1200);
    const second = setup(dir);
    await second.store.open();
    await second.store.close();
    const lines = readFileSync(join(dir, REVISITS_FILE), 'utf8').trim().split('\n');
    assert.equal(lines.length, 3);
    assert.equal(second.store.get('http://a.test/2')?.contentDigest, 'sha1:Cv1199', 'the last state of each page is kept');
  });

  test('a restart reads the schedule back and queues what is due', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-revisits-'));
    dirs.push(dir);
    const first = setup(dir);
    await first.store.open();
    first.scheduler.visited(visit('http://a.test/1', 'v1'));
    first.scheduler.visited(visit('http://a.test/2', 'v1'));
    await first.clock.advanceTo(400);
    first.scheduler.visited(visit('http://a.test/2', 'v2'));
    await first.store.flush();
    // A process killed mid-line leaves half a line: it is ignored.
    appendFileSync(join(dir, REVISITS_FILE), '{"url":"http://a.te');
    await first.store.close();
    assert.equal(readFileSync(join(dir, REVISITS_FILE), 'utf8').split('\n').length, 4);

    const clock = new ManualClock(0);
    const second = setup(dir, { clock });
    await second.store.open();
    assert.equal(second.store.size, 2);
    assert.equal(second.store.get('http://a.test/2')?.history.visits, 1, 'the last line of a URL wins');
    assert.deepEqual(second.scheduler.conditionalHeaders('http://a.test/2'), { etag: '"v2"' });
    const ac = new AbortController();
    const running = second.scheduler.run(ac.signal);
    // a.test/2 changed after 400 ms: 1/λ̂ = 400 / ln 3 = 364 ms, raised to the 500 ms floor: due at 900.
    await clock.advanceTo(899);
    assert.equal(take(second.frontier, 899), null);
    await clock.advanceTo(900);
    assert.equal(take(second.frontier, 900), 'http://a.test/2', 'due at 900 as scheduled before the restart');
    await clock.advanceTo(999);
    assert.equal(take(second.frontier, 999), null);
    await clock.advanceTo(1000);
    assert.equal(take(second.frontier, 1000), 'http://a.test/1', 'due at 1000 as scheduled before the restart');
    ac.abort();
    await running;
    await second.store.close();
  });
});
