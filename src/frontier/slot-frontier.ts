/**
 * The Mercator frontier's scheduling (seed 001, SPEC §2 item 5) over URL *slots*: every held URL is
 * a row of typed arrays (`slot-table.ts`) named by its 64-bit fingerprint, not an object. This is
 * the one implementation of the frontier's order and politeness; `MemoryFrontier` keeps its entries
 * in memory around it, `PersistentFrontier` (`src/frontier-store/`) keeps them on disk, and the
 * simulator (`src/sim/`) drives it with page ids, so a simulated crawl is scheduled by the same code
 * as a real one. `README.md` in this folder tells the life of a URL through it; in short:
 *
 *     add ──▶ front queue ──fill──▶ back queue of its host ──▶ waiting heap (by next-contact time)
 *             (by priority, FIFO)   (at most B hosts hold one)     │ time has come
 *                                                                  ▼
 *     complete ◀── lease ◀── next: best URL among ready hosts ◀── ready hosts, grouped by IP
 *       next-contact = now + max(minDelayMs, min(delayFactor × fetchDurationMs, maxDelayMs), crawlDelayMs) [+ back-off]
 *
 * Everything is O(log n) per call (n = URLs or hosts held), apart from the URL-by-URL routing of
 * `fill`, which is O(log n) per URL it moves.
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
 * - The delayFactor × fetch-duration term of the gap stops at `maxDelayMs` (Heritrix3's cap, 30 s by default):
 *   Mercator's has no ceiling, and delayFactor times a fetch cut at the fetcher's total limit idles a host
 *   for minutes.
 * - A host that gives up its back queue leaves its next-contact time behind ("dormant") until that
 *   time passes, so it cannot dodge its delay by draining and coming back; a failing host also
 *   keeps its back-off count for `backoffMaxMs` beyond that.
 *
 * Contract: that of `Frontier` (`frontier.ts`), in slots: `add` answers the new slot (or −1 for a
 * fingerprint already held), `next` a leased slot or {@link NEXT_WAIT} / {@link NEXT_EMPTY},
 * `complete` whether the slot stays (a retry) or was freed. Pure: no I/O, no clock.
 */
import { ActivityWindow, type ActivityCapOptions } from './activity-cap.js';
import { HostHeap, NOT_IN_HEAP, type HeapSlot } from './host-heap.js';
import { SlotHeap, SlotIndex, SlotTable } from './slot-table.js';
import {
  asksForBackoff,
  checkReport,
  DEFAULT_BACK_QUEUE_COUNT,
  nextContactMs,
  politenessRules,
  type CompletionReport,
  type FrontierStats,
  type PolitenessOptions,
  type PolitenessRules,
} from './frontier.js';

export { BACK_QUEUES_PER_FETCH_SLOT, backQueueCountFor, DEFAULT_BACK_QUEUE_COUNT } from './frontier.js';

/** {@link SlotFrontier.next}: nothing may go before {@link SlotFrontier.waitUntilMs}. */
export const NEXT_WAIT = -1;
/** {@link SlotFrontier.next}: nothing queued and nothing in flight. */
export const NEXT_EMPTY = -2;

/** Options of the frontiers; every field is optional. */
export interface SlotFrontierOptions extends PolitenessOptions {
  /**
   * B, the number of back queues: at most this many hosts hold URLs ready to be scheduled, the rest
   * wait in the front queue. Default {@link DEFAULT_BACK_QUEUE_COUNT}; pass
   * `backQueueCountFor(fetchConcurrency)`.
   */
  readonly backQueueCount?: number;
  /** URLs the fingerprint index has room for before it first grows. Default 1,024. */
  readonly initialCapacity?: number;
  /**
   * X4's per-host activity cap (`activity-cap.ts`): a host that took more than `maxShare` of the
   * leases of the last `windowMs` is passed over while a host under its share may be fetched.
   * Default null: off.
   */
  readonly activityCap?: ActivityCapOptions | null;
}

const Place = { none: 0, waiting: 1, ready: 2 } as const;
type Place = (typeof Place)[keyof typeof Place];

