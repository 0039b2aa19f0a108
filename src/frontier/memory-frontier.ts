/**
 * The Mercator frontier in memory (seed 001, SPEC §2 item 5). `README.md` in this folder tells the
 * life of a URL through it; in short:
 *
 *     add ──▶ front queue ──fill──▶ back queue of its host ──▶ waiting heap (by next-contact time)
 *             (by priority, FIFO)   (at most B hosts hold one)     │ time has come
 *                                                                  ▼
 *     complete ◀── lease ◀── next: best URL among ready hosts ◀── ready hosts, grouped by IP
 *       next-contact = now + max(minDelayMs, k × fetchDurationMs, crawlDelayMs) [+ back-off]
 *
 * Everything is O(log n) per call (n = URLs or hosts held), apart from `inFlight()` and the
 * URL-by-URL routing of `fill`, which is O(log n) per URL it moves.
 *
 * Where this departs from Mercator, on purpose:
 * - Front queues are one exact priority queue (higher priority first, FIFO among equals) instead of
 *   a fixed set of FIFO queues picked by a biased coin: Cho et al. (seed 004 §4) take the URL with
 *   the highest O(u), and the discrete case (a hot queue served first) is the special case of a few
 *   distinct priority values.
 * - Among hosts that may be contacted now, the one holding the best URL goes first rather than the one
 *   that has waited longest: ordering picks among URLs whose host may be contacted (SPEC §3). With
 *   equal priorities (breadth-first) this is the oldest URL, so ready hosts still take turns.
 * - A back queue is ordered by priority too (Mercator's are FIFO), so a host gives its best URL.
 * - A URL whose host already holds a back queue, and has nothing waiting in the front queue, goes
 *   straight to that back queue: this is where Mercator's refill would put it, without the wait.
 * - Mercator lets one thread own a back queue during a fetch; here a host may have up to
 *   `maxConnectionsPerHost` leases out at once, and hosts sharing an IP address share
 *   `maxConnectionsPerIp`. A host keeps its back queue until its last lease completes.
 * - A host that gives up its back queue leaves its next-contact time behind ("dormant") until that
 *   time passes, so it cannot dodge its delay by draining and coming back; a failing host also
 *   keeps its back-off count for `backoffMaxMs` beyond that.
 */
import { HostHeap, NOT_IN_HEAP, type HeapSlot } from './host-heap.js';
import {
  asksForBackoff, checkReport, nextContactMs, politenessRules,
  type CompletionReport, type Frontier, type FrontierEntry, type FrontierStats, type Lease, type NextResult,
  type PolitenessOptions, type PolitenessRules, type Reprioritizable,
} from './frontier.js';
import { urlFingerprintInto } from '../url/fingerprint.js';

/**
 * Back queues per fetch slot: Mercator's rule of thumb of about three back queues for every
 * downloading thread, so that a free slot rarely finds every held host still in its delay (as
 * reported in Manning, Raghavan & Schütze, Introduction to Information Retrieval, §20.2.3; the seed
 * slides give Mercator's ~3k threads but not the ratio).
 */
export const BACK_QUEUES_PER_FETCH_SLOT = 3;

/** The back-queue count for a node running `fetchSlots` fetches at once. */
export function backQueueCountFor(fetchSlots: number): number {
  return BACK_QUEUES_PER_FETCH_SLOT * Math.max(1, Math.floor(fetchSlots));
}

/** Default number of back queues: 300, as for 100 fetch slots. */
export const DEFAULT_BACK_QUEUE_COUNT = backQueueCountFor(100);

/** Where {@link MemoryFrontier.addAt} puts a URL: its place among equal priorities and its attempt. */
export interface FrontierPlacement {
  /** Add order: smaller leaves first among equal priorities. A safe integer >= 0, unique per URL. */
  readonly seq: number;
  /** 1 for a URL never tried, n + 1 after n retries. */
  readonly attempt: number;
}

/** Options of {@link MemoryFrontier}; every field is optional. */
export interface MemoryFrontierOptions extends PolitenessOptions {
  /**
   * B, the number of back queues: at most this many hosts hold URLs ready to be scheduled, the rest
   * wait in the front queue. Default {@link DEFAULT_BACK_QUEUE_COUNT}; pass
   * `backQueueCountFor(fetchConcurrency)`.
   */
  readonly backQueueCount?: number;
}

