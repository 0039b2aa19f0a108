/**
 * The contract suite of the Frontier extension point (src/frontier/frontier.ts), run by every
 * frontier from its own test file:
 *
 * ```ts
 * frontierContract('memory', { make: async (options) => ({ frontier: new MemoryFrontier(options), close: async () => undefined }) });
 * ```
 *
 * Every `nowMs` below is a plain number chosen by the test (the manual clock of the frontier
 * tests), so each expected time is exact. Unless a test says otherwise the politeness is the
 * default one: gap = max(1000 ms, min(5 × duration, 30,000 ms), Crawl-delay), one lease per host
 * and one per IP address, back-off 10 s doubling to 10 min.
 *
 * A frontier that keeps its URLs across a restart also gives `reopen`, and runs the durability part.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Rng } from '../../src/core/prng.js';
import type { CompletionReport, Frontier, FrontierEntry, Lease, NextResult, PolitenessOptions } from '../../src/frontier/frontier.js';
import { entry, take, waitUntil } from '../helpers/frontier.js';

/** One frontier under test. */
export interface FrontierUnderTest {
  readonly frontier: Frontier;
  /** Releases it (a persistent frontier flushes and closes its files). Called once. */
  close(): Promise<void>;
}

/** How the suite builds the frontiers of one implementation. */
export interface FrontierFactory {
  /** A new, empty frontier with `politeness`; each call has storage of its own. */
  make(politeness?: PolitenessOptions): Promise<FrontierUnderTest>;
  /**
   * For a frontier that keeps its URLs: makes what was done so far durable (its checkpoint), ends
   * `old` as a crash would leave it for the next process (or cleanly), and opens a new frontier
   * with the same options on the same storage.
   */
  reopen?(old: FrontierUnderTest): Promise<FrontierUnderTest>;
  /** With `reopen`: after a restart no host is contacted before the first `nowMs` plus this, ms. */
  readonly resumeDelayMs?: number;
}

/** What a lease must carry of an entry (optional fields compared by meaning: absent is null or false). */
function carried(e: FrontierEntry): unknown {
  return {
    url: e.url,
    host: e.host,
    depth: e.depth,
    priority: e.priority,
    ip: e.ip ?? null,
    fromUrl: e.fromUrl ?? null,
    isSitemap: e.isSitemap ?? false,
  };
}

const ok = (fetchDurationMs: number, extra: Partial<CompletionReport> = {}): CompletionReport => ({ fetchDurationMs, ...extra });

/** Leases and completes (0 ms fetches) until `empty`, jumping to each `wait`; URLs as `url#attempt`. */
function drain(frontier: Frontier, startMs: number): string[] {
  const urls: string[] = [];
  let now = startMs;
  for (let guard = 0; guard < 100_000; guard++) {
    const r = frontier.next(now);
    if (r.kind === 'empty') return urls;
    if (r.kind === 'wait') {
      assert.ok(
        Number.isFinite(r.untilMs) && r.untilMs > now,
        `a wait with nothing in flight must name a later time, got ${r.untilMs} at ${now}`,
      );
      now = r.untilMs;
      continue;
    }
    urls.push(`${r.lease.entry.url}#${r.lease.attempt}`);
    frontier.complete(r.lease, ok(0), now);
  }
  return assert.fail('drain did not end');
}