/** A host holding a back queue. */
interface Host extends HeapSlot {
  readonly name: string;
  /** Its interned index (the slots' `host` column). */
  readonly index: number;
  /** Activation order, to break ties between equal next-contact times. */
  readonly id: number;
  readonly queue: SlotHeap;
  group: Group;
  readyAtMs: number;
  /** Consecutive completions that asked for back-off. */
  failures: number;
  inFlight: number;
  /** Its slots whose fetch ended and that wait for `complete`: they keep the host's back queue, not a connection. */
  ended: number;
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

/** A slot out on lease: where its connection is counted. */
interface Leased {
  readonly host: Host;
  readonly group: Group;
}

const timeBefore = (a: Host, b: Host): boolean => a.readyAtMs < b.readyAtMs || (a.readyAtMs === b.readyAtMs && a.id < b.id);
const dormantBefore = (a: Dormant, b: Dormant): boolean => a.forgetAtMs < b.forgetAtMs;

/** The Mercator frontier over slots; see the file comment. */
export class SlotFrontier {
  /** The held URLs' columns (read them; only this class writes them, apart from `ref`). */
  readonly slots: SlotTable;
  /** The earliest time something may go, after {@link next} answered {@link NEXT_WAIT}; Infinity: not before a lease completes. */
  waitUntilMs = Number.POSITIVE_INFINITY;

  private readonly rules: PolitenessRules;
  private readonly backQueueCount: number;
  private readonly bySlotKey: SlotIndex;
  private readonly front: SlotHeap;
  // Interned host names: the slots' `host` column indexes these.
  private readonly hostIndex = new Map<string, number>();
  private readonly hostNames: string[] = [];
  private readonly hostFront: number[] = [];
  /** Slots held per host: queued, in flight or ended. */
  private readonly hostHeld: number[] = [];
  private readonly hostIp: (string | undefined)[] = [];
  private readonly hostActive: (Host | null)[] = [];
  private readonly freeHostIndexes: number[] = [];
  private activeCount = 0;
  private readonly waiting = new HostHeap<Host>(timeBefore);
  private readonly groups = new Map<string, Group>();
  private readonly readyGroups: HostHeap<Group>;
  private readonly hostBefore: (a: Host, b: Host) => boolean;
  private readonly dormant = new Map<string, Dormant>();
  private readonly dormantByTime = new HostHeap<Dormant>(dormantBefore);
  private readonly leases = new Map<number, Leased>();
  /** Leases of the recent past by host, when the activity cap is on. */
  private readonly activity: ActivityWindow | null;
  /** Hosts passed over by {@link pick}, put back once it has chosen (kept to spare an allocation per lease). */
  private readonly passedOver: Host[] = [];
  /** Slots whose fetch has ended ({@link endFetch}) and that wait for {@link complete}, with their host: still held, no longer counted against the host and its IP. */
  private readonly ended = new Map<number, Host>();

  private nextSeq = 0;
  private nextHostId = 0;
  private queued = 0;
  private readyHosts = 0;
  private leaseCount = 0;
  private retryCount = 0;
  private backoffCount = 0;
  private heldBackCount = 0;

  /** @throws RangeError on an out-of-range option. */
  constructor(options: SlotFrontierOptions = {}) {
    this.rules = politenessRules(options);
    this.backQueueCount = options.backQueueCount ?? DEFAULT_BACK_QUEUE_COUNT;
    if (!(Number.isInteger(this.backQueueCount) && this.backQueueCount >= 1)) {
      throw new RangeError(`frontier: backQueueCount must be an integer >= 1, got ${this.backQueueCount}`);
    }
    this.activity = options.activityCap == null ? null : new ActivityWindow(options.activityCap);
    this.slots = new SlotTable();
    this.bySlotKey = new SlotIndex(this.slots, options.initialCapacity);
    this.front = new SlotHeap(this.slots, 1024);
    // Hosts and groups in ready heaps are never empty: they compare by their best URL.
    const hostBefore = (a: Host, b: Host): boolean => a.queue.before(a.queue.peek(), b.queue.peek());
    this.hostBefore = hostBefore;
    this.readyGroups = new HostHeap<Group>((a, b) => hostBefore(a.ready.peek() as Host, b.ready.peek() as Host));
  }

  /** The slot holding fingerprint (hi, lo), or −1. */
  slotOf(hi: number, lo: number): number {
    return this.bySlotKey.find(hi, lo);
  }

