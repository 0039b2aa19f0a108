/**
 * MemoryFrontier (src/frontier/memory-frontier.ts) against an independent model: seeded random crawls
 * on a manual clock, audited lease by lease for politeness (SPEC §2 item 5). Split from
 * memory-frontier.test.ts, which holds the hand-drawn cases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier } from '../../../src/frontier/memory-frontier.js';
import { Rng } from '../../../src/core/prng.js';
import { politenessRules, type CompletionReport, type FrontierEntry, type Lease, type NextResult } from '../../../src/frontier/frontier.js';

// Property test: a seeded random crawl (many hosts, shared and unknown IPs, Crawl-delays, random
// durations, retries, back-offs, Retry-After, re-prioritizing) driven through a manual clock by a
// fixed number of fetch slots. An auditor written independently of the frontier replays the lease
// log event by event and fails on the first politeness violation. When every host can hold a back
// queue (`isExact`), a model of the queues also checks that each lease is the best URL any
// contactable host had, and that every `wait` names exactly the earliest time a host becomes free.

interface HostSpec {
  readonly name: string;
  readonly ip: string;
  /** Entries carry the IP (DNS cache hit); otherwise the IP, unique to the host, comes with completions. */
  readonly isIpKnownAtAdd: boolean;
  readonly crawlDelayMs: number | undefined;
}

interface ModelUrl {
  readonly url: string;
  readonly host: string;
  priority: number;
  readonly seq: number;
  state: 'queued' | 'flight' | 'done';
}

/** Replays leases and completions; asserts the rules of SPEC §2 item 5 at every lease. */
class PolitenessAuditor {
  readonly hostFlight = new Map<string, number>();
  readonly ipFlight = new Map<string, number>();
  readonly earliest = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly rules: ReturnType<typeof politenessRules>;
  private readonly hosts: ReadonlyMap<string, HostSpec>;
  private readonly isExact: boolean;

  /**
   * @param isExact every host has a back queue, so a host gives it up exactly when it has nothing
   *   queued and nothing in flight, and the auditor can tell when its failure count is forgotten.
   */
  constructor(rules: ReturnType<typeof politenessRules>, hosts: ReadonlyMap<string, HostSpec>, isExact: boolean) {
    this.rules = rules;
    this.hosts = hosts;
    this.isExact = isExact;
  }

  /** A URL for `host` arrives; `isIdle`: the host had nothing queued and nothing in flight. */
  onAdd(host: string, nowMs: number, isIdle: boolean): void {
    // The documented rule: an idle host's failures are forgotten backoffMaxMs after its next contact.
    const failures = this.failures.get(host) ?? 0;
    const forgetAtMs = (this.earliest.get(host) ?? -Infinity) + (failures > 0 ? this.rules.backoffMaxMs : 0);
    if (this.isExact && isIdle && nowMs >= forgetAtMs) this.failures.set(host, 0);
  }

  onLease(lease: Lease, nowMs: number): void {
    const host = lease.entry.host;
    const spec = this.hosts.get(host) as HostSpec;
    const where = `${lease.entry.url} leased at ${nowMs}`;
    assert.ok((this.hostFlight.get(host) ?? 0) < this.rules.maxConnectionsPerHost, `${where}: host already at its connection limit`);
    assert.ok(nowMs >= (this.earliest.get(host) ?? -Infinity), `${where}: host not contactable before ${this.earliest.get(host)}`);
    if (spec.isIpKnownAtAdd) assert.equal(lease.ip, spec.ip, `${where}: the known IP must be applied`);
    else assert.ok(lease.ip === undefined || lease.ip === spec.ip, `${where}: wrong IP ${lease.ip}`);
    // Without the exact model the auditor cannot see when a host gave up its back queue; a lease
    // backoffMaxMs past the next-contact time may follow a forgotten count, so only 0 is certain.
    if (!this.isExact && nowMs - (this.earliest.get(host) ?? -Infinity) >= this.rules.backoffMaxMs) this.failures.set(host, 0);
    if (lease.ip !== undefined) {
      assert.ok(
        (this.ipFlight.get(lease.ip) ?? 0) < this.rules.maxConnectionsPerIp,
        `${where}: IP ${lease.ip} already at its connection limit`,
      );
      this.ipFlight.set(lease.ip, (this.ipFlight.get(lease.ip) ?? 0) + 1);
    }
    this.hostFlight.set(host, (this.hostFlight.get(host) ?? 0) + 1);
  }