/** A URL held by the frontier, queued or in flight. */
interface Held extends HeapSlot {
  readonly entry: FrontierEntry;
  priority: number;
  /** Add order: breaks priority ties (FIFO) and survives retries. */
  readonly seq: number;
  attempt: number;
  /** The host whose back queue holds it; null in the front queue or in flight. */
  home: Host | null;
}

const Place = { none: 0, waiting: 1, ready: 2 } as const;
type Place = (typeof Place)[keyof typeof Place];

/** A host holding a back queue. */
interface Host extends HeapSlot {
  readonly name: string;
  /** Activation order, to break ties between equal next-contact times. */
  readonly id: number;
  readonly queue: HostHeap<Held>;
  group: Group;
  readyAtMs: number;
  /** Consecutive completions that asked for back-off. */
  failures: number;
  inFlight: number;
  place: Place;
}

/** Hosts sharing a connection limit: an IP address, or a host alone while its IP is unknown. */
interface Group extends HeapSlot {
  readonly key: string;
  readonly ip: string | undefined;
  readonly limit: number;
  /** Its hosts that may be contacted now and have room, best URL first. */
  readonly ready: HostHeap<Host>;
  inFlight: number;
  members: number;
}

/** The politeness a host leaves behind when it gives up its back queue. */
interface Dormant extends HeapSlot {
  readonly name: string;
  readonly readyAtMs: number;
  readonly failures: number;
  readonly ip: string | undefined;
  /** When the record stops mattering: the next-contact time, or backoffMaxMs later while failing. */
  readonly forgetAtMs: number;
}

interface LeaseRecord {
  readonly lease: Lease;
  readonly held: Held;
  readonly host: Host;
  readonly group: Group;
}

const heldBefore = (a: Held, b: Held): boolean => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);
// Hosts and groups in ready heaps are never empty: they compare by their best URL.
const hostBefore = (a: Host, b: Host): boolean => heldBefore(a.queue.peek() as Held, b.queue.peek() as Held);
const groupBefore = (a: Group, b: Group): boolean => hostBefore(a.ready.peek() as Host, b.ready.peek() as Host);
const timeBefore = (a: Host, b: Host): boolean => a.readyAtMs < b.readyAtMs || (a.readyAtMs === b.readyAtMs && a.id < b.id);
const dormantBefore = (a: Dormant, b: Dormant): boolean => a.forgetAtMs < b.forgetAtMs;

const EMPTY: NextResult = { kind: 'empty' };
const WAIT_FOR_COMPLETION: NextResult = { kind: 'wait', untilMs: Number.POSITIVE_INFINITY };

/** The Mercator frontier held in memory; see the file comment. */
export class MemoryFrontier implements Frontier, Reprioritizable {
  private readonly rules: PolitenessRules;
  private readonly backQueueCount: number;

  private readonly byUrl = new Map<string, Held>();
  private readonly byFingerprint = new Map<string, string>();
  private readonly fp = new Uint32Array(2);
  private readonly front = new HostHeap<Held>(heldBefore);
  /** URLs of each host in the front queue: a host with none may take new URLs straight away. */
  private readonly frontByHost = new Map<string, number>();
  private readonly active = new Map<string, Host>();
  private readonly waiting = new HostHeap<Host>(timeBefore);
  private readonly groups = new Map<string, Group>();
  private readonly readyGroups = new HostHeap<Group>(groupBefore);
  private readonly dormant = new Map<string, Dormant>();
  private readonly dormantByTime = new HostHeap<Dormant>(dormantBefore);
  private readonly leases = new Map<number, LeaseRecord>();

  private nextSeq = 0;
  private nextHostId = 0;
  private nextLeaseId = 1;
  private queued = 0;
  private readyHosts = 0;
  private leaseCount = 0;
  private retryCount = 0;
  private backoffCount = 0;

  /** @throws RangeError on an out-of-range option. */
  constructor(options: MemoryFrontierOptions = {}) {
    this.rules = politenessRules(options);
    this.backQueueCount = options.backQueueCount ?? DEFAULT_BACK_QUEUE_COUNT;
    if (!(Number.isInteger(this.backQueueCount) && this.backQueueCount >= 1)) {
      throw new RangeError(`frontier: backQueueCount must be an integer >= 1, got ${this.backQueueCount}`);
    }
  }

  add(entry: FrontierEntry, nowMs: number): boolean {
    return this.addAt(entry, nowMs, { seq: this.nextSeq, attempt: 1 });
  }