  /** The host name of a held slot. */
  hostNameOf(slot: number): string {
    return this.hostNames[this.slots.hostOf(slot)] as string;
  }

  /** The IP address whose connection limit a leased slot counts against, if known. */
  leaseIpOf(slot: number): string | undefined {
    return this.leases.get(slot)?.group.ip;
  }

  /** Add order the next plain `add` will get. */
  get nextAddSeq(): number {
    return this.nextSeq;
  }

  /** Numbers later plain adds after `seq`: an add kept outside the slots (on disk) took it. */
  noteSeq(seq: number): void {
    this.nextSeq = Math.max(this.nextSeq, seq + 1);
  }

  /** URLs of host `hostName` held in slots: queued, in flight or ended. */
  heldOfHost(hostName: string): number {
    const h = this.hostIndex.get(hostName);
    return h === undefined ? 0 : (this.hostHeld[h] as number);
  }

  /**
   * Queues the URL with fingerprint (hi, lo) on host `hostName` (the politeness key). `ip`, when
   * known, puts the host under its address's connection limit from the start. `seq` and `attempt`
   * let a URL brought back from elsewhere (disk, a crash) keep its place among equal priorities and
   * its attempt count; later plain adds are numbered after the highest `seq` seen.
   * @returns the new slot, or −1 (and no change) if the fingerprint is already held.
   * @throws RangeError on a non-finite priority, a `seq` that is not a safe integer >= 0, or an
   *   `attempt` that is not an integer >= 1.
   */
  add(
    hi: number,
    lo: number,
    hostName: string,
    ip: string | undefined,
    priority: number,
    nowMs: number,
    seq = this.nextSeq,
    attempt = 1,
  ): number {
    if (!Number.isFinite(priority)) throw new RangeError(`frontier: priority must be finite, got ${priority} (host ${hostName})`);
    if (!(Number.isSafeInteger(seq) && seq >= 0)) throw new RangeError(`frontier: seq must be a safe integer >= 0, got ${seq}`);
    if (!(Number.isInteger(attempt) && attempt >= 1)) throw new RangeError(`frontier: attempt must be an integer >= 1, got ${attempt}`);
    if (this.bySlotKey.find(hi, lo) >= 0) return -1;
    this.nextSeq = Math.max(this.nextSeq, seq + 1);
    const h = this.internHost(hostName, ip);
    this.hostHeld[h] = (this.hostHeld[h] as number) + 1;
    const slot = this.slots.allocate(hi >>> 0, lo >>> 0, priority, seq, attempt, h);
    this.bySlotKey.insert(slot);
    this.queued++;
    this.forgetDormant(nowMs);
    const host = this.hostActive[h] as Host | null;
    if (host !== null && this.hostFront[h] === 0) {
      this.enqueue(host, slot, nowMs);
    } else {
      this.front.push(slot);
      this.hostFront[h] = (this.hostFront[h] as number) + 1;
      this.fill(nowMs);
    }
    return slot;
  }

  /**
   * Leases the best URL that may be fetched at `nowMs`.
   * @returns its slot; or {@link NEXT_WAIT} (see {@link waitUntilMs}); or {@link NEXT_EMPTY}.
   */
  next(nowMs: number): number {
    this.forgetDormant(nowMs);
    for (let host = this.waiting.peek(); host !== undefined && host.readyAtMs <= nowMs; host = this.waiting.peek()) {
      this.waiting.pop();
      this.makeReady(host);
    }
    const host = this.pick(nowMs);
    if (host === undefined) {
      const soonest = this.waiting.peek();
      if (soonest !== undefined) {
        this.waitUntilMs = soonest.readyAtMs;
        return NEXT_WAIT;
      }
      if (this.leases.size > 0 || this.ended.size > 0) {
        this.waitUntilMs = Number.POSITIVE_INFINITY;
        return NEXT_WAIT;
      }
      if (this.queued > 0) throw new Error(`frontier: ${this.queued} URLs queued but no host can be scheduled (bug)`);
      return NEXT_EMPTY;
    }
    const group = host.group;
    const slot = host.queue.pop();
    this.queued--;
    host.inFlight++;
    group.inFlight++;
    if (host.queue.size === 0 || host.inFlight >= this.rules.maxConnectionsPerHost) this.unschedule(host);
    else group.ready.update(host);
    this.refreshGroup(group);
    this.leases.set(slot, { host, group });
    this.leaseCount++;
    this.activity?.record(host.name, nowMs);
    return slot;
  }