  onComplete(lease: Lease, report: CompletionReport, nowMs: number): void {
    const host = lease.entry.host;
    this.hostFlight.set(host, (this.hostFlight.get(host) as number) - 1);
    if (lease.ip !== undefined) this.ipFlight.set(lease.ip, (this.ipFlight.get(lease.ip) as number) - 1);
    const isBackoff = report.shouldBackOff === true || report.retryAfterMs !== undefined;
    const failures = isBackoff ? (this.failures.get(host) ?? 0) + 1 : 0;
    this.failures.set(host, failures);
    const { minDelayMs, delayFactor, maxDelayMs, backoffBaseMs, backoffMaxMs } = this.rules;
    let next = nowMs + Math.max(minDelayMs, Math.min(delayFactor * report.fetchDurationMs, maxDelayMs), report.crawlDelayMs ?? 0);
    if (isBackoff) next = Math.max(next, nowMs + (report.retryAfterMs ?? Math.min(backoffMaxMs, backoffBaseMs * 2 ** (failures - 1))));
    this.earliest.set(host, Math.max(this.earliest.get(host) ?? -Infinity, next));
  }
}

interface Workload {
  readonly seed: number;
  readonly hosts: number;
  readonly urls: number;
  readonly slots: number;
  /** Priorities are drawn from 0 .. priorities − 1 (1: breadth-first). */
  readonly priorities: number;
  readonly isEveryIpKnown: boolean;
  /** Every host fits in a back queue: the model can predict each choice exactly. */
  readonly isExact: boolean;
  /**
   * Half the fetches that are not retried are ended first (`endFetch`: politeness) and completed
   * after a random processing time, as a node does while it writes a page's records.
   */
  readonly endsFetches?: boolean;
  readonly options: ConstructorParameters<typeof MemoryFrontier>[0];
}

const urlBefore = (a: ModelUrl, b: ModelUrl): boolean => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