  /**
   * `add` with the URL's place given by the caller: for a frontier that keeps URLs elsewhere (on
   * disk, see `src/frontier-store/`) and hands them to this one a window at a time, so that a URL
   * paged back in keeps its place among equal priorities and its attempt count. Later plain `add`s
   * are numbered after the highest `seq` seen, so the two can be mixed without breaking FIFO.
   * @returns false (and no change) if the URL is already held.
   * @throws RangeError on a non-finite priority, a `seq` that is not a safe integer >= 0, or an
   *   `attempt` that is not an integer >= 1.
   */
  addAt(entry: FrontierEntry, nowMs: number, placement: FrontierPlacement): boolean {
    if (!Number.isFinite(entry.priority)) throw new RangeError(`frontier: priority must be finite, got ${entry.priority} for ${entry.url}`);
    const { seq, attempt } = placement;
    if (!(Number.isSafeInteger(seq) && seq >= 0)) throw new RangeError(`frontier: seq must be a safe integer >= 0, got ${seq} for ${entry.url}`);
    if (!(Number.isInteger(attempt) && attempt >= 1)) throw new RangeError(`frontier: attempt must be an integer >= 1, got ${attempt} for ${entry.url}`);
    if (this.byUrl.has(entry.url)) return false;
    this.nextSeq = Math.max(this.nextSeq, seq + 1);
    const held: Held = { entry, priority: entry.priority, seq, attempt, home: null, heapIndex: NOT_IN_HEAP };
    this.byUrl.set(entry.url, held);
    urlFingerprintInto(entry.url, this.fp);
    this.byFingerprint.set(`${this.fp[0]}:${this.fp[1]}`, entry.url);
    this.queued++;
    this.forgetDormant(nowMs);
    const host = this.active.get(entry.host);
    if (host !== undefined && !this.frontByHost.has(entry.host)) {
      this.enqueue(host, held, nowMs);
    } else {
      this.front.push(held);
      this.frontByHost.set(entry.host, (this.frontByHost.get(entry.host) ?? 0) + 1);
      this.fill(nowMs);
    }
    return true;
  }

  /**
   * Takes back a queued URL, as if it had never been added: for a frontier that keeps only a window
   * of each host's URLs here and moves the worst one back to disk when a better one arrives. A host
   * left with nothing queued or in flight gives up its back queue, exactly as after a completion.
   * @returns false (and no change) if the URL is not queued here: never added, or in flight (a
   *   lease must be completed, never withdrawn).
   */
  withdraw(url: string, nowMs: number): boolean {
    const held = this.byUrl.get(url);
    if (held === undefined) return false;
    const host = held.home;
    if (host === null) {
      if (!this.front.remove(held)) return false;
      const name = held.entry.host;
      const left = (this.frontByHost.get(name) as number) - 1;
      if (left === 0) this.frontByHost.delete(name);
      else this.frontByHost.set(name, left);
    } else {
      host.queue.remove(held);
      held.home = null;
    }
    this.byUrl.delete(url);
    urlFingerprintInto(url, this.fp);
    this.byFingerprint.delete(`${this.fp[0]}:${this.fp[1]}`);
    this.queued--;
    this.forgetDormant(nowMs);
    if (host !== null) {
      if (host.queue.size === 0 && host.inFlight === 0) {
        this.release(host, nowMs);
        this.fill(nowMs);
      } else {
        // Its best URL may have changed, or it may have nothing left to offer while leases are out.
        this.schedule(host, nowMs);
      }
    }
    return true;
  }

  next(nowMs: number): NextResult {
    this.forgetDormant(nowMs);
    for (let host = this.waiting.peek(); host !== undefined && host.readyAtMs <= nowMs; host = this.waiting.peek()) {
      this.waiting.pop();
      this.makeReady(host);
    }
    const group = this.readyGroups.peek();
    if (group === undefined) {
      const soonest = this.waiting.peek();
      if (soonest !== undefined) return { kind: 'wait', untilMs: soonest.readyAtMs };
      if (this.leases.size > 0) return WAIT_FOR_COMPLETION;
      if (this.queued > 0) throw new Error(`frontier: ${this.queued} URLs queued but no host can be scheduled (bug)`);
      return EMPTY;
    }
    const host = group.ready.peek() as Host;
    const held = host.queue.pop() as Held;
    held.home = null;
    this.queued--;
    host.inFlight++;
    group.inFlight++;
    if (host.queue.size === 0 || host.inFlight >= this.rules.maxConnectionsPerHost) this.unschedule(host);
    else group.ready.update(host);
    this.refreshGroup(group);

    const lease: Lease = group.ip === undefined
      ? { id: this.nextLeaseId++, entry: held.entry, attempt: held.attempt, leasedAtMs: nowMs }
      : { id: this.nextLeaseId++, entry: held.entry, attempt: held.attempt, leasedAtMs: nowMs, ip: group.ip };
    this.leases.set(lease.id, { lease, held, host, group });
    this.leaseCount++;
    return { kind: 'url', lease };
  }