  /**
   * The host whose best URL goes next: the one holding the best URL among the hosts that may be
   * contacted; with the activity cap on, the best among those under their share, or when every one
   * of them is over its share, the best of all (the cap never idles a slot). Undefined: none may go.
   * Costs O(k log n) for the k hosts passed over, and k ≤ 1 / maxShare (shares add up to 1).
   */
  private pick(nowMs: number): Host | undefined {
    const best = this.readyGroups.peek()?.ready.peek();
    const activity = this.activity;
    if (best === undefined || activity === null) return best;
    activity.expire(nowMs);
    if (!activity.isOverShare(best.name)) return best;
    const passed = this.passedOver;
    let chosen: Host | undefined;
    for (let host: Host | undefined = best; host !== undefined; host = this.readyGroups.peek()?.ready.peek()) {
      if (!activity.isOverShare(host.name)) {
        chosen = host;
        break;
      }
      // Out of its group's ready heap for the search, so the heaps show the next best.
      this.unschedule(host);
      passed.push(host);
    }
    for (const host of passed) this.makeReady(host);
    passed.length = 0;
    if (chosen === undefined) return best;
    this.heldBackCount++;
    return chosen;
  }

  /**
   * Returns a leased slot with how its fetch went; sets the host's next-contact time. For a slot
   * whose fetch was ended by {@link endFetch}, only frees the slot (the report is not read again).
   * @returns true if the URL stays queued (a retry: same slot, `attempt` one higher; a requeue: same
   *   slot and attempt), false if its slot was freed (read what you need from the slot before calling).
   * @throws Error if `slot` is not out on lease; RangeError on impossible numbers in the report.
   */
  complete(slot: number, report: CompletionReport, nowMs: number): boolean {
    const endedHost = this.ended.get(slot);
    if (endedHost !== undefined) {
      this.ended.delete(slot);
      endedHost.ended--;
      this.forget(slot);
      this.forgetDormant(nowMs);
      if (this.isIdle(endedHost)) {
        this.release(endedHost, nowMs);
        this.fill(nowMs);
      }
      return false;
    }
    const record = this.leases.get(slot);
    if (record === undefined) throw new Error(`frontier: slot ${slot} is not in flight`);
    checkReport(report);
    this.leases.delete(slot);
    const disposition = report.isRequeue === true ? 'requeue' : report.shouldRetry === true ? 'retry' : 'free';
    this.settle(slot, record, report, nowMs, disposition);
    return disposition !== 'free';
  }

  /**
   * Ends the fetch of a leased slot that will not be retried: the politeness part of
   * {@link complete} (the host's next-contact time, its back-off, the connection no longer counted
   * against the host and its IP), while the slot stays held, in flight, until `complete(slot)`, and
   * its host keeps its back queue until then (as for a lease out). A node ends the fetch when the
   * response is in, and completes once the page's records are written.
   * @throws Error if `slot` is not out on lease or its fetch already ended; RangeError on impossible
   *   numbers in the report, or a report that asks for a retry (complete it instead).
   */
  endFetch(slot: number, report: CompletionReport, nowMs: number): void {
    const record = this.leases.get(slot);
    if (record === undefined) throw new Error(`frontier: slot ${slot} is not in flight, or its fetch already ended`);
    checkReport(report);
    if (report.shouldRetry === true || report.isRequeue === true)
      throw new RangeError('frontier: a fetch to be retried or requeued is completed, not ended');
    this.leases.delete(slot);
    this.ended.set(slot, record.host);
    record.host.ended++;
    this.settle(slot, record, report, nowMs, 'keep');
  }

  /** Whether a host may give up its back queue: nothing queued, nothing in flight, no ended fetch waiting for `complete`. */
  private isIdle(host: Host): boolean {
    return host.queue.size === 0 && host.inFlight === 0 && host.ended === 0;
  }