function runWorkload(w: Workload): { log: string[]; fetched: number; leases: number } {
  const rng = new Rng(w.seed, 7, 0);
  const rules = politenessRules(w.options);
  const ipPool = Math.max(1, Math.floor(w.hosts / 6)); // about three known hosts per shared IP
  const hosts: HostSpec[] = Array.from({ length: w.hosts }, (_, i) => {
    const isIpKnownAtAdd = w.isEveryIpKnown || rng.chance(0.5);
    return {
      name: `h${i}.test`,
      isIpKnownAtAdd,
      ip: isIpKnownAtAdd ? `10.0.0.${rng.int(ipPool)}` : `10.1.0.${i}`,
      crawlDelayMs: rng.chance(0.25) ? rng.range(500, 4000) : undefined,
    };
  });
  const hostByName = new Map(hosts.map((h) => [h.name, h]));
  const frontier = new MemoryFrontier(w.options);
  const auditor = new PolitenessAuditor(rules, hostByName, w.isExact);
  const model = new Map<string, ModelUrl>();
  const queuedByHost = new Map<string, Set<ModelUrl>>(hosts.map((h) => [h.name, new Set()]));
  const log: string[] = [];
  /** URLs per host whose fetch was ended and that are not completed yet. */
  const processing = new Map<string, number>();
  let made = 0;
  let fetched = 0;
  let leases = 0;

  const addUrl = (nowMs: number): void => {
    const host = rng.pick(hosts);
    const url = `http://${host.name}/p${made}`;
    const priority = rng.int(w.priorities);
    const e: FrontierEntry = { url, host: host.name, depth: 0, priority, ip: host.isIpKnownAtAdd ? host.ip : undefined };
    // Idle: the host gives up its back queue (a URL ended but not completed keeps it).
    const isIdle =
      queuedByHost.get(host.name)?.size === 0 && (auditor.hostFlight.get(host.name) ?? 0) === 0 && (processing.get(host.name) ?? 0) === 0;
    auditor.onAdd(host.name, nowMs, isIdle);
    assert.equal(frontier.add(e, nowMs), true);
    const m: ModelUrl = { url, host: host.name, priority, seq: made++, state: 'queued' };
    model.set(url, m);
    queuedByHost.get(host.name)?.add(m);
  };

  /** What the frontier must answer at `nowMs`, from the model (only meaningful when `isExact`). */
  const check = (result: NextResult, nowMs: number): void => {
    let best: ModelUrl | undefined;
    let soonest = Infinity;
    for (const host of hosts) {
      const queued = queuedByHost.get(host.name) as Set<ModelUrl>;
      if (queued.size === 0 || (auditor.hostFlight.get(host.name) ?? 0) >= rules.maxConnectionsPerHost) continue;
      const earliest = auditor.earliest.get(host.name) ?? -Infinity;
      if (earliest > nowMs) {
        soonest = Math.min(soonest, earliest);
        continue;
      }
      if (host.isIpKnownAtAdd && (auditor.ipFlight.get(host.ip) ?? 0) >= rules.maxConnectionsPerIp) continue;
      for (const m of queued) if (best === undefined || urlBefore(m, best)) best = m;
    }
    if (best !== undefined) {
      assert.equal(result.kind === 'url' ? result.lease.entry.url : result.kind, best.url, `at ${nowMs} the best contactable URL must go`);
    } else if (soonest < Infinity || [...model.values()].some((m) => m.state !== 'done')) {
      assert.deepEqual(result, { kind: 'wait', untilMs: soonest }, `at ${nowMs}`);
    } else {
      assert.deepEqual(result, { kind: 'empty' });
    }
  };

  for (let i = 0; i < Math.min(w.urls, 60); i++) addUrl(0);
  // A slot in its processing time (after endFetch) carries the report it will complete with.
  const slots: ({ lease: Lease; endMs: number; report?: CompletionReport } | undefined)[] = Array.from(
    { length: w.slots },
    () => undefined,
  );
  let now = 0;
  for (let step = 0; ; step++) {
    assert.ok(step < 200_000, 'the crawl must finish');
    let last: NextResult | undefined;
    for (let s = 0; s < slots.length; s++) {
      if (slots[s] !== undefined) continue;
      last = frontier.next(now);
      if (w.isExact) check(last, now);
      if (last.kind !== 'url') break;
      const lease = last.lease;
      auditor.onLease(lease, now);
      const m = model.get(lease.entry.url) as ModelUrl;
      assert.equal(m.state, 'queued');
      m.state = 'flight';
      queuedByHost.get(m.host)?.delete(m);
      leases++;
      slots[s] = { lease, endMs: now + (rng.chance(0.1) ? 0 : rng.range(1, 1500)) };
      log.push(`${now} lease ${lease.entry.url}#${lease.attempt}`);
    }
    const busy = slots.filter((s) => s !== undefined);
    if (last?.kind === 'empty') {
      assert.equal(busy.length, 0, 'empty while leases are in flight');
      break;
    }
    let t = Math.min(...busy.map((s) => s.endMs));
    if (last?.kind === 'wait') {
      assert.ok(last.untilMs > now, `wait must point to the future, got ${last.untilMs} at ${now}`);
      t = Math.min(t, last.untilMs);
    }
    assert.ok(Number.isFinite(t), `stuck at ${now}: nothing in flight and nothing to wait for`);
    now = t;
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s];
      if (slot === undefined || slot.endMs !== now) continue;
      slots[s] = undefined;
      const { lease } = slot;
      const host = hostByName.get(lease.entry.host) as HostSpec;
      const report: CompletionReport = slot.report ?? {
        fetchDurationMs: now - lease.leasedAtMs,
        shouldRetry: lease.attempt < 4 && rng.chance(0.1),
        shouldBackOff: rng.chance(0.05),
        retryAfterMs: rng.chance(0.03) ? rng.range(0, 20_000) : undefined,
        crawlDelayMs: host.crawlDelayMs,
        ip: host.ip,
      };
      if (slot.report === undefined && w.endsFetches === true && report.shouldRetry !== true && rng.chance(0.5)) {
        // The host's politeness now; the URL stays held, in flight, until it is completed.
        frontier.endFetch(lease, report, now);
        auditor.onComplete(lease, report, now);
        assert.equal(
          frontier.add({ url: lease.entry.url, host: lease.entry.host, depth: 0, priority: 0 }, now),
          false,
          'an ended URL is still held',
        );
        processing.set(lease.entry.host, (processing.get(lease.entry.host) ?? 0) + 1);
        slots[s] = { lease, endMs: now + rng.range(1, 3000), report };
        log.push(`${now} ended ${lease.entry.url}#${lease.attempt}`);
        continue;
      }
      frontier.complete(lease, report, now);
      if (slot.report === undefined) auditor.onComplete(lease, report, now);
      else processing.set(lease.entry.host, (processing.get(lease.entry.host) as number) - 1);
      log.push(`${now} done ${lease.entry.url}#${lease.attempt}${report.shouldRetry === true ? ' retry' : ''}`);
      const m = model.get(lease.entry.url) as ModelUrl;
      if (report.shouldRetry === true) {
        m.state = 'queued';
        queuedByHost.get(m.host)?.add(m);
      } else {
        m.state = 'done';
        fetched++;
        // The fetched page links to a few new URLs, anywhere.
        for (let k = rng.int(4); k > 0 && made < w.urls; k--) addUrl(now);
      }
      if (rng.chance(0.05)) {
        const held = [...model.values()].filter((x) => x.state !== 'done');
        if (held.length > 0) {
          const target = rng.pick(held);
          target.priority = rng.int(w.priorities + 1);
          assert.equal(frontier.reprioritize(target.url, target.priority), true);
        }
      }
    }
    const stats = frontier.stats();
    assert.ok(stats.activeHosts <= (w.options?.backQueueCount ?? Infinity), `${stats.activeHosts} hosts hold back queues`);
    const held = [...slots].filter((s) => s !== undefined).length;
    assert.equal(stats.inFlight, held);
  }
  assert.equal(fetched, made, 'every URL is fetched exactly once');
  assert.deepEqual([frontier.stats().queued, frontier.stats().inFlight, frontier.stats().activeHosts], [0, 0, 0]);
  return { log, fetched, leases };
}

