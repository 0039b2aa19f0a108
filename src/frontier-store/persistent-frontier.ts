/**
 * `frontier: persistent` — the Mercator frontier of `src/frontier/`, crash-safe and with its URLs on
 * disk (SPEC §2 item 5, §8). Scheduling is not written twice: a {@link SlotFrontier} does all of it
 * (front queue, back queues, the heap of hosts by next-contact time, IP groups, delays, back-off)
 * over typed-array slots. What a URL needs only when it is leased — the URL itself, where it was
 * found, its depth, its host's address — is a record in the frontier log (`frontier-log.ts`), read
 * back with pread when the URL is leased. So memory holds about 50 bytes per URL in a slot (its
 * slot with its record's location, its cell in the fingerprint index) and no string, and the log's
 * pages stay in the OS page cache, outside the process's resident memory. With `memoryUrlsPerHost`
 * set (a crawl node sets 16 under every order), only that many URLs of a host take a slot: the
 * host's further URLs are *parked*, their record's location in the host's priority band (8 bytes
 * each, `parked-host.ts`), and come back into slots, best band first and oldest first within it,
 * as the host's URLs complete. A million queued URLs over 10,000 hosts take about 19 MiB.
 *
 *     add ──▶ log: ADD record (staged, written in call order) ──▶ slot (priority, seq, host, location)
 *                                                            └──▶ or parked: the host's band of locations
 *     next ──▶ slot ──▶ pread of its record ──▶ lease
 *     complete ──▶ DONE or RETRY record held until the next flush ──▶ the host's best parked URL to a slot
 *     flush ──▶ a slice of compaction (copies staged) ──▶ parked URLs' new priorities held
 *               ──▶ staged adds, held records, fdatasync
 *               ──▶ the compacted segment deleted once empty ──▶ a slice of the band sweep
 *
 * ## Contract
 *
 * Everything in the Contract of `Frontier` (`src/frontier/frontier.ts`) holds, with the politeness
 * and order of `MemoryFrontier` exactly (the same `SlotFrontier`) as long as no host holds more than
 * `memoryUrlsPerHost` URLs; beyond that, see **Parking**. In addition:
 *
 * - **Lifecycle.** The constructor allocates and checks the options. `open(dir)` opens (or creates)
 *   the log in `dir`, recovers it (below) and resolves; called again with the same `dir` it returns
 *   the same promise. `close()` flushes, closes the files and is idempotent. Other calls before
 *   `open()` has resolved, `open()` with another `dir`, and any call after `close()`, throw (or
 *   reject with) an `Error` naming the method: a lifecycle bug in the caller. One process owns the
 *   directory.
 * - **Memory.** Per URL in a slot: the slot (42 bytes, allocated 65,536 at a time) and its cell in
 *   the fingerprint index (6–12 bytes); per parked URL, 8 to 32 bytes (its location, in a ring
 *   that doubles and halves); per host with URLs, a small record; the staging buffer of the
 *   log (256 KiB) and the completions held since the last flush (about 20 bytes each). Nothing grows
 *   with the length of URLs.
 * - **Durability.** Let F be the last `flush()` whose promise resolved before a crash (a process
 *   killed, `kill -9` included; or an OS crash or power loss, as far as the disk honours fsync), or
 *   the last `open()` if later (opening repairs and syncs the log, so it counts as a flush). After
 *   `open()` on the same directory the frontier holds:
 *   - every URL it held at F, queued or in flight: no URL added before F and not completed before F
 *     is lost;
 *   - no URL completed before F (unless it was added again after F);
 *   - besides those, the URLs of a prefix, in call order, of the adds made after F: adds are
 *     written in call order, and the first record that did not survive whole cuts the rest;
 *   - nothing else. A completion after F is not final: its record was still held in memory, so its
 *     URL comes back.
 *
 *   Every URL comes back queued (leases in flight are void), with its place among equal priorities
 *   and its attempt count as of F, and the priority it was added with or the latest journaled for
 *   it (a parked URL's latest change held at F, **Parking**). So a page fetched before the
 *   crash is fetched again only if its lease was out at F or was issued after F. A node that flushes
 *   its page store and URL-seen set before the frontier, at each checkpoint, therefore never loses a
 *   page and never skips a URL.
 * - **flush()** writes and fdatasyncs synchronously: the promise it returns is already settled.
 *   When the log holds more dead bytes than live ones (and more than a segment), it first copies
 *   the live records of the oldest segment (those of slots, then the parked ones) to the active
 *   one, at most `compactBytesPerFlush` per flush each, so that the one fdatasync covers the copies
 *   too; once every live record has left that segment, it is deleted after the fdatasync.
 * - **Parking.** A URL is parked when its host has parked URLs already or holds `memoryUrlsPerHost`
 *   URLs in slots (queued, in flight, or ended and not completed). It waits in the band of its
 *   priority (`bandOf`: 4 bands per doubling). When one of the host's URLs is completed and
 *   leaves, the host's parked URLs take slots again, best band first and in add order within a
 *   band, with the add order (seq) and record they were added with, until the host holds its
 *   share. So a URL is leased behind at most `memoryUrlsPerHost` URLs of its host of a lower band
 *   (those that took its slots as they came), and every host with URLs has some in slots, so no
 *   host waits behind another's backlog. A parked URL is not moved by `reprioritize` (which
 *   answers false): its new priority is held in a bounded table (`parked-priorities.ts`), each
 *   flush's slice of the sweep (`band-sweep.ts`) moves it to the new band, and it is given the new
 *   priority when it comes back into a slot (lost if another parked URL's change takes its cell).
 *   Each flush (and `close()`) journals the changes held since the previous one, one PRIORITY record per URL (at
 *   most the table's cells), so they survive a crash: on `open()` the URL is parked in the band of
 *   its latest journaled priority and gets it back in a slot. A
 *   parked URL is not checked for duplicates when it is added again: it is then held twice until
 *   it comes back into a slot, where the copy is dropped if the URL is in a slot still (the node's
 *   URL-seen test comes first, so only a URL re-added after a crash can meet this; the cost is at
 *   most one fetch more). On `open()` the rule is applied again to the recovered URLs in add order
 *   (with the share now configured), except that a URL with a retry recorded keeps a slot.
 * - **Re-prioritizing** (`Reprioritizable`) a URL in a slot changes the order in memory only: after
 *   a restart it has the priority it was added with, or the last journaled for it (while parked, or
 *   after a compaction copy of its record), until its ordering policy learns it anew.
 * - **Politeness across a restart.** Next-contact times and back-off counts live in memory only.
 *   After opening a log that held URLs, no host is contacted before the first `nowMs` the frontier
 *   sees plus `resumeDelayMs`, so a host fetched just before the crash is not hit again at once.
 * - **Identity.** URLs are told apart by their 64-bit fingerprint, as in the URL-seen set.
 * - **Failure.** A storage error throws `ShoalError` `IO` (`FRONTIER_CORRUPT` for a damaged record
 *   other than a torn tail); the frontier then refuses every further call with it, because memory and
 *   disk may disagree: stop the node and resume.
 * - **Determinism.** The same calls on the same log give the same answers.
 *
 * ## Size
 *
 * Past 600 lines, a third of it this comment: adding, leasing, completing, parking, unparking and
 * compaction each read and move the same three things (the slots, the parked locations, the log's
 * records), and the Durability above holds only if they move together; the parts that stand alone
 * are in their own files (the log, recovery, the bands, the table of changes, the sweep).
 *
 * ## Sources
 *
 * Seed 001 (the Mercator frontier, "use of disk" for scale without saying how); SPEC §2 item 5 and
 * §8. Keeping every URL's scheduling keys in memory and the rest in an append-only journal read by
 * location is ours.
 */