  complete(lease: Lease, report: CompletionReport, nowMs: number): void {
    const record = this.leases.get(lease.id);
    if (record === undefined) throw new Error(`frontier: lease ${lease.id} (${lease.entry.url}) is not in flight`);
    checkReport(report);
    this.leases.delete(lease.id);
    const { held, host, group } = record;
    host.inFlight--;
    group.inFlight--;

    if (report.isWithoutRequest !== true) {
      const backOff = asksForBackoff(report);
      host.failures = backOff ? host.failures + 1 : 0;
      if (backOff) this.backoffCount++;
      // max(): with several connections per host, an earlier completion may already have set a later time.
      host.readyAtMs = Math.max(host.readyAtMs, nextContactMs(nowMs, report, host.failures, this.rules));
    }
    if (report.ip !== undefined && report.ip !== host.group.ip) this.regroup(host, report.ip);

    if (report.shouldRetry === true) {
      held.attempt++;
      held.home = host;
      host.queue.push(held);
      this.queued++;
      this.retryCount++;
    } else {
      this.byUrl.delete(held.entry.url);
      urlFingerprintInto(held.entry.url, this.fp);
      this.byFingerprint.delete(`${this.fp[0]}:${this.fp[1]}`);
    }
    this.forgetDormant(nowMs);
    const isIdle = host.queue.size === 0 && host.inFlight === 0;
    if (isIdle) this.release(host, nowMs);
    else this.schedule(host, nowMs);
    // Only now is every host of the lease's group in its right place; the group has a free slot.
    this.refreshGroup(group);
    this.dropGroupIfUnused(group);
    if (isIdle) this.fill(nowMs);
  }

  reprioritizeFingerprint(hi: number, lo: number, priority: number): boolean {
    const url = this.byFingerprint.get(`${hi >>> 0}:${lo >>> 0}`);
    return url === undefined ? false : this.reprioritize(url, priority);
  }

  reprioritize(url: string, priority: number): boolean {
    if (!Number.isFinite(priority)) throw new RangeError(`frontier: priority must be finite, got ${priority} for ${url}`);
    const held = this.byUrl.get(url);
    if (held === undefined) return false;
    held.priority = priority;
    const host = held.home;
    if (host !== null) {
      host.queue.update(held);
      if (host.place === Place.ready) {
        host.group.ready.update(host);
        this.refreshGroup(host.group);
      }
    } else {
      this.front.update(held);
    }
    return true;
  }

  inFlight(): readonly Lease[] {
    return Array.from(this.leases.values(), (record) => record.lease);
  }

  stats(): FrontierStats {
    return {
      queued: this.queued,
      inFlight: this.leases.size,
      frontQueued: this.front.size,
      activeHosts: this.active.size,
      readyHosts: this.readyHosts,
      waitingHosts: this.waiting.size,
      dormantHosts: this.dormant.size,
      leases: this.leaseCount,
      retries: this.retryCount,
      backoffs: this.backoffCount,
    };
  }

  /** Hands front-queue URLs to hosts while back queues are free (Mercator's refill). */
  private fill(nowMs: number): void {
    while (this.active.size < this.backQueueCount) {
      const held = this.front.pop();
      if (held === undefined) return;
      const name = held.entry.host;
      const left = (this.frontByHost.get(name) as number) - 1;
      if (left === 0) this.frontByHost.delete(name);
      else this.frontByHost.set(name, left);
      this.enqueue(this.active.get(name) ?? this.activate(held.entry), held, nowMs);
    }
  }

  private enqueue(host: Host, held: Held, nowMs: number): void {
    held.home = host;
    host.queue.push(held);
    if (host.place === Place.ready) {
      host.group.ready.update(host);
      this.refreshGroup(host.group);
    } else if (host.place === Place.none) {
      this.schedule(host, nowMs);
    }
  }