describe('MemoryFrontier: seeded random crawls never break politeness', () => {
  const base = { hosts: 40, urls: 1500, slots: 6, priorities: 1, isEveryIpKnown: false, isExact: true } as const;

  test('default rules, breadth-first, 40 hosts (exact model)', () => {
    const run = runWorkload({ ...base, seed: 1, options: { backQueueCount: 1000 } });
    assert.equal(run.fetched, 1500);
    assert.ok(run.leases > run.fetched, 'some URLs were retried');
  });

  test('2 per host, 3 per IP, shorter gaps (k × duration capped at 2 s), 4 priorities, 10 slots (exact model)', () => {
    runWorkload({
      ...base,
      seed: 2,
      slots: 10,
      priorities: 4,
      options: {
        backQueueCount: 1000,
        maxConnectionsPerHost: 2,
        maxConnectionsPerIp: 3,
        minDelayMs: 200,
        delayFactor: 2,
        maxDelayMs: 2000,
      },
    });
  });

  test('3 per host but 1 per IP: shared IPs are the binding limit (exact model)', () => {
    runWorkload({ ...base, seed: 3, priorities: 3, isEveryIpKnown: true, options: { backQueueCount: 1000, maxConnectionsPerHost: 3 } });
  });

  test('4 back queues for 40 hosts: politeness holds while hosts rotate through the back queues', () => {
    runWorkload({ ...base, seed: 4, priorities: 2, isExact: false, options: { backQueueCount: 4 } });
  });

  test('fetches ended before they are completed: the connection is free at the end of the fetch (exact model)', () => {
    const run = runWorkload({ ...base, seed: 6, isEveryIpKnown: true, endsFetches: true, options: { backQueueCount: 1000 } });
    assert.equal(run.fetched, 1500);
    assert.ok(
      run.log.some((l) => l.includes(' ended ')),
      'some fetches were ended first',
    );
  });

  test('ended fetches with 4 back queues for 40 hosts', () => {
    runWorkload({ ...base, seed: 7, priorities: 2, isExact: false, endsFetches: true, options: { backQueueCount: 4 } });
  });

  test('the same seed gives the same crawl', () => {
    const workload = { ...base, seed: 5, urls: 400, isExact: false, options: { backQueueCount: 8 } };
    assert.deepEqual(runWorkload(workload).log, runWorkload(workload).log);
  });
});
