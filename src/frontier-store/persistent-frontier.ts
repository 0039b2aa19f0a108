/**
 * `frontier: persistent` — the Mercator frontier of `MemoryFrontier`, kept in an LMDB environment in
 * the crawl directory so that it survives `kill -9` and grows past memory (SPEC §2 item 5, §8).
 *
 * Scheduling is not written twice: a `MemoryFrontier` inside does all of it (back queues, the heap of
 * hosts by next-contact time, IP groups, delays, back-off, leases). This class decides which URLs
 * that inner frontier gets to see, and writes everything down:
 *
 *     add ──▶ store (every URL) ──▶ resident host?  ── yes, and among its best W ──▶ inner frontier
 *                                      │ no                                             │ next / complete
 *                                      ▼                                                ▼
 *                             host index on disk  ──(a back queue frees)──▶ page of W URLs read in
 *
 * At most B hosts are *resident* (the inner frontier's back queues); each keeps its best W queued
 * URLs in memory (`host-window.ts`) and the rest on disk, read a page at a time as the window runs
 * dry. The other hosts wait in an index on disk ranked by their best URL: when a back queue frees,
 * the host holding the best waiting URL gets it, as in MemoryFrontier's refill from the front queue.
 * A resident host whose window runs dry with nothing in flight gives its back queue up to a waiting
 * host holding a better URL than its own next one, so hosts take turns as in MemoryFrontier.
 * URLs reach the inner frontier with their own add order (`MemoryFrontier.addAt`), so the order
 * among ready hosts is the order MemoryFrontier would give.
 *
 * ## Contract
 *
 * Everything in the Contract of `Frontier` (`src/frontier/frontier.ts`) holds, with MemoryFrontier's
 * politeness exactly (it is the same code). In addition:
 *
 * - **Lifecycle.** The constructor allocates and checks the options. `open(dir)` opens (or creates)
 *   the LMDB environment in `dir`, recovers it (below) and resolves; called again with the same
 *   `dir` it returns the same promise. `close()` flushes, closes the environment and is idempotent
 *   (every call returns the same promise). Other calls before `open()` has resolved, `open()` with
 *   another `dir`, and any call after `close()`, throw (or reject with) an `Error` naming the method:
 *   a lifecycle bug in the caller. One process owns the directory.
 * - **Memory.** At most `backQueueCount` (B) hosts hold URLs in memory, each at most
 *   `urlsPerHostInMemory` (W) queued plus its leases out (at most `maxConnectionsPerHost`): so
 *   `stats().residentUrls <= stats().residentUrlLimit = B × (W + maxConnectionsPerHost)`, however
 *   many URLs and hosts the frontier holds. Add at most `maxPendingWrites` writes not yet committed,
 *   and the inner frontier's record of hosts still inside their delay after giving up a back queue.
 * - **Durability.** Let F be the last `flush()` whose promise resolved before a crash (a process
 *   killed, `kill -9` included; or an OS crash or power loss, as far as the disk honours fsync), or
 *   the last `open()` if later: opening commits what it recovered, so it counts as a flush. After
 *   `open()` on the same directory the frontier holds:
 *   - every URL it held at F, queued or in flight: no URL added before F and not completed before F
 *     is lost;
 *   - no URL completed before F (unless it was added again after F);
 *   - besides those, the URLs of a prefix, in call order, of the adds made after F: none, some or
 *     all of them. Writes are committed in call order in atomic batches, so a crash leaves the
 *     state after some call, never a mix;
 *   - nothing else. A completion after F is not final: its URL comes back.
 *
 *   Every URL comes back queued (the leases in flight are void), with its priority, its place among
 *   equal priorities and its attempt count as last written. So a page fetched before the crash is
 *   fetched again only if its lease was out at F or was issued after F: the refetch window is the
 *   leases out at the last flush plus those issued since. A flush under way when the crash came has
 *   taken effect entirely or not at all. A node that flushes its page store and URL-seen set before
 *   the frontier, at each checkpoint, therefore never loses a page and never skips a URL.
 * - **flush()** commits and makes every completion so far final in one synchronous transaction that
 *   ends with an fdatasync: the call blocks for it, later calls belong after F, and the promise it
 *   returns is already resolved (or rejected, with the storage error).
 * - **Politeness across a restart.** Next-contact times and back-off counts live in memory only.
 *   After opening a store that held URLs, no host is contacted before the first `nowMs` the
 *   frontier sees plus `resumeDelayMs`, so a host fetched just before the crash is not hit again at
 *   once.
 * - **Identity.** URLs are told apart by their 64-bit fingerprint, as in the URL-seen set.
 * - **Not offered:** `reprioritize` (a URL on disk would have to be found and moved).
 * - **Failure.** A storage error throws `ShoalError` `IO` (action: stop); the frontier then refuses
 *   every further call with it, because memory and disk may disagree: stop the node and resume.
 * - **Determinism.** The same calls on the same store give the same answers.
 *
 * ## Sources
 *
 * Seed 001 (the Mercator frontier structure reused here: one back queue per server, a priority queue
 * of servers keyed by the time each may be used again, refill when a back queue empties; the slides
 * list "use of disk" for scale but not how): SPEC §2 item 5 ("survives a crash ... and spills to
 * disk when large") and §8. Keeping a window of each resident host's URLs in memory and the rest in
 * key order on disk is ours.
 */