  /** Gives `name` a back queue, taking back the politeness it left when it last had one. */
  private activate(entry: FrontierEntry): Host {
    const left = this.dormant.get(entry.host);
    if (left !== undefined) {
      this.dormant.delete(entry.host);
      this.dormantByTime.remove(left);
    }
    const group = this.groupFor(entry.host, left?.ip ?? entry.ip);
    group.members++;
    const host: Host = {
      name: entry.host, id: this.nextHostId++, queue: new HostHeap<Held>(heldBefore), group,
      readyAtMs: left?.readyAtMs ?? Number.NEGATIVE_INFINITY, failures: left?.failures ?? 0,
      inFlight: 0, place: Place.none, heapIndex: NOT_IN_HEAP,
    };
    this.active.set(entry.host, host);
    return host;
  }

  /** Frees the back queue of a host with nothing queued and nothing in flight. */
  private release(host: Host, nowMs: number): void {
    this.unschedule(host);
    this.active.delete(host.name);
    host.group.members--;
    this.dropGroupIfUnused(host.group);
    // A failing host's count outlives its delay by backoffMaxMs, so that coming back with new URLs
    // and failing again continues the exponential series; after that long a quiet host starts afresh.
    const forgetAtMs = host.readyAtMs + (host.failures > 0 ? this.rules.backoffMaxMs : 0);
    if (forgetAtMs > nowMs) {
      const left: Dormant = { name: host.name, readyAtMs: host.readyAtMs, failures: host.failures, ip: host.group.ip, forgetAtMs, heapIndex: NOT_IN_HEAP };
      this.dormant.set(host.name, left);
      this.dormantByTime.push(left);
    }
  }

  /** Drops remembered politeness that no longer holds anything back. */
  private forgetDormant(nowMs: number): void {
    for (let left = this.dormantByTime.peek(); left !== undefined && left.forgetAtMs <= nowMs; left = this.dormantByTime.peek()) {
      this.dormantByTime.pop();
      this.dormant.delete(left.name);
    }
  }

  /** Puts an active host where it belongs: ready, waiting for its time, or nowhere (blocked or empty). */
  private schedule(host: Host, nowMs: number): void {
    this.unschedule(host);
    if (host.queue.size === 0 || host.inFlight >= this.rules.maxConnectionsPerHost) return;
    if (host.readyAtMs <= nowMs) {
      this.makeReady(host);
    } else {
      host.place = Place.waiting;
      this.waiting.push(host);
    }
  }

  private makeReady(host: Host): void {
    host.place = Place.ready;
    host.group.ready.push(host);
    this.readyHosts++;
    this.refreshGroup(host.group);
  }

  private unschedule(host: Host): void {
    if (host.place === Place.waiting) {
      this.waiting.remove(host);
    } else if (host.place === Place.ready) {
      host.group.ready.remove(host);
      this.readyHosts--;
      this.refreshGroup(host.group);
    }
    host.place = Place.none;
  }

  /** A group competes for the next lease while it has a ready host and room under its limit. */
  private refreshGroup(group: Group): void {
    const isEligible = group.ready.size > 0 && group.inFlight < group.limit;
    if (!isEligible) this.readyGroups.remove(group);
    else if (!this.readyGroups.update(group)) this.readyGroups.push(group);
  }

  private groupFor(hostName: string, ip: string | undefined): Group {
    // Until DNS has answered, a host is limited on its own (SPEC §2 item 5: the IP is known after DNS).
    const key = ip === undefined ? `host ${hostName}` : `ip ${ip}`;
    let group = this.groups.get(key);
    if (group === undefined) {
      const limit = ip === undefined ? Number.POSITIVE_INFINITY : this.rules.maxConnectionsPerIp;
      group = { key, ip, limit, ready: new HostHeap<Host>(hostBefore), inFlight: 0, members: 0, heapIndex: NOT_IN_HEAP };
      this.groups.set(key, group);
    }
    return group;
  }

  /** Moves a host to the group of its newly learned IP; its leases in flight stay counted where they were taken. */
  private regroup(host: Host, ip: string): void {
    this.unschedule(host);
    const old = host.group;
    old.members--;
    host.group = this.groupFor(host.name, ip);
    host.group.members++;
    this.dropGroupIfUnused(old);
  }

  private dropGroupIfUnused(group: Group): void {
    if (group.members === 0 && group.inFlight === 0 && this.groups.get(group.key) === group) {
      this.readyGroups.remove(group);
      this.groups.delete(group.key);
    }
  }
}