  /** The politeness of a fetch that ended, then what becomes of its slot: queued again, freed, or kept for a later `complete`. */
  private settle(
    slot: number,
    record: Leased,
    report: CompletionReport,
    nowMs: number,
    disposition: 'retry' | 'requeue' | 'free' | 'keep',
  ): void {
    const { host, group } = record;
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

    const t = this.slots;
    if (disposition === 'retry' || disposition === 'requeue') {
      if (disposition === 'retry') {
        t.setAttempt(slot, t.attemptOf(slot) + 1);
        this.retryCount++;
      }
      host.queue.push(slot);
      this.queued++;
    } else if (disposition === 'free') {
      this.forget(slot);
    }
    this.forgetDormant(nowMs);
    const isIdle = this.isIdle(host);
    if (isIdle) this.release(host, nowMs);
    else this.schedule(host, nowMs);
    // Only now is every host of the lease's group in its right place; the group has a free slot.
    this.refreshGroup(group);
    this.dropGroupIfUnused(group);
    if (isIdle) this.fill(nowMs);
  }

  /**
   * Gives the held URL (hi, lo) a new priority, keeping its add order. A URL in flight keeps it for a retry.
   * @returns false if no such URL is held.
   * @throws RangeError on a non-finite priority.
   */
  reprioritize(hi: number, lo: number, priority: number): boolean {
    if (!Number.isFinite(priority)) throw new RangeError(`frontier: priority must be finite, got ${priority}`);
    const slot = this.bySlotKey.find(hi, lo);
    if (slot < 0) return false;
    this.slots.setPriority(slot, priority);
    if (this.front.update(slot)) return true;
    const host = this.hostActive[this.slots.hostOf(slot)] as Host | null;
    if (host !== null && host.queue.update(slot) && host.place === Place.ready) {
      host.group.ready.update(host);
      this.refreshGroup(host.group);
    }
    return true;
  }

  /**
   * {@link reprioritize} for `count` URLs at once: URL i is (his?.[i] ?? 0, los[i]) and gets
   * `priorities[i]`. When the batch is large next to what is queued (an ordering policy's
   * recomputation re-ranks most of the frontier), priorities are set first and every heap is
   * rebuilt once, O(n), instead of one O(log n) move per URL; the order that results is the same.
   * @returns how many of the URLs were held.
   * @throws RangeError on a non-finite priority (nothing changed).
   */
  reprioritizeMany(count: number, his: ArrayLike<number> | null, los: ArrayLike<number>, priorities: ArrayLike<number>): number {
    for (let i = 0; i < count; i++) {
      if (!Number.isFinite(priorities[i])) throw new RangeError(`frontier: priority must be finite, got ${priorities[i]}`);
    }
    if (count < 64 || count * 16 < this.queued) {
      let held = 0;
      for (let i = 0; i < count; i++)
        if (this.reprioritize(his === null ? 0 : (his[i] as number), los[i] as number, priorities[i] as number)) held++;
      return held;
    }
    let held = 0;
    const t = this.slots;
    for (let i = 0; i < count; i++) {
      const slot = this.bySlotKey.find(his === null ? 0 : (his[i] as number), los[i] as number);
      if (slot < 0) continue;
      t.setPriority(slot, priorities[i] as number);
      held++;
    }
    this.front.heapify();
    for (const host of this.hostActive) host?.queue.heapify();
    for (const group of this.groups.values()) group.ready.heapify();
    this.readyGroups.heapify();
    return held;
  }

  /** Calls `f` for every queued slot (not in flight), in no particular order. */
  forEachQueued(f: (slot: number) => void): void {
    this.front.forEach(f);
    for (const host of this.hostActive) host?.queue.forEach(f);
  }

  /** Current counters. */
  stats(): FrontierStats {
    return {
      queued: this.queued,
      inFlight: this.leases.size + this.ended.size,
      frontQueued: this.front.size,
      activeHosts: this.activeCount,
      readyHosts: this.readyHosts,
      waitingHosts: this.waiting.size,
      dormantHosts: this.dormant.size,
      leases: this.leaseCount,
      retries: this.retryCount,
      backoffs: this.backoffCount,
      ...(this.activity === null ? {} : { heldBack: this.heldBackCount }),
    };
  }