import { ShoalError } from '../core/errors.js';
import {
  politenessRules,
  type CompletionReport, type Frontier, type FrontierEntry, type FrontierStats, type Lease, type NextResult, type PolitenessOptions,
} from '../frontier/frontier.js';
import { DEFAULT_BACK_QUEUE_COUNT, MemoryFrontier } from '../frontier/memory-frontier.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import { rankOfUrlKey, urlKey } from './frontier-keys.js';
import { FrontierStore, type RecoveryReport, type StoredUrl } from './frontier-store.js';
import { HostWindow, windowItem, type WindowItem } from './host-window.js';

/**
 * Default W: 100 URLs per resident host. A host is contacted about once a second at most, so a page
 * lasts a minute or more of crawling; 300 back queues then hold at most 30,000 URLs in memory,
 * about 16 MB (some 525 bytes each, measured with the inner frontier's share).
 */
export const DEFAULT_URLS_PER_HOST_IN_MEMORY = 100;

/**
 * Default writes held before a commit: 4,096 (about a MB of memory). A commit is synchronous: with
 * keys spread over the whole store, LMDB rewrites about one page per write, so 4,096 writes into a
 * store of 200,000 URLs took 30–50 ms here (the event loop waits that long), against about 4 ms for
 * a commit's fixed cost (the fdatasync). Larger batches commit less often but stall longer.
 */
export const DEFAULT_MAX_PENDING_WRITES = 4096;

/** Options of {@link PersistentFrontier}; every field is optional. */
export interface PersistentFrontierOptions extends PolitenessOptions {
  /** B: hosts holding a back queue (and URLs in memory). Default {@link DEFAULT_BACK_QUEUE_COUNT}. */
  readonly backQueueCount?: number;
  /** W: queued URLs each resident host keeps in memory. Default {@link DEFAULT_URLS_PER_HOST_IN_MEMORY}. */
  readonly urlsPerHostInMemory?: number;
  /** Writes held in memory before a commit. Default {@link DEFAULT_MAX_PENDING_WRITES}. */
  readonly maxPendingWrites?: number;
  /** After reopening a store with URLs, no contact before the first `nowMs` + this, ms. Default `minDelayMs`. */
  readonly resumeDelayMs?: number;
}

/** {@link FrontierStats} plus where the URLs are and what the store did. */
export interface PersistentFrontierStats extends FrontierStats {
  /** URLs in memory: queued in resident hosts' windows plus in flight. */
  readonly residentUrls: number;
  /** The bound on `residentUrls`: B × (W + maxConnectionsPerHost). */
  readonly residentUrlLimit: number;
  /** Hosts waiting on disk for a back queue. */
  readonly indexedHosts: number;
  /** Writes not yet committed. */
  readonly pendingWrites: number;
  /** Transactions committed since `open()`. */
  readonly commits: number;
  /** Pages of URLs read from disk into a window. */
  readonly pageIns: number;
  /** URLs sent back from a window to disk because better ones arrived. */
  readonly evictions: number;
  /** From `open()`: leases that were out, and completions not yet final, whose URLs were queued again. */
  readonly recoveredLeases: number;
  readonly restoredCompletions: number;
}

interface LeaseInfo {
  readonly item: WindowItem;
  readonly window: HostWindow;
}

const EMPTY: NextResult = { kind: 'empty' };
const NAME = 'PersistentFrontier';

/** The crash-safe frontier; see the file comment for the Contract. */
export class PersistentFrontier implements Frontier {
  private readonly inner: MemoryFrontier;
  private readonly backQueueCount: number;
  private readonly urlsPerHost: number;
  private readonly maxPendingWrites: number;
  private readonly resumeDelayMs: number;
  private readonly residentUrlLimit: number;