/** Runs the Frontier contract against the frontiers `factory` builds; see the file comment. */
export function frontierContract(name: string, factory: FrontierFactory): void {
  /** Runs `body` on a new frontier, closed at the end. */
  async function withFrontier(body: (f: Frontier) => void | Promise<void>, politeness?: PolitenessOptions): Promise<void> {
    const under = await factory.make(politeness);
    try {
      await body(under.frontier);
    } finally {
      await under.close();
    }
  }

  describe(`Frontier contract: ${name}`, () => {
    describe('what goes in and comes out', () => {
      test('empty when nothing is queued or in flight; a URL held (queued or in flight) is refused and changes nothing', () =>
        withFrontier((f) => {
          assert.deepEqual(f.next(0), { kind: 'empty' });
          assert.equal(f.add(entry('http://a.test/1'), 0), true);
          assert.equal(f.add(entry('http://a.test/1', { priority: 9 }), 0), false, 'queued twice');
          assert.equal(f.stats().queued, 1);
          const lease = take(f, 0);
          assert.equal(f.add(entry('http://a.test/1'), 0), false, 'in flight');
          assert.deepEqual(f.next(0), { kind: 'wait', untilMs: Infinity }, 'only the completion of the lease can unblock anything');
          assert.deepEqual({ queued: f.stats().queued, inFlight: f.stats().inFlight }, { queued: 0, inFlight: 1 });
          f.complete(lease, ok(0), 0);
          assert.deepEqual(f.next(0), { kind: 'empty' }, 'nothing queued, nothing in flight');
          assert.equal(f.stats().inFlight, 0);
        }));

      test('a lease carries the entry as added, attempt 1, the time of next, and a unique id', () =>
        withFrontier((f) => {
          const added = entry('http://a.test/x', { depth: 3, priority: 2, fromUrl: 'http://a.test/', isSitemap: true });
          const plain = entry('http://b.test/y');
          f.add(added, 0);
          f.add(plain, 0);
          const first = take(f, 5);
          const second = take(f, 6);
          assert.deepEqual(carried(first.entry), carried(added));
          assert.deepEqual(carried(second.entry), carried(plain));
          assert.deepEqual([first.attempt, first.leasedAtMs, second.leasedAtMs], [1, 5, 6]);
          assert.notEqual(first.id, second.id);
        }));

      test('higher priorities leave first; equal priorities in add order, across hosts and within one', () =>
        withFrontier((f) => {
          // Ten hosts with one URL each and one host with four; no host has to wait at t = 0, except
          // that one.test holds one connection, so its URLs leave one completion (and gap) apart.
          const priorities = [1, 3, 2, 3, 1, 0, 2, 3, 1, 2];
          priorities.forEach((priority, i) => f.add(entry(`http://h${i}.test/`, { priority }), 0));
          [2, 5, 5, 1].forEach((priority, i) => f.add(entry(`http://one.test/${i}`, { priority }), 0));
          const atZero: string[] = [];
          for (let r = f.next(0); r.kind === 'url'; r = f.next(0)) {
            atZero.push(new URL(r.lease.entry.url).hostname.replace('.test', '') + new URL(r.lease.entry.url).pathname);
            f.complete(r.lease, ok(0), 0);
          }
          assert.deepEqual(atZero, ['one/1', 'h1/', 'h3/', 'h7/', 'h2/', 'h6/', 'h9/', 'h0/', 'h4/', 'h8/', 'h5/']);
          assert.deepEqual(drain(f, 0), ['http://one.test/2#1', 'http://one.test/0#1', 'http://one.test/3#1']);
        }));
    });

    describe('politeness on a manual clock', () => {
      test('next contact = completion + max(minDelayMs, k × duration): wait names the exact time', () =>
        withFrontier((f) => {
          for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
          f.complete(take(f, 0), ok(100), 100); // max(1000, 500) -> 1100
          assert.equal(waitUntil(f.next(100)), 1100);
          assert.equal(waitUntil(f.next(1099)), 1100);
          f.complete(take(f, 1100), ok(400), 1600); // max(1000, 2000) -> 3600
          assert.equal(waitUntil(f.next(3599)), 3600);
          assert.equal(take(f, 3600).entry.url, 'http://a.test/3');
        }));

      test('the k × duration term stops at maxDelayMs; Crawl-delay lifts the gap above it', () =>
        withFrontier((f) => {
          for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
          f.complete(take(f, 0), ok(60_000), 60_000); // min(300,000, 30,000)
          assert.equal(waitUntil(f.next(60_000)), 90_000);
          f.complete(take(f, 90_000), ok(10, { crawlDelayMs: 45_000 }), 90_010);
          assert.equal(waitUntil(f.next(90_010)), 135_010);
        }));

      test('the knobs are honoured: minDelayMs, delayFactor, maxDelayMs', () =>
        withFrontier(
          (f) => {
            for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
            f.complete(take(f, 0), ok(10), 10); // max(50, 20) = 50
            assert.equal(waitUntil(f.next(10)), 60);
            f.complete(take(f, 60), ok(1000), 1060); // max(50, min(2000, 700)) = 700
            assert.equal(waitUntil(f.next(1060)), 1760);
          },
          { minDelayMs: 50, delayFactor: 2, maxDelayMs: 700 },
        ));

      test('back-off doubles from backoffBaseMs to backoffMaxMs; Retry-After is honoured beyond the cap; success resets it', () =>
        withFrontier((f) => {
          for (let i = 1; i <= 7; i++) f.add(entry(`http://a.test/${i}`), 0);
          let now = 0;
          for (const expected of [10_000, 20_000, 40_000]) {
            f.complete(take(f, now), ok(0, { shouldBackOff: true }), now);
            assert.equal(waitUntil(f.next(now)), now + expected);
            now += expected;
          }
          f.complete(take(f, now), ok(0, { retryAfterMs: 7_200_000 }), now);
          assert.equal(waitUntil(f.next(now)), now + 7_200_000);
          now += 7_200_000;
          f.complete(take(f, now), ok(0), now);
          assert.equal(waitUntil(f.next(now)), now + 1000);
          now += 1000;
          f.complete(take(f, now), ok(0, { shouldBackOff: true }), now);
          assert.equal(waitUntil(f.next(now)), now + 10_000, 'a success in between starts the back-off over');
        }));

      test('maxConnectionsPerHost leases of a host at once; the next waits for a completion (Infinity)', () =>
        withFrontier(
          (f) => {
            for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
            const a = take(f, 0);
            take(f, 0);
            assert.equal(waitUntil(f.next(0)), Infinity);
            f.complete(a, ok(0), 10);
            assert.equal(waitUntil(f.next(10)), 1010);
            assert.equal(take(f, 1010).entry.url, 'http://a.test/3');
          },
          { maxConnectionsPerHost: 2 },
        ));

      test('hosts on one IP share its connection limit, whether the IP came with the entry or with a report', () =>
        withFrontier((f) => {
          f.add(entry('http://a.test/1', { ip: '10.0.0.1' }), 0);
          f.add(entry('http://b.test/1', { ip: '10.0.0.1' }), 0);
          f.add(entry('http://c.test/1'), 0);
          f.add(entry('http://c.test/2'), 0);
          f.add(entry('http://d.test/1', { ip: '10.0.0.2' }), 0);
          const a = take(f, 0);
          assert.equal(a.ip, '10.0.0.1');
          const c = take(f, 0);
          assert.equal(c.entry.url, 'http://c.test/1');
          assert.equal(c.ip, undefined, 'no address known yet');
          assert.equal(take(f, 0).entry.url, 'http://d.test/1');
          assert.equal(waitUntil(f.next(0)), Infinity, 'b.test is on a busy IP');
          f.complete(c, ok(0, { ip: '10.0.0.2' }), 0); // c.test turns out to share d.test's address
          f.complete(a, ok(0), 0);
          assert.equal(take(f, 0).entry.url, 'http://b.test/1', 'a different host on the now free IP goes at once');
          // c.test may be contacted again at 1000, but d.test's lease holds its IP.
          assert.equal(waitUntil(f.next(1000)), Infinity);
        }));

      test('endFetch: politeness now, the lease stays in flight, its connection no longer counts, and complete adds no politeness', () =>
        withFrontier((f) => {
          for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
          const first = take(f, 0);
          f.endFetch(first, ok(100), 100);
          assert.deepEqual(
            f.inFlight().map((l) => l.id),
            [first.id],
          );
          assert.equal(waitUntil(f.next(100)), 1100, 'not Infinity: the ended fetch holds no connection');
          const second = take(f, 1100);
          assert.throws(
            () => f.endFetch(second, ok(0, { shouldRetry: true }), 1100),
            RangeError,
            'a fetch to be retried is completed, not ended',
          );
          assert.throws(
            () => f.endFetch(second, ok(0, { isRequeue: true }), 1100),
            RangeError,
            'a URL to be requeued is completed, not ended',
          );
          f.endFetch(second, ok(0), 1100); // next contact 2100
          f.complete(first, ok(999_999), 1200); // only makes the URL done: no new politeness
          assert.deepEqual(
            f.inFlight().map((l) => l.id),
            [second.id],
          );
          assert.equal(waitUntil(f.next(1200)), 2100);
          f.complete(second, ok(0), 1300);
          assert.equal(waitUntil(f.next(1300)), 2100);
          assert.deepEqual(drain(f, 2100), ['http://a.test/3#1']);
        }));

      test("a completion without a request keeps the host's next-contact time: its next URL may go at once", () =>
        withFrontier((f) => {
          for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
          f.complete(take(f, 0), ok(0), 0); // next contact 1000
          f.complete(take(f, 1000), ok(5, { isWithoutRequest: true }), 1005);
          assert.equal(take(f, 1005).entry.url, 'http://a.test/3');
        }));
    });

    describe('leases', () => {
      test('shouldRetry puts the URL back in its place with attempt + 1; isRequeue with attempt unchanged', () =>
        withFrontier((f) => {
          for (let i = 1; i <= 3; i++) f.add(entry(`http://a.test/${i}`), 0);
          const first = take(f, 0);
          f.complete(first, ok(0, { shouldRetry: true }), 0);
          const again = take(f, 1000);
          assert.deepEqual([again.entry.url, again.attempt], ['http://a.test/1', 2], 'ahead of a.test/2, added later');
          assert.notEqual(again.id, first.id);
          f.complete(again, ok(0, { isRequeue: true }), 1000);
          const requeued = take(f, 2000);
          assert.deepEqual([requeued.entry.url, requeued.attempt], ['http://a.test/1', 2]);
          f.complete(requeued, ok(0), 2000);
          assert.deepEqual(drain(f, 2000), ['http://a.test/2#1', 'http://a.test/3#1']);
          assert.equal(f.stats().retries >= 1, true);
        }));

      test('inFlight lists the leases out, oldest first, as a copy', () =>
        withFrontier((f) => {
          for (const h of ['a', 'b', 'c']) f.add(entry(`http://${h}.test/`), 0);
          const leases = [take(f, 0), take(f, 1), take(f, 2)];
          const listed = f.inFlight();
          assert.deepEqual(
            listed.map((l) => l.id),
            leases.map((l) => l.id),
          );
          assert.deepEqual(
            listed.map((l) => l.entry.url),
            leases.map((l) => l.entry.url),
          );
          f.complete(leases[1] as Lease, ok(0), 3);
          assert.equal(listed.length, 3, 'an earlier answer does not change');
          assert.deepEqual(
            f.inFlight().map((l) => l.id),
            [leases[0]?.id, leases[2]?.id],
          );
        }));

      test('completing a lease that is not in flight throws, and changes nothing', () =>
        withFrontier((f) => {
          f.add(entry('http://a.test/1'), 0);
          f.add(entry('http://a.test/2'), 0);
          const lease = take(f, 0);
          f.complete(lease, ok(0), 0);
          assert.throws(() => f.complete(lease, ok(0), 0));
          assert.throws(() => f.endFetch(lease, ok(0), 0));
          const forged: Lease = { ...lease, id: lease.id + 1000 };
          assert.throws(() => f.complete(forged, ok(0), 0));
          assert.equal(waitUntil(f.next(0)), 1000, 'the first completion alone set the next contact');
          assert.deepEqual(drain(f, 0), ['http://a.test/2#1']);
        }));

      test('impossible numbers throw RangeError', () =>
        withFrontier((f) => {
          for (const priority of [NaN, Infinity, -Infinity])
            assert.throws(() => f.add(entry('http://a.test/', { priority }), 0), RangeError);
          assert.equal(f.stats().queued, 0, 'a refused entry is not queued');
          f.add(entry('http://a.test/1'), 0);
          const lease = take(f, 0);
          for (const bad of [
            ok(-1),
            ok(NaN),
            ok(Infinity),
            ok(0, { retryAfterMs: -5 }),
            ok(0, { crawlDelayMs: NaN }),
            ok(0, { isWithoutRequest: true, shouldBackOff: true }),
            ok(0, { isRequeue: true, shouldRetry: true }),
          ]) {
            assert.throws(() => f.complete(lease, bad, 0), RangeError, JSON.stringify(bad));
          }
          f.complete(lease, ok(0), 0);
          assert.deepEqual(f.next(0), { kind: 'empty' });
        }));
    });

    test('determinism: the same calls with the same arguments give the same answers', async () => {
      const runs: string[][] = [];
      for (let run = 0; run < 2; run++) {
        await withFrontier(
          (f) => {
            runs.push(randomCrawl(f, 7));
          },
          { minDelayMs: 100, delayFactor: 3, maxConnectionsPerHost: 2, maxConnectionsPerIp: 2, backoffBaseMs: 400, backoffMaxMs: 3000 },
        );
      }
      assert.ok((runs[0]?.length ?? 0) > 500);
      assert.deepEqual(runs[1], runs[0]);
    });

    test('every URL added is leased until completed, exactly once each, under a random crawl', () =>
      withFrontier(
        (f) => {
          const answers = randomCrawl(f, 11);
          // A URL done may be added again (the URL-seen test is the caller's) and is then leased again.
          const done = answers.filter((a) => a.startsWith('done ')).map((a) => a.slice(5));
          const added = answers.filter((a) => a.startsWith('add ')).map((a) => a.slice(4));
          assert.ok(done.length > 100);
          assert.deepEqual([...done].sort(), [...added].sort());
          assert.deepEqual(f.next(Number.MAX_SAFE_INTEGER), { kind: 'empty' });
        },
        { minDelayMs: 100, maxConnectionsPerHost: 2, backoffBaseMs: 400, backoffMaxMs: 3000 },
      ));

    const { reopen, resumeDelayMs = 0 } = factory;
    if (reopen !== undefined) {
      describe('persistence across a restart', () => {
        test('every URL held comes back queued, in flight ones included, with priority, add order and attempt', async () => {
          let under = await factory.make();
          try {
            const f = under.frontier;
            f.add(entry('http://a.test/low', { priority: 1, depth: 2, fromUrl: 'http://a.test/' }), 0);
            f.add(entry('http://a.test/high', { priority: 5 }), 0);
            f.add(entry('http://a.test/done', { priority: 9 }), 0);
            f.add(entry('http://b.test/retried'), 0);
            f.add(entry('http://c.test/out'), 0);
            f.complete(take(f, 0), ok(0), 0); // a.test/done
            f.complete(take(f, 0), ok(0, { shouldRetry: true }), 0); // b.test/retried, attempt 2
            take(f, 0); // c.test/out, left in flight
            under = await reopen(under);
            const g = under.frontier;
            assert.deepEqual(g.inFlight(), [], 'leases in flight are void');
            assert.deepEqual({ queued: g.stats().queued, inFlight: g.stats().inFlight }, { queued: 4, inFlight: 0 });
            assert.equal(g.add(entry('http://a.test/high'), 10), false, 'a recovered URL is held');
            const start = 10;
            const first = g.next(start);
            if (resumeDelayMs > 0)
              assert.deepEqual(first, { kind: 'wait', untilMs: start + resumeDelayMs }, 'no contact before resumeDelayMs');
            const firstLease = take(g, start + resumeDelayMs);
            const { url, host, depth, priority } = firstLease.entry;
            assert.deepEqual({ url, host, depth, priority }, { url: 'http://a.test/high', host: 'a.test', depth: 0, priority: 5 });
            g.complete(firstLease, ok(0), start + resumeDelayMs);
            assert.deepEqual(drain(g, start + resumeDelayMs).sort(), [
              'http://a.test/low#1',
              'http://b.test/retried#2',
              'http://c.test/out#1',
            ]);
          } finally {
            await under.close();
          }
        });

        test('a reopened frontier answers like the one that never stopped', async () => {
          let under = await factory.make();
          const other = await factory.make();
          try {
            for (let i = 0; i < 30; i++) {
              const e = entry(`http://h${i % 4}.test/${i}`, { priority: i % 3 });
              under.frontier.add(e, 0);
              other.frontier.add(e, 0);
            }
            under = await reopen(under);
            assert.deepEqual(drain(under.frontier, 0), drain(other.frontier, 0));
          } finally {
            await Promise.all([under.close(), other.close()]);
          }
        });
      });
    }
  });
}