  /** Frees a slot that is done: its index cell, its host's count, its row. */
  private forget(slot: number): void {
    this.bySlotKey.remove(slot);
    const h = this.slots.hostOf(slot);
    this.hostHeld[h] = (this.hostHeld[h] as number) - 1;
    this.slots.release(slot);
  }

  private internHost(name: string, ip: string | undefined): number {
    let h = this.hostIndex.get(name);
    if (h === undefined) {
      h = this.freeHostIndexes.pop() ?? this.hostNames.length;
      this.hostIndex.set(name, h);
      this.hostNames[h] = name;
      this.hostFront[h] = 0;
      this.hostHeld[h] = 0;
      this.hostActive[h] = null;
      this.hostIp[h] = ip;
    } else if (ip !== undefined) {
      this.hostIp[h] = ip;
    }
    return h;
  }

  /** Forgets an interned host that holds nothing any more. */
  private dropHostIfUnused(h: number): void {
    if (this.hostFront[h] !== 0 || this.hostActive[h] !== null) return;
    this.hostIndex.delete(this.hostNames[h] as string);
    this.hostNames[h] = '';
    this.hostIp[h] = undefined;
    this.freeHostIndexes.push(h);
  }

  /** Hands front-queue URLs to hosts while back queues are free (Mercator's refill). */
  private fill(nowMs: number): void {
    while (this.activeCount < this.backQueueCount) {
      const slot = this.front.pop();
      if (slot < 0) return;
      const h = this.slots.hostOf(slot);
      this.hostFront[h] = (this.hostFront[h] as number) - 1;
      this.enqueue(this.hostActive[h] ?? this.activate(h), slot, nowMs);
    }
  }

  private enqueue(host: Host, slot: number, nowMs: number): void {
    host.queue.push(slot);
    if (host.place === Place.ready) {
      host.group.ready.update(host);
      this.refreshGroup(host.group);
    } else if (host.place === Place.none) {
      this.schedule(host, nowMs);
    }
  }

  /** Gives host `h` a back queue, taking back the politeness it left when it last had one. */
  private activate(h: number): Host {
    const name = this.hostNames[h] as string;
    const left = this.dormant.get(name);
    if (left !== undefined) {
      this.dormant.delete(name);
      this.dormantByTime.remove(left);
    }
    const group = this.groupFor(name, left?.ip ?? this.hostIp[h]);
    group.members++;
    const host: Host = {
      name,
      index: h,
      id: this.nextHostId++,
      queue: new SlotHeap(this.slots),
      group,
      readyAtMs: left?.readyAtMs ?? Number.NEGATIVE_INFINITY,
      failures: left?.failures ?? 0,
      inFlight: 0,
      ended: 0,
      place: Place.none,
      heapIndex: NOT_IN_HEAP,
    };
    this.hostActive[h] = host;
    this.activeCount++;
    return host;
  }

  /** Frees the back queue of a host with nothing queued and nothing in flight. */
  private release(host: Host, nowMs: number): void {
    this.unschedule(host);
    this.hostActive[host.index] = null;
    this.activeCount--;
    host.group.members--;
    this.dropGroupIfUnused(host.group);
    // A failing host's count outlives its delay by backoffMaxMs, so that coming back with new URLs
    // and failing again continues the exponential series; after that long a quiet host starts afresh.
    const forgetAtMs = host.readyAtMs + (host.failures > 0 ? this.rules.backoffMaxMs : 0);
    if (forgetAtMs > nowMs) {
      const left: Dormant = {
        name: host.name,
        readyAtMs: host.readyAtMs,
        failures: host.failures,
        ip: host.group.ip,
        forgetAtMs,
        heapIndex: NOT_IN_HEAP,
      };
      this.dormant.set(host.name, left);
      this.dormantByTime.push(left);
    }
    this.dropHostIfUnused(host.index);
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
      group = { key, ip, limit, ready: new HostHeap<Host>(this.hostBefore), inFlight: 0, members: 0, heapIndex: NOT_IN_HEAP };
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
    this.hostIp[host.index] = ip;
    this.dropGroupIfUnused(old);
  }

  private dropGroupIfUnused(group: Group): void {
    if (group.members === 0 && group.inFlight === 0 && this.groups.get(group.key) === group) {
      this.readyGroups.remove(group);
      this.groups.delete(group.key);
    }
  }
}