  private dir: string | null = null;
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private store: FrontierStore | null = null;
  private failure: ShoalError | null = null;
  private recovery: RecoveryReport = { recoveredLeases: 0, restoredCompletions: 0, queued: 0 };

  private readonly resident = new Map<string, HostWindow>();
  private readonly windowByUrl = new Map<string, WindowItem>();
  private readonly leases = new Map<number, LeaseInfo>();
  private readonly leasedUrls = new Set<string>();
  private readonly fingerprint = new Uint32Array(2);
  private queued = 0;
  private windowQueued = 0;
  private pageIns = 0;
  private evictions = 0;
  /** First `nowMs` seen since `open()`; null before. */
  private firstNowMs: number | null = null;
  private holdUntilMs = Number.NEGATIVE_INFINITY;

  /** @throws RangeError on an out-of-range option. */
  constructor(options: PersistentFrontierOptions = {}) {
    const rules = politenessRules(options);
    this.backQueueCount = options.backQueueCount ?? DEFAULT_BACK_QUEUE_COUNT;
    this.inner = new MemoryFrontier({ ...options, backQueueCount: this.backQueueCount });
    this.urlsPerHost = options.urlsPerHostInMemory ?? DEFAULT_URLS_PER_HOST_IN_MEMORY;
    this.maxPendingWrites = options.maxPendingWrites ?? DEFAULT_MAX_PENDING_WRITES;
    this.resumeDelayMs = options.resumeDelayMs ?? rules.minDelayMs;
    for (const [name, value] of [['urlsPerHostInMemory', this.urlsPerHost], ['maxPendingWrites', this.maxPendingWrites]] as const) {
      if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`frontier: ${name} must be an integer >= 1, got ${value}`);
    }
    if (!(Number.isFinite(this.resumeDelayMs) && this.resumeDelayMs >= 0)) throw new RangeError(`frontier: resumeDelayMs must be a finite number >= 0, got ${this.resumeDelayMs}`);
    this.residentUrlLimit = this.backQueueCount * (this.urlsPerHost + rules.maxConnectionsPerHost);
  }

  /** Opens (or creates) the store in `dir` and recovers it. Idempotent for the same `dir`. */
  open(dir: string): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError('open', 'is closed; open a new one'));
    if (this.opening !== null) {
      return dir === this.dir ? this.opening : Promise.reject(lifecycleError('open', `is already open on ${String(this.dir)}, not ${dir}`));
    }
    this.dir = dir;
    this.opening = (async () => {
      const { store, recovery } = FrontierStore.open(dir, this.maxPendingWrites);
      this.store = store;
      this.recovery = recovery;
      this.queued = recovery.queued;
    })();
    return this.opening;
  }

  /** Flushes and closes the store. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => undefined);
      const store = this.store;
      this.store = null;
      if (store === null) return;
      try {
        if (this.failure === null) store.flush();
      } finally {
        await store.close();
      }
    })();
    return this.closing;
  }

  /**
   * Makes every add and completion so far durable; see the Contract (Durability). The commit is
   * synchronous (it ends with an fdatasync), so the promise is settled by the time the call returns.
   */
  async flush(): Promise<void> {
    const store = this.check('flush');
    this.guard(() => store.flush());
  }

  add(entry: FrontierEntry, nowMs: number): boolean {
    const store = this.check('add');
    if (!Number.isFinite(entry.priority)) throw new RangeError(`frontier: priority must be finite, got ${entry.priority} for ${entry.url}`);
    return this.guard(() => {
      this.start(nowMs);
      const fingerprint = this.fingerprintOf(entry.url);
      if (store.heldKey(fingerprint) !== undefined) return false;
      const seq = store.takeSeq();
      const key = urlKey(entry.host, entry.priority, seq);
      store.putUrl(key, entry, 1, fingerprint);
      this.queued++;
      let window = this.resident.get(entry.host);
      if (window === undefined && this.resident.size < this.backQueueCount) window = this.makeResident(entry.host);
      if (window === undefined) {
        store.indexHost(entry.host, rankOfUrlKey(key));
      } else if (window.admits(key)) {
        this.admit(window, windowItem(key, entry, seq, 1), nowMs);
        this.trim(window, nowMs);
      } else {
        window.hasSpill = true;
      }
      store.commitIfFull();
      return true;
    });
  }

  next(nowMs: number): NextResult {
    const store = this.check('next');
    return this.guard(() => {
      this.start(nowMs);
      if (nowMs < this.holdUntilMs) {
        return this.queued === 0 && this.leases.size === 0 ? EMPTY : { kind: 'wait', untilMs: this.holdUntilMs };
      }
      const result = this.inner.next(nowMs);
      if (result.kind !== 'url') return result;
      const { lease } = result;
      const item = this.windowByUrl.get(lease.entry.url) as WindowItem;
      const window = this.resident.get(lease.entry.host) as HostWindow;
      this.windowByUrl.delete(lease.entry.url);
      window.queued.remove(item);
      this.windowQueued--;
      this.queued--;
      window.inFlight++;
      this.leases.set(lease.id, { item, window });
      this.leasedUrls.add(lease.entry.url);
      store.putLease(item.key, nowMs);
      if (window.queued.size === 0 && window.hasSpill) this.refill(window, nowMs);
      store.commitIfFull();
      return result;
    });
  }

  complete(lease: Lease, report: CompletionReport, nowMs: number): void {
    const store = this.check('complete');
    // The inner frontier checks the lease and the report, and throws before changing anything.
    this.inner.complete(lease, report, nowMs);
    this.guard(() => {
      const { item, window } = this.leases.get(lease.id) as LeaseInfo;
      this.leases.delete(lease.id);
      this.leasedUrls.delete(lease.entry.url);
      window.inFlight--;
      store.deleteLease(item.key);
      if (report.shouldRetry === true) {
        item.attempt = lease.attempt + 1;
        store.putUrl(item.key, item.entry, item.attempt);
        this.queued++;
        if (window.admits(item.key)) {
          this.windowByUrl.set(item.entry.url, item);
          window.queued.push(item);
          this.windowQueued++;
          this.trim(window, nowMs);
        } else {
          // Better URLs took its place while it was out: it waits on disk, where it was written.
          this.inner.withdraw(item.entry.url, nowMs);
        }
      } else {
        store.markDone(item.key, this.fingerprintOf(item.entry.url));
      }
      if (window.queued.size === 0 && window.hasSpill) this.refill(window, nowMs);
      if (window.isIdle) this.release(window, nowMs);
      store.commitIfFull();
    });
  }

  inFlight(): readonly Lease[] {
    this.check('inFlight');
    return this.inner.inFlight();
  }

  stats(): PersistentFrontierStats {
    const store = this.check('stats');
    const inner = this.inner.stats();
    return {
      ...inner,
      queued: this.queued,
      frontQueued: this.queued - this.windowQueued,
      activeHosts: this.resident.size,
      residentUrls: this.windowQueued + this.leases.size,
      residentUrlLimit: this.residentUrlLimit,
      indexedHosts: store.waitingHosts,
      pendingWrites: store.pendingWrites,
      commits: store.commitCount,
      pageIns: this.pageIns,
      evictions: this.evictions,
      recoveredLeases: this.recovery.recoveredLeases,
      restoredCompletions: this.recovery.restoredCompletions,
    };
  }

  /**
   * Every URL held, queued or in flight, with its attempt count, host by host and best first. For
   * diagnostics and tests (it reads the whole store); make no other call while iterating.
   */
  *entries(): Generator<{ readonly entry: FrontierEntry; readonly attempt: number }> {
    const store = this.check('entries');
    for (const stored of store.entries()) yield { entry: stored.entry, attempt: stored.attempt };
  }

  /**
   * On the first call after `open()`: the hosts that held back queues get them again (those beyond B
   * wait in the host index), the free ones go to the best waiting hosts, and the resume hold starts.
   */
  private start(nowMs: number): void {
    if (this.firstNowMs !== null) return;
    this.firstNowMs = nowMs;
    if (this.queued > 0) this.holdUntilMs = nowMs + this.resumeDelayMs;
    const store = this.storeOrThrow();
    for (const host of store.residentHosts()) {
      if (this.resident.size < this.backQueueCount) {
        this.activate(host, nowMs, false);
        continue;
      }
      store.setResident(host, false);
      const first = store.readHost(host, null, 1, this.isLeased).urls[0];
      if (first !== undefined) store.indexHost(host, rankOfUrlKey(first.key));
    }
    this.fill(nowMs);
  }

  private makeResident(host: string): HostWindow {
    const window = new HostWindow(host);
    this.resident.set(host, window);
    this.storeOrThrow().setResident(host, true);
    return window;
  }

  /** Hands free back queues to the waiting hosts holding the best URLs. */
  private fill(nowMs: number): void {
    const store = this.storeOrThrow();
    while (this.resident.size < this.backQueueCount) {
      const host = store.takeBestHost();
      if (host === undefined) return;
      this.activate(host, nowMs, true);
    }
  }

  /** Gives `host`, whose URLs are all on disk, a back queue and reads its first page. */
  private activate(host: string, nowMs: number, isNew: boolean): void {
    const window = isNew ? this.makeResident(host) : new HostWindow(host);
    this.resident.set(host, window);
    window.hasSpill = true;
    this.pageIn(window, this.storeOrThrow().readHost(host, null, this.urlsPerHost, this.isLeased), nowMs);
    // Only a damaged store would name a host with nothing queued; then it simply gives the queue back.
    if (window.isIdle) this.dropResident(window);
  }

  /**
   * The window ran dry while URLs of the host wait on disk. Reads the next page, unless a waiting
   * host holds a better URL than the host's next one: then the host gives up its back queue as soon
   * as nothing of it is in flight (as a MemoryFrontier host whose back queue drains), and the better
   * host takes it.
   */
  private refill(window: HostWindow, nowMs: number): void {
    const store = this.storeOrThrow();
    const page = store.readHost(window.host, window.cursor, this.urlsPerHost, this.isLeased);
    const first = page.urls[0];
    const bestWaiting = store.bestWaitingRank();
    if (first !== undefined && bestWaiting !== undefined && Buffer.compare(bestWaiting, rankOfUrlKey(first.key)) < 0) {
      if (window.inFlight === 0) {
        this.dropResident(window);
        store.indexHost(window.host, rankOfUrlKey(first.key));
        this.fill(nowMs);
      }
      return;
    }
    this.pageIn(window, page, nowMs);
  }

  private pageIn(window: HostWindow, page: { urls: StoredUrl[]; hasMore: boolean }, nowMs: number): void {
    for (const stored of page.urls) this.admit(window, windowItem(stored.key, stored.entry, stored.seq, stored.attempt), nowMs);
    const last = page.urls[page.urls.length - 1];
    window.hasSpill = page.hasMore;
    window.cursor = page.hasMore && last !== undefined ? last.key : null;
    if (page.urls.length > 0) this.pageIns++;
  }

  private admit(window: HostWindow, item: WindowItem, nowMs: number): void {
    if (!this.inner.addAt(item.entry, nowMs, { seq: item.seq, attempt: item.attempt })) {
      throw new Error(`frontier: ${item.entry.url} is already in memory (bug)`);
    }
    window.queued.push(item);
    this.windowByUrl.set(item.entry.url, item);
    this.windowQueued++;
  }

  /** Sends the worst URLs of an overfull window back to disk (they are written there already). */
  private trim(window: HostWindow, nowMs: number): void {
    while (window.queued.size > this.urlsPerHost) {
      const worst = window.queued.pop() as WindowItem;
      this.inner.withdraw(worst.entry.url, nowMs);
      this.windowByUrl.delete(worst.entry.url);
      this.windowQueued--;
      this.evictions++;
      window.hasSpill = true;
      window.cursor = (window.queued.peek() as WindowItem).key;
    }
  }

  /** A host with nothing left gives up its back queue; the best waiting host takes it. */
  private release(window: HostWindow, nowMs: number): void {
    this.dropResident(window);
    this.fill(nowMs);
  }

  private dropResident(window: HostWindow): void {
    this.resident.delete(window.host);
    this.storeOrThrow().setResident(window.host, false);
  }

  private readonly isLeased = (url: string): boolean => this.leasedUrls.has(url);

  private fingerprintOf(url: string): Buffer {
    urlFingerprintInto(url, this.fingerprint);
    const out = Buffer.allocUnsafe(8);
    out.writeUInt32BE(this.fingerprint[0] as number, 0);
    out.writeUInt32BE(this.fingerprint[1] as number, 4);
    return out;
  }

  private check(method: string): FrontierStore {
    if (this.closing !== null) throw lifecycleError(method, 'is closed');
    if (this.failure !== null) throw this.failure;
    if (this.store === null) throw lifecycleError(method, 'is not open; call and await open(dir) first');
    return this.store;
  }

  private storeOrThrow(): FrontierStore {
    return this.check('(internal)');
  }

  /** Runs `work`; a storage error there poisons the frontier (see the Contract, Failure). */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (err instanceof ShoalError) this.fail(err);
      throw err;
    }
  }

  private fail(err: unknown): never {
    this.failure ??= err instanceof ShoalError ? err : new ShoalError('IO', `frontier store in ${String(this.dir)}: ${String(err)}`, { cause: err });
    throw this.failure;
  }
}

function lifecycleError(method: string, state: string): Error {
  return new Error(`${NAME}.${method}(): the frontier ${state}`);
}