/**
 * A seeded crawl over 6 hosts on 3 addresses: adds (duplicates included), leases and completions
 * with retries, requeues, back-off, Retry-After, Crawl-delay, addresses learned late and ended
 * fetches, until everything is done. Returns every answer, in order, as text.
 */
function randomCrawl(f: Frontier, seed: number): string[] {
  const rng = new Rng(seed, 41, 1);
  const answers: string[] = [];
  const out: { lease: Lease; isEnded: boolean }[] = [];
  const show = (r: NextResult): string =>
    r.kind === 'url' ? `lease ${r.lease.id} ${r.lease.entry.url}#${r.lease.attempt} ${r.lease.ip ?? '-'}` : JSON.stringify(r);
  let now = 0;
  let added = 0;
  for (let step = 0; step < 5000; step++) {
    const u = rng.next();
    if (added < 300 && u < 0.3) {
      const n = Math.floor(rng.next() * (added + 1));
      const host = `h${n % 6}.test`;
      const e: FrontierEntry = {
        url: `http://${host}/${n}`,
        host,
        depth: 1,
        priority: Math.floor(rng.next() * 4),
        ...(n % 2 === 0 ? { ip: `10.0.0.${n % 3}` } : {}),
      };
      const isNew = f.add(e, now);
      if (isNew) answers.push(`add ${e.url}`);
      added++;
    } else if (u < 0.6 || (added >= 300 && out.length === 0)) {
      const r = f.next(now);
      answers.push(show(r));
      if (r.kind === 'url') out.push({ lease: r.lease, isEnded: false });
      else if (r.kind === 'wait' && Number.isFinite(r.untilMs)) now = r.untilMs;
      else if (r.kind === 'empty' && added >= 300) break;
    } else if (out.length > 0) {
      const i = Math.floor(rng.next() * out.length);
      const { lease, isEnded } = out[i] as { lease: Lease; isEnded: boolean };
      now += Math.floor(rng.next() * 50);
      const v = rng.next();
      const ip = `10.0.0.${Number(lease.entry.url.split('/').pop()) % 3}`;
      if (!isEnded && v < 0.15) {
        f.endFetch(lease, { fetchDurationMs: 20, ip }, now);
        out[i] = { lease, isEnded: true };
        answers.push(`ended ${lease.id}`);
        continue;
      }
      const report: CompletionReport = isEnded
        ? { fetchDurationMs: 0 }
        : v < 0.25
          ? { fetchDurationMs: 30, shouldRetry: lease.attempt < 3, shouldBackOff: true, ip }
          : v < 0.3
            ? { fetchDurationMs: 0, retryAfterMs: 700 }
            : v < 0.35
              ? { fetchDurationMs: 0, isRequeue: true }
              : v < 0.4
                ? { fetchDurationMs: 5, crawlDelayMs: 900 }
                : { fetchDurationMs: Math.floor(rng.next() * 200), ip };
      f.complete(lease, report, now);
      out.splice(i, 1);
      if (report.shouldRetry !== true && report.isRequeue !== true) answers.push(`done ${lease.entry.url}`);
      else answers.push(`back ${lease.entry.url}`);
    } else {
      now += 10;
    }
  }
  // Finish: complete what is out, then drain.
  for (const { lease } of out) {
    f.complete(lease, { fetchDurationMs: 0 }, now);
    answers.push(`done ${lease.entry.url}`);
  }
  for (let guard = 0; guard < 100_000; guard++) {
    const r = f.next(now);
    answers.push(show(r));
    if (r.kind === 'empty') break;
    if (r.kind === 'wait') {
      now = r.untilMs;
      continue;
    }
    f.complete(r.lease, { fetchDurationMs: 0 }, now);
    answers.push(`done ${r.lease.entry.url}`);
  }
  return answers;
}