import { ShoalError } from '../core/errors.js';
import {
  leaseOf,
  politenessRules,
  type CompletionReport,
  type Frontier,
  type FrontierEntry,
  type FrontierStats,
  type Lease,
  type NextResult,
  type Reprioritizable,
} from '../frontier/frontier.js';
import { NEXT_EMPTY, NEXT_WAIT, SlotFrontier, type SlotFrontierOptions } from '../frontier/slot-frontier.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import { FrontierLog, addRecordProblem, splitLocation, type AddRecord } from './frontier-log.js';
import type { LocationQueue } from './location-queue.js';
import { sweepSlice, type SweepAt } from './band-sweep.js';
import { bandOf, ParkedHost } from './parked-host.js';
import { DEFAULT_PARKED_PRIORITY_CELLS, ParkedPriorities } from './parked-priorities.js';
import { Recovery } from './recovery.js';

/** Default size at which a new log segment starts: 64 MiB. */
export const DEFAULT_SEGMENT_BYTES = 64 * 2 ** 20;
/** Default compaction per flush: 8 MiB of the oldest segment read, its live records copied. */
const DEFAULT_COMPACT_BYTES_PER_FLUSH = 8 * 2 ** 20;
/**
 * The share of slots a crawl node gives each host (`frontier.memoryUrlsPerHost` left null): under
 * breadth-first order its URLs leave in add order anyway, so parking the rest changes nothing a host
 * sees; under a priority order it bounds how far a host's order departs from its priorities.
 */
export const FIFO_MEMORY_URLS_PER_HOST = 16;

/**
 * The share a crawl node gives each host: {@link FIFO_MEMORY_URLS_PER_HOST},
 * or twice the host's connections if more, so that every connection of a host finds a URL in a
 * slot while others wait for their records to be written.
 */
export function fifoShareFor(maxConnectionsPerHost: number): number {
  return Math.max(FIFO_MEMORY_URLS_PER_HOST, 2 * maxConnectionsPerHost);
}

/** Options of {@link PersistentFrontier}; every field is optional. */
export interface PersistentFrontierOptions extends SlotFrontierOptions {
  /** After reopening a log with URLs, no contact before the first `nowMs` + this, ms. Default `minDelayMs`. */
  readonly resumeDelayMs?: number;
  /** A new segment starts at a flush once the active one holds this many bytes. Default 64 MiB. */
  readonly segmentBytes?: number;
  /** Bytes of the oldest segment compacted per flush at most. Default 8 MiB. */
  readonly compactBytesPerFlush?: number;
  /** Bytes of added records staged in memory before they are written to the log. Default 256 KiB. */
  readonly stageBytes?: number;
  /**
   * URLs of one host held in memory with their scheduling keys (queued, in flight, or waiting for
   * `complete`); the host's further URLs are parked: their records stay on disk, with 8 bytes each
   * in memory, and come back by priority band (in add order within a band) as the host's URLs
   * complete. Default: no limit (nothing parked); a crawl node sets {@link fifoShareFor} (16 for up
   * to 8 connections per host) under every order.
   */
  readonly memoryUrlsPerHost?: number;
  /**
   * Cells of the table that holds new priorities of parked URLs until they come back into slots
   * (`parked-priorities.ts`): a power of two, 16 bytes each once a parked URL is re-prioritized.
   * Default 262,144 (4 MiB).
   */
  readonly parkedPriorityCells?: number;
  /**
   * Bytes of the log read per flush, at most, to move parked URLs whose priority changed to their
   * new band (the sweep; only while changes are held and no compaction is under way). Default 8 MiB.
   */
  readonly sweepBytesPerFlush?: number;
}

/** Options of {@link PersistentFrontier.open}. */
export interface FrontierOpenOptions {
  /**
   * Whether a URL the log holds (fingerprint `hi`, `lo`; `isSitemap` from its record) was in fact done
   * after the last flush: it is then completed at open. Default: none was.
   */
  readonly isCompleted?: (hi: number, lo: number, isSitemap: boolean) => boolean;
}

/** {@link FrontierStats} plus what the log holds and did. */
export interface PersistentFrontierStats extends FrontierStats {
  /** Bytes of the records of the URLs held. */
  readonly liveBytes: number;
  /** Bytes of every segment (dead records included). */
  readonly logBytes: number;
  readonly segments: number;
  /** Records copied out of old segments, and segments deleted, since `open()`. */
  readonly compactedRecords: number;
  readonly deletedSegments: number;
  /** URLs held on disk only, behind their host's URLs in memory (included in `queued`). */
  readonly parked: number;
  /** Hosts with parked URLs. */
  readonly parkedHosts: number;
  /** New priorities held for parked URLs, and those lost to another URL's in their cell. */
  readonly parkedPriorities: number;
  readonly parkedPrioritiesOverwritten: number;
  /** Parked URLs the sweep moved to the band of their new priority, since `open()`. */
  readonly rebanded: number;
  /** From `open()`: URLs found held, and completions found final. */
  readonly recoveredUrls: number;
  readonly recoveredCompletions: number;
  /** From `open()`: URLs held that came back with a priority journaled after their add (parked URLs re-prioritized). */
  readonly recoveredPriorities: number;
  /** From `open()`: URLs the log held that `isCompleted` said were done, and completed then. */
  readonly completedAtOpen: number;
}

const EMPTY: NextResult = { kind: 'empty' };

/** A compaction under way: the slots' records of `segment` are copied up to `offset`, then its parked records queue by queue. */
interface Compaction {
  readonly segment: number;
  offset: number;
  /** The parked hosts' band queues when the slots' records were done (null before). */
  parkedQueues: LocationQueue[] | null;
  queueAt: number;
  /** Entries of that queue already looked at, counted from the first ever pushed. */
  entryAt: number;
}
const NAME = 'PersistentFrontier';

/** The crash-safe frontier; see the file comment for the Contract. */
export class PersistentFrontier implements Frontier, Reprioritizable {
  private readonly core: SlotFrontier;
  private readonly resumeDelayMs: number;
  private readonly segmentBytes: number;
  private readonly compactBytesPerFlush: number;
  private readonly stageBytes: number;
  private readonly memoryUrlsPerHost: number;

  private dir: string | null = null;
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private log: FrontierLog | null = null;
  private failure: ShoalError | null = null;

  /** Bytes of the records of the URLs held. */
  private liveBytes = 0;
  /** Leases out, with their slot and the size of their record (read with it: nothing per queued URL). */
  private readonly leases = new Map<number, { readonly lease: Lease; readonly slot: number; readonly bytes: number }>();
  private nextLeaseId = 1;
  private readonly fp = new Uint32Array(2);
  private compacting: Compaction | null = null;
  /** Hosts with parked URLs: their records' locations, by priority band. */
  private readonly parked = new Map<string, ParkedHost>();
  private parkedCount = 0;
  /** New priorities of parked URLs, applied when they come back into slots. */
  private readonly parkedPriorities: ParkedPriorities;
  private readonly sweepBytesPerFlush: number;
  /** Where the sweep goes on reading the log. */
  private sweepAt: SweepAt = { segment: 0, offset: 0 };
  private rebanded = 0;
  private compactedRecords = 0;
  private deletedSegments = 0;
  private recoveredUrls = 0;
  private recoveredCompletions = 0;
  private recoveredPriorities = 0;
  private completedAtOpen = 0;
  /** First `nowMs` seen since `open()`; null before. */
  private firstNowMs: number | null = null;
  private holdUntilMs = Number.NEGATIVE_INFINITY;

  /** @throws RangeError on an out-of-range option. */
  constructor(options: PersistentFrontierOptions = {}) {
    const rules = politenessRules(options);
    this.core = new SlotFrontier(options);
    this.resumeDelayMs = options.resumeDelayMs ?? rules.minDelayMs;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.compactBytesPerFlush = options.compactBytesPerFlush ?? DEFAULT_COMPACT_BYTES_PER_FLUSH;
    this.stageBytes = options.stageBytes ?? 256 * 1024;
    this.memoryUrlsPerHost = options.memoryUrlsPerHost ?? Number.MAX_SAFE_INTEGER;
    this.parkedPriorities = new ParkedPriorities(options.parkedPriorityCells ?? DEFAULT_PARKED_PRIORITY_CELLS);
    this.sweepBytesPerFlush = options.sweepBytesPerFlush ?? DEFAULT_COMPACT_BYTES_PER_FLUSH;
    if (!(Number.isSafeInteger(this.memoryUrlsPerHost) && this.memoryUrlsPerHost >= 1)) {
      throw new RangeError(`frontier: memoryUrlsPerHost must be an integer >= 1, got ${this.memoryUrlsPerHost}`);
    }
    if (!(Number.isInteger(this.stageBytes) && this.stageBytes >= 1))
      throw new RangeError(`frontier: stageBytes must be an integer >= 1, got ${this.stageBytes}`);
    if (!(Number.isFinite(this.resumeDelayMs) && this.resumeDelayMs >= 0))
      throw new RangeError(`frontier: resumeDelayMs must be a finite number >= 0, got ${this.resumeDelayMs}`);
    for (const [name, value] of [
      ['segmentBytes', this.segmentBytes],
      ['compactBytesPerFlush', this.compactBytesPerFlush],
      ['sweepBytesPerFlush', this.sweepBytesPerFlush],
    ] as const) {
      if (!(Number.isInteger(value) && value >= 4096)) throw new RangeError(`frontier: ${name} must be an integer >= 4096, got ${value}`);
    }
  }

  /**
   * Opens (or creates) the log in `dir` and recovers it. Idempotent for the same `dir`.
   * `options.isCompleted` names URLs the caller knows were done after the last flush (a crawl node
   * reads them from its crawl log): each live URL it answers true for is completed at once, as if its
   * lease had completed, and its DONE record is made durable before `open` resolves.
   */
  open(dir: string, options: FrontierOpenOptions = {}): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError('open', 'is closed; open a new one'));
    if (this.opening !== null) {
      return dir === this.dir ? this.opening : Promise.reject(lifecycleError('open', `is already open on ${String(this.dir)}, not ${dir}`));
    }
    this.dir = dir;
    this.opening = (async () => {
      const recovered = new Recovery();
      this.log = FrontierLog.open(dir, (r) => recovered.take(r), { stageBytes: this.stageBytes });
      this.recoveredCompletions = recovered.completions;
      const isCompleted = options.isCompleted;
      recovered.replay((r, location, bytes) => {
        if (isCompleted !== undefined && isCompleted(r.hi, r.lo, r.isSitemap)) {
          this.core.noteSeq(r.seq);
          (this.log as FrontierLog).holdDone(r.hi, r.lo, r.seq);
          this.completedAtOpen++;
          return;
        }
        // A retried URL (its attempt count is not in its record) stays in memory.
        if (r.attempt === 1 && this.isParking(r.host)) {
          this.core.noteSeq(r.seq);
          this.park(r.host, r.priority, location, bytes);
          // Its record holds the priority it was added with: the latest waits in the table, as before the crash.
          if (r.isReprioritized) this.parkedPriorities.restore(r.hi, r.lo, r.priority);
          return;
        }
        const slot = this.core.add(r.hi, r.lo, r.host, r.ip, r.priority, 0, r.seq, r.attempt);
        this.place(slot, location, bytes);
      });
      this.recoveredUrls = this.core.slots.size + this.parkedCount;
      this.recoveredPriorities = recovered.reprioritized;
      (this.log as FrontierLog).flush();
    })();
    return this.opening;
  }

  /** Flushes and closes the log. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => undefined);
      const log = this.log;
      this.log = null;
      if (log === null) return;
      if (this.failure === null) {
        this.parkedPriorities.drainUnwritten((hi, lo, priority) => log.holdPriority(hi, lo, priority));
        log.close();
      } else log.abandon();
    })();
    return this.closing;
  }

  /** Compacts a slice and makes every add, completion and copy so far durable; see the Contract. */
  async flush(): Promise<void> {
    const log = this.check('flush');
    this.guard(() => {
      const emptied = this.compactSlice(log);
      this.parkedPriorities.drainUnwritten((hi, lo, priority) => log.holdPriority(hi, lo, priority));
      log.flush(this.segmentBytes);
      this.sweepSlice(log);
      // Only now are the copies of its live records durable: the segment may go.
      if (emptied !== null) {
        log.deleteSegment(emptied);
        this.deletedSegments++;
      }
    });
  }

  add(entry: FrontierEntry, nowMs: number): boolean {
    const log = this.check('add');
    if (!Number.isFinite(entry.priority)) throw new RangeError(`frontier: priority must be finite, got ${entry.priority} for ${entry.url}`);
    return this.guard(() => {
      this.start(nowMs);
      urlFingerprintInto(entry.url, this.fp);
      const hi = this.fp[0] as number;
      const lo = this.fp[1] as number;
      const seq = this.core.nextAddSeq;
      const record: AddRecord = {
        hi,
        lo,
        seq,
        priority: entry.priority,
        attempt: 1,
        depth: entry.depth,
        host: entry.host,
        url: entry.url,
        ip: entry.ip ?? null,
        fromUrl: fromUrlOf(entry),
        isSitemap: entry.isSitemap === true,
      };
      // Checked before the slot exists, so that a record that cannot be written leaves no slot behind;
      // a URL held already is refused as a duplicate first, whatever its strings.
      const problem = addRecordProblem(record);
      if (problem !== null) {
        if (this.core.slotOf(hi, lo) >= 0) return false;
        throw new RangeError(problem);
      }
      if (this.isParking(entry.host)) {
        if (this.core.slotOf(hi, lo) >= 0) return false;
        const { location, bytes } = log.appendAdd(record);
        this.core.noteSeq(seq);
        this.park(entry.host, entry.priority, location, bytes);
        return true;
      }
      const slot = this.core.add(hi, lo, entry.host, entry.ip, entry.priority, nowMs, seq, 1);
      if (slot < 0) return false;
      const { location, bytes } = log.appendAdd(record);
      this.place(slot, location, bytes);
      return true;
    });
  }

  next(nowMs: number): NextResult {
    const log = this.check('next');
    return this.guard(() => {
      this.start(nowMs);
      if (nowMs < this.holdUntilMs) {
        const s = this.core.stats();
        return s.queued === 0 && s.inFlight === 0 ? EMPTY : { kind: 'wait', untilMs: this.holdUntilMs };
      }
      const slot = this.core.next(nowMs);
      if (slot === NEXT_EMPTY) return EMPTY;
      if (slot === NEXT_WAIT) return { kind: 'wait', untilMs: this.core.waitUntilMs };
      const { entry, bytes } = this.readEntry(log, slot);
      const lease = leaseOf(this.nextLeaseId++, entry, this.core.slots.attemptOf(slot), nowMs, this.core.leaseIpOf(slot));
      this.leases.set(lease.id, { lease, slot, bytes });
      return { kind: 'url', lease };
    });
  }

  /** Politeness only (see `Frontier.endFetch`): nothing is written; the lease stays in flight until `complete`. */
  endFetch(lease: Lease, report: CompletionReport, nowMs: number): void {
    this.check('endFetch');
    const record = this.leases.get(lease.id);
    if (record === undefined) throw new Error(`frontier: lease ${lease.id} (${lease.entry.url}) is not in flight`);
    this.core.endFetch(record.slot, report, nowMs);
  }

  complete(lease: Lease, report: CompletionReport, nowMs: number): void {
    const log = this.check('complete');
    const record = this.leases.get(lease.id);
    if (record === undefined) throw new Error(`frontier: lease ${lease.id} (${lease.entry.url}) is not in flight`);
    const { slot, bytes } = record;
    const t = this.core.slots;
    const hi = t.hiOf(slot);
    const lo = t.loOf(slot);
    const seq = t.seqOf(slot);
    // The core checks the report and throws before changing anything.
    const isKept = this.core.complete(slot, report, nowMs);
    this.leases.delete(lease.id);
    this.guard(() => {
      if (isKept) {
        // A requeue leaves the attempt as its last record says: nothing to write.
        if (report.isRequeue !== true) log.holdRetry(hi, lo, seq, t.attemptOf(slot));
      } else {
        log.holdDone(hi, lo, seq);
        this.liveBytes -= bytes;
        this.unpark(log, lease.entry.host, nowMs);
      }
    });
  }

  /** Re-prioritizes a URL in a slot; a URL not in one may be parked: its new priority is held for when it comes back (answers false). */
  reprioritize(url: string, priority: number): boolean {
    this.check('reprioritize');
    urlFingerprintInto(url, this.fp);
    return this.reprioritizeFingerprint(this.fp[0] as number, this.fp[1] as number, priority);
  }

  reprioritizeFingerprint(hi: number, lo: number, priority: number): boolean {
    this.check('reprioritize');
    if (this.core.reprioritize(hi, lo, priority)) return true;
    if (this.parkedCount > 0) this.parkedPriorities.set(hi, lo, priority);
    return false;
  }

  reprioritizeFingerprints(count: number, his: ArrayLike<number>, los: ArrayLike<number>, priorities: ArrayLike<number>): number {
    this.check('reprioritize');
    const held = this.core.reprioritizeMany(count, his, los, priorities);
    if (held < count && this.parkedCount > 0) {
      for (let i = 0; i < count; i++) {
        const hi = his[i] as number;
        const lo = los[i] as number;
        if (this.core.slotOf(hi, lo) < 0) this.parkedPriorities.set(hi, lo, priorities[i] as number);
      }
    }
    return held;
  }

  inFlight(): readonly Lease[] {
    return Array.from(this.leases.values(), (record) => record.lease);
  }

  /** Every URL held (queued or in flight), with its attempt count: those in slots best first, then the parked ones, host by host in add order. Reads each record from the log. */
  *entries(): Generator<{ readonly entry: FrontierEntry; readonly attempt: number }> {
    const log = this.check('entries');
    const t = this.core.slots;
    const slots: number[] = [];
    this.core.forEachQueued((slot) => slots.push(slot));
    for (const { slot } of this.leases.values()) slots.push(slot);
    slots.sort((a, b) => t.priorityOf(b) - t.priorityOf(a) || t.seqOf(a) - t.seqOf(b));
    for (const slot of slots) yield { entry: this.readEntry(log, slot).entry, attempt: t.attemptOf(slot) };
    for (const host of this.parked.values()) {
      for (const queue of host.queues()) {
        for (let i = 0; i < queue.size; i++) {
          const { record } = log.readAdd(queue.at(i));
          yield { entry: entryOf(record), attempt: record.attempt };
        }
      }
    }
  }

  stats(): PersistentFrontierStats {
    const log = this.log;
    const core = this.core.stats();
    return {
      ...core,
      queued: core.queued + this.parkedCount,
      parked: this.parkedCount,
      parkedHosts: this.parked.size,
      parkedPriorities: this.parkedPriorities.size,
      parkedPrioritiesOverwritten: this.parkedPriorities.overwritten,
      rebanded: this.rebanded,
      liveBytes: this.liveBytes,
      logBytes: log === null ? 0 : log.totalBytes(),
      segments: log === null ? 0 : log.segmentNumbers.length,
      compactedRecords: this.compactedRecords,
      deletedSegments: this.deletedSegments,
      recoveredUrls: this.recoveredUrls,
      recoveredCompletions: this.recoveredCompletions,
      recoveredPriorities: this.recoveredPriorities,
      completedAtOpen: this.completedAtOpen,
    };
  }

  /** Whether a new URL of `host` is parked: the host has parked URLs already, or its share of memory. */
  private isParking(host: string): boolean {
    return this.parked.has(host) || this.core.heldOfHost(host) >= this.memoryUrlsPerHost;
  }

  private park(host: string, priority: number, location: number, bytes: number): void {
    let parked = this.parked.get(host);
    if (parked === undefined) {
      parked = new ParkedHost();
      this.parked.set(host, parked);
    }
    parked.push(bandOf(priority), location);
    this.parkedCount++;
    this.liveBytes += bytes;
  }

  /** Brings `host`'s parked URLs back into memory, best band first, oldest first within it, while it holds fewer than its share. */
  private unpark(log: FrontierLog, host: string, nowMs: number): void {
    const queue = this.parked.get(host);
    if (queue === undefined) return;
    while (queue.size > 0 && this.core.heldOfHost(host) < this.memoryUrlsPerHost) {
      let location = queue.shift();
      this.parkedCount--;
      const { record: r, bytes } = log.readAdd(location);
      if (this.core.slotOf(r.hi, r.lo) >= 0) {
        // Added again while parked, and held in memory still: one is enough.
        this.liveBytes -= bytes;
        continue;
      }
      const isUnwritten = this.parkedPriorities.isUnwritten(r.hi, r.lo);
      const changed = this.parkedPriorities.take(r.hi, r.lo);
      const priority = Number.isNaN(changed) ? r.priority : changed;
      if (this.compacting !== null && splitLocation(location).segment === this.compacting.segment) {
        // Its segment is being compacted, which may have passed it: it moves now.
        location = this.copyParkedRecord(log, r, bytes, priority).location;
      } else if (isUnwritten) {
        // Not written down yet: journaled now, so that a crash does not take the change back.
        log.holdPriority(r.hi, r.lo, priority);
      }
      const slot = this.core.add(r.hi, r.lo, r.host, r.ip ?? undefined, priority, nowMs, r.seq, r.attempt);
      this.core.slots.setRef(slot, location);
    }
    if (queue.size === 0) this.parked.delete(host);
  }

  /** One slice of the sweep (`band-sweep.ts`); not while a compaction copies parked records queue by queue: a move would hide an entry from it. */
  private sweepSlice(log: FrontierLog): void {
    if (this.parkedPriorities.size === 0 || this.parkedCount === 0 || this.compacting !== null) return;
    const slice = sweepSlice(log, this.sweepAt, this.sweepBytesPerFlush, (r, location) => {
      const priority = this.parkedPriorities.peek(r.hi, r.lo);
      return !Number.isNaN(priority) && this.parked.get(r.host)?.move(location, bandOf(priority)) === true;
    });
    this.sweepAt = slice.at;
    this.rebanded += slice.moved;
  }

  /** Records where a slot's record lives. */
  private place(slot: number, location: number, bytes: number): void {
    this.core.slots.setRef(slot, location);
    this.liveBytes += bytes;
  }

  /** A slot's entry, read from its record, and the record's size. */
  private readEntry(log: FrontierLog, slot: number): { readonly entry: FrontierEntry; readonly bytes: number } {
    const t = this.core.slots;
    const { record: r, bytes } = log.readAdd(t.refOf(slot));
    if (r.hi !== t.hiOf(slot) || r.lo !== t.loOf(slot)) {
      const { segment, offset } = splitLocation(t.refOf(slot));
      throw new ShoalError(
        'FRONTIER_CORRUPT',
        `frontier log ${String(this.dir)}: segment ${segment} offset ${offset} holds ${r.url}, not the URL queued there`,
      );
    }
    return { entry: entryOf(r), bytes };
  }

  /**
   * One slice of compaction: appends copies of the live records of the oldest segment (written and
   * synced by the flush that follows). @returns that segment's number once every live record has
   * left it, for the caller to delete after the flush; else null.
   */
  private compactSlice(log: FrontierLog): number | null {
    if (this.compacting === null) {
      const segments = log.segmentNumbers;
      const dead = log.totalBytes() - this.liveBytes;
      if (segments.length < 2 || dead <= Math.max(this.liveBytes, this.segmentBytes)) return null;
      this.compacting = { segment: segments[0] as number, offset: 0, parkedQueues: null, queueAt: 0, entryAt: 0 };
    }
    const c = this.compacting;
    const t = this.core.slots;
    c.offset = log.scanAdds(c.segment, c.offset, this.compactBytesPerFlush, (r: AddRecord, location: number) => {
      const slot = this.core.slotOf(r.hi, r.lo);
      if (slot < 0 || t.refOf(slot) !== location || t.seqOf(slot) !== r.seq) return;
      const copy = log.appendAdd({ ...r, attempt: t.attemptOf(slot) });
      // A change journaled for it may go with this segment: written again after the copy.
      if (t.priorityOf(slot) !== r.priority) log.holdPriority(r.hi, r.lo, t.priorityOf(slot));
      t.setRef(slot, copy.location);
      this.compactedRecords++;
    });
    if (c.offset < log.segmentEnd(c.segment) || !this.copyParked(log, c)) return null;
    this.compacting = null;
    return c.segment;
  }

  /**
   * Copies a parked URL's record (of `bytes`) out of the segment under compaction, to the active
   * one, and journals `priority`, its latest, after the copy when it is not the record's (a
   * PRIORITY record of the URL may go with the segment).
   */
  private copyParkedRecord(
    log: FrontierLog,
    record: AddRecord,
    bytes: number,
    priority: number,
  ): { readonly location: number; readonly bytes: number } {
    const copy = log.appendAdd(record);
    if (priority !== record.priority) log.holdPriority(record.hi, record.lo, priority);
    this.liveBytes += copy.bytes - bytes;
    this.compactedRecords++;
    return copy;
  }

  /**
   * The parked records of the segment under compaction, copied queue by queue (at most
   * `compactBytesPerFlush` per flush). A parked URL that comes back into memory meanwhile is moved
   * by `unpark`; URLs parked meanwhile are in the active segment (a band queue emptied and made
   * anew holds only those). @returns true once all are copied.
   */
  private copyParked(log: FrontierLog, c: Compaction): boolean {
    c.parkedQueues ??= [...this.parked.values()].flatMap((host) => host.queues());
    let budget = this.compactBytesPerFlush;
    for (; c.queueAt < c.parkedQueues.length; c.queueAt++, c.entryAt = 0) {
      const queue = c.parkedQueues[c.queueAt] as LocationQueue;
      for (let i = Math.max(0, c.entryAt - queue.headIndex); i < queue.size; i++) {
        if (budget <= 0) {
          c.entryAt = queue.headIndex + i;
          return false;
        }
        const location = queue.at(i);
        if (splitLocation(location).segment !== c.segment) continue;
        const { record, bytes } = log.readAdd(location);
        const changed = this.parkedPriorities.peek(record.hi, record.lo);
        queue.set(i, this.copyParkedRecord(log, record, bytes, Number.isNaN(changed) ? record.priority : changed).location);
        budget -= bytes;
      }
    }
    return true;
  }

  private start(nowMs: number): void {
    if (this.firstNowMs !== null) return;
    this.firstNowMs = nowMs;
    if (this.recoveredUrls > 0) this.holdUntilMs = nowMs + this.resumeDelayMs;
  }

  private check(method: string): FrontierLog {
    if (this.failure !== null) throw this.failure;
    if (this.closing !== null) throw lifecycleError(method, 'is closed');
    if (this.log === null) throw lifecycleError(method, 'is not open; call and await open(dir) first');
    return this.log;
  }

  /** Runs a step; a storage failure makes the frontier refuse every later call. */
  private guard<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      if (err instanceof ShoalError) this.failure = err;
      throw err;
    }
  }
}

/** The entry an ADD record describes. */
function entryOf(r: AddRecord): FrontierEntry {
  return {
    url: r.url,
    host: r.host,
    depth: r.depth,
    priority: r.priority,
    ...(r.ip === null ? {} : { ip: r.ip }),
    ...(r.fromUrl === null ? {} : { fromUrl: r.fromUrl }),
    ...(r.isSitemap ? { isSitemap: true } : {}),
  };
}

/** The page an entry was found on, as the log stores it. */
function fromUrlOf(entry: FrontierEntry): string | null {
  return typeof entry.fromUrl === 'string' ? entry.fromUrl : null;
}

function lifecycleError(method: string, state: string): Error {
  return new Error(`${NAME}.${method}(): the frontier ${state}`);
}
