/**
 * `frontier: persistent` — the Mercator frontier of `src/frontier/`, crash-safe and with its URLs on
 * disk (SPEC §2 item 5, §8). Scheduling is not written twice: a {@link SlotFrontier} does all of it
 * (front queue, back queues, the heap of hosts by next-contact time, IP groups, delays, back-off)
 * over typed-array slots. What a URL needs only when it is leased — the URL itself, where it was
 * found, its depth, its host's address — is a record in the frontier log (`frontier-log.ts`), read
 * back with pread when the URL is leased. So memory holds about 50 bytes per queued URL (its slot
 * with its record's location, its cell in the fingerprint index) and no string, and the log's pages
 * stay in the OS page cache, outside the process's resident memory.
 *
 *     add ──▶ log: ADD record (staged, written in call order) ──▶ slot (priority, seq, host, location)
 *     next ──▶ slot ──▶ pread of its record ──▶ lease
 *     complete ──▶ DONE or RETRY record held until the next flush
 *     flush ──▶ a slice of compaction (copies staged) ──▶ staged adds, held records, fdatasync
 *               ──▶ the compacted segment deleted once empty
 *
 * ## Contract
 *
 * Everything in the Contract of `Frontier` (`src/frontier/frontier.ts`) holds, with the politeness
 * and order of `MemoryFrontier` exactly (the same `SlotFrontier`). In addition:
 *
 * - **Lifecycle.** The constructor allocates and checks the options. `open(dir)` opens (or creates)
 *   the log in `dir`, recovers it (below) and resolves; called again with the same `dir` it returns
 *   the same promise. `close()` flushes, closes the files and is idempotent. Other calls before
 *   `open()` has resolved, `open()` with another `dir`, and any call after `close()`, throw (or
 *   reject with) an `Error` naming the method: a lifecycle bug in the caller. One process owns the
 *   directory.
 * - **Memory.** Per held URL: its slot (42 bytes, allocated 65,536 at a time) and its cell in the
 *   fingerprint index (6–12 bytes); per host with URLs, a small record; the staging buffer of the
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
 *   Every URL comes back queued (leases in flight are void), with the priority and place among
 *   equal priorities it was added with, and its attempt count as of F. So a page fetched before the
 *   crash is fetched again only if its lease was out at F or was issued after F. A node that flushes
 *   its page store and URL-seen set before the frontier, at each checkpoint, therefore never loses a
 *   page and never skips a URL.
 * - **flush()** writes and fdatasyncs synchronously: the promise it returns is already settled.
 *   When the log holds more dead bytes than live ones (and more than a segment), it first copies
 *   the live records of the oldest segment to the active one, at most `compactBytesPerFlush` per
 *   flush, so that the one fdatasync covers the copies too; once every live record has left that
 *   segment, it is deleted after the fdatasync.
 * - **Re-prioritizing** (`Reprioritizable`) changes the order in memory only: after a restart a
 *   URL has the priority it was added with again, until its ordering policy learns it anew.
 * - **Politeness across a restart.** Next-contact times and back-off counts live in memory only.
 *   After opening a log that held URLs, no host is contacted before the first `nowMs` the frontier
 *   sees plus `resumeDelayMs`, so a host fetched just before the crash is not hit again at once.
 * - **Identity.** URLs are told apart by their 64-bit fingerprint, as in the URL-seen set.
 * - **Failure.** A storage error throws `ShoalError` `IO` (`FRONTIER_CORRUPT` for a damaged record
 *   other than a torn tail); the frontier then refuses every further call with it, because memory and
 *   disk may disagree: stop the node and resume.
 * - **Determinism.** The same calls on the same log give the same answers.
 *
 * ## Sources
 *
 * Seed 001 (the Mercator frontier, "use of disk" for scale without saying how); SPEC §2 item 5 and
 * §8. Keeping every URL's scheduling keys in memory and the rest in an append-only journal read by
 * location is ours.
 */
import { ShoalError } from '../core/errors.js';
import { FingerprintMap } from '../core/fingerprint-map.js';
import { grown } from '../core/grown.js';
import {
  leaseOf, politenessRules,
  type CompletionReport, type Frontier, type FrontierEntry, type FrontierStats, type Lease, type NextResult, type Reprioritizable,
} from '../frontier/frontier.js';
import { NEXT_EMPTY, NEXT_WAIT, SlotFrontier, type SlotFrontierOptions } from '../frontier/slot-frontier.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import { FrontierLog, addRecordProblem, splitLocation, type AddRecord, type ScannedRecord } from './frontier-log.js';

/** Default size at which a new log segment starts: 64 MiB. */
export const DEFAULT_SEGMENT_BYTES = 64 * 2 ** 20;
/** Default compaction per flush: 8 MiB of the oldest segment read, its live records copied. */
const DEFAULT_COMPACT_BYTES_PER_FLUSH = 8 * 2 ** 20;

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
  /** From `open()`: URLs found held, and completions found final. */
  readonly recoveredUrls: number;
  readonly recoveredCompletions: number;
}

const EMPTY: NextResult = { kind: 'empty' };
const NAME = 'PersistentFrontier';

/** The crash-safe frontier; see the file comment for the Contract. */
export class PersistentFrontier implements Frontier, Reprioritizable {
  private readonly core: SlotFrontier;
  private readonly resumeDelayMs: number;
  private readonly segmentBytes: number;
  private readonly compactBytesPerFlush: number;
  private readonly stageBytes: number;

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
  private compacting: { segment: number; offset: number } | null = null;
  private compactedRecords = 0;
  private deletedSegments = 0;
  private recoveredUrls = 0;
  private recoveredCompletions = 0;
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
    if (!(Number.isInteger(this.stageBytes) && this.stageBytes >= 1)) throw new RangeError(`frontier: stageBytes must be an integer >= 1, got ${this.stageBytes}`);
    if (!(Number.isFinite(this.resumeDelayMs) && this.resumeDelayMs >= 0)) throw new RangeError(`frontier: resumeDelayMs must be a finite number >= 0, got ${this.resumeDelayMs}`);
    for (const [name, value] of [['segmentBytes', this.segmentBytes], ['compactBytesPerFlush', this.compactBytesPerFlush]] as const) {
      if (!(Number.isInteger(value) && value >= 4096)) throw new RangeError(`frontier: ${name} must be an integer >= 4096, got ${value}`);
    }
  }

  /** Opens (or creates) the log in `dir` and recovers it. Idempotent for the same `dir`. */
  open(dir: string): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError('open', 'is closed; open a new one'));
    if (this.opening !== null) {
      return dir === this.dir ? this.opening : Promise.reject(lifecycleError('open', `is already open on ${String(this.dir)}, not ${dir}`));
    }
    this.dir = dir;
    this.opening = (async () => {
      const recovered = new Recovery();
      this.log = FrontierLog.open(dir, (r) => recovered.take(r), { stageBytes: this.stageBytes });
      this.recoveredCompletions = recovered.completions;
      recovered.replay((r, location, bytes) => {
        const slot = this.core.add(r.hi, r.lo, r.host, r.ip, r.priority, 0, r.seq, r.attempt);
        this.place(slot, location, bytes);
      });
      this.recoveredUrls = this.core.slots.size;
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
      if (this.failure === null) log.close();
      else log.abandon();
    })();
    return this.closing;
  }

  /** Compacts a slice and makes every add, completion and copy so far durable; see the Contract. */
  async flush(): Promise<void> {
    const log = this.check('flush');
    this.guard(() => {
      const emptied = this.compactSlice(log);
      log.flush(this.segmentBytes);
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
        hi, lo, seq, priority: entry.priority, attempt: 1, depth: entry.depth, host: entry.host, url: entry.url,
        ip: entry.ip ?? null, fromUrl: fromUrlOf(entry), isSitemap: entry.isSitemap === true,
      };
      // Checked before the slot exists, so that a record that cannot be written leaves no slot behind;
      // a URL held already is refused as a duplicate first, whatever its strings.
      const problem = addRecordProblem(record);
      if (problem !== null) {
        if (this.core.slotOf(hi, lo) >= 0) return false;
        throw new RangeError(problem);
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
        log.holdRetry(hi, lo, seq, t.attemptOf(slot));
      } else {
        log.holdDone(hi, lo, seq);
        this.liveBytes -= bytes;
      }
    });
  }

  reprioritize(url: string, priority: number): boolean {
    this.check('reprioritize');
    urlFingerprintInto(url, this.fp);
    return this.core.reprioritize(this.fp[0] as number, this.fp[1] as number, priority);
  }

  reprioritizeFingerprint(hi: number, lo: number, priority: number): boolean {
    this.check('reprioritize');
    return this.core.reprioritize(hi, lo, priority);
  }

  reprioritizeFingerprints(count: number, his: ArrayLike<number>, los: ArrayLike<number>, priorities: ArrayLike<number>): number {
    this.check('reprioritize');
    return this.core.reprioritizeMany(count, his, los, priorities);
  }

  inFlight(): readonly Lease[] {
    return Array.from(this.leases.values(), (record) => record.lease);
  }

  /** Every URL held (queued or in flight), best first, with its attempt count. Reads each record from the log. */
  *entries(): Generator<{ readonly entry: FrontierEntry; readonly attempt: number }> {
    const log = this.check('entries');
    const t = this.core.slots;
    const slots: number[] = [];
    this.core.forEachQueued((slot) => slots.push(slot));
    for (const { slot } of this.leases.values()) slots.push(slot);
    slots.sort((a, b) => t.priorityOf(b) - t.priorityOf(a) || t.seqOf(a) - t.seqOf(b));
    for (const slot of slots) yield { entry: this.readEntry(log, slot).entry, attempt: t.attemptOf(slot) };
  }

  stats(): PersistentFrontierStats {
    const log = this.log;
    return {
      ...this.core.stats(),
      liveBytes: this.liveBytes,
      logBytes: log === null ? 0 : log.totalBytes(),
      segments: log === null ? 0 : log.segmentNumbers.length,
      compactedRecords: this.compactedRecords,
      deletedSegments: this.deletedSegments,
      recoveredUrls: this.recoveredUrls,
      recoveredCompletions: this.recoveredCompletions,
    };
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
      throw new ShoalError('FRONTIER_CORRUPT', `frontier log ${String(this.dir)}: segment ${segment} offset ${offset} holds ${r.url}, not the URL queued there`);
    }
    const entry: FrontierEntry = {
      url: r.url, host: r.host, depth: r.depth, priority: r.priority,
      ...(r.ip === null ? {} : { ip: r.ip }), ...(r.fromUrl === null ? {} : { fromUrl: r.fromUrl }), ...(r.isSitemap ? { isSitemap: true } : {}),
    };
    return { entry, bytes };
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
      this.compacting = { segment: segments[0] as number, offset: 0 };
    }
    const c = this.compacting;
    const t = this.core.slots;
    c.offset = log.scanAdds(c.segment, c.offset, this.compactBytesPerFlush, (r: AddRecord, location: number) => {
      const slot = this.core.slotOf(r.hi, r.lo);
      if (slot < 0 || t.refOf(slot) !== location || t.seqOf(slot) !== r.seq) return;
      const copy = log.appendAdd({ ...r, attempt: t.attemptOf(slot) });
      t.setRef(slot, copy.location);
      this.compactedRecords++;
    });
    if (c.offset < log.segmentEnd(c.segment)) return null;
    this.compacting = null;
    return c.segment;
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

/** What recovery passes on for each live URL: what `SlotFrontier.add` needs, and where its record is. */
interface RecoveredUrl {
  readonly hi: number;
  readonly lo: number;
  readonly host: string;
  readonly ip: string | undefined;
  readonly priority: number;
  readonly seq: number;
  readonly attempt: number;
}

/**
 * The state a log's records describe, rebuilt in one pass: per fingerprint, the latest add whose
 * seq no DONE record has named. Columns of typed arrays, one row per ADD record seen (no URL
 * strings: a resumed frontier of a million URLs does not hold a million strings even while it
 * recovers); host names are interned.
 */
class Recovery {
  completions = 0;
  private readonly rows = new FingerprintMap(1 << 16);
  private count = 0;
  private hi = new Uint32Array(1 << 16);
  private lo = new Uint32Array(1 << 16);
  private priority = new Float64Array(1 << 16);
  private seq = new Float64Array(1 << 16);
  private attempt = new Uint16Array(1 << 16);
  private location = new Float64Array(1 << 16);
  private bytes = new Uint32Array(1 << 16);
  private host = new Int32Array(1 << 16);
  private isLive = new Uint8Array(1 << 16);
  private readonly hostIndex = new Map<string, number>();
  private readonly hostNames: string[] = [];
  private readonly hostIp: (string | undefined)[] = [];

  take(r: ScannedRecord): void {
    if (r.kind === 'add') {
      const a = r.record;
      const row = this.rows.get(a.hi, a.lo);
      if (row >= 0 && this.isLive[row] === 1 && this.seq[row] === a.seq) {
        // A copy made by compaction: the record moved.
        this.location[row] = r.location;
        this.attempt[row] = Math.max(this.attempt[row] as number, a.attempt);
        return;
      }
      const i = this.grow();
      let h = this.hostIndex.get(a.host);
      if (h === undefined) {
        h = this.hostNames.length;
        this.hostIndex.set(a.host, h);
        this.hostNames.push(a.host);
        this.hostIp.push(undefined);
      }
      if (a.ip !== null) this.hostIp[h] = a.ip;
      this.hi[i] = a.hi;
      this.lo[i] = a.lo;
      this.priority[i] = a.priority;
      this.seq[i] = a.seq;
      this.attempt[i] = a.attempt;
      this.location[i] = r.location;
      this.bytes[i] = r.bytes;
      this.host[i] = h;
      this.isLive[i] = 1;
      if (row >= 0) this.isLive[row] = 0;
      this.rows.set(a.hi, a.lo, i);
      return;
    }
    const row = this.rows.get(r.hi, r.lo);
    if (row < 0 || this.isLive[row] !== 1 || this.seq[row] !== r.seq) return;
    if (r.kind === 'done') {
      this.isLive[row] = 0;
      this.completions++;
    } else {
      this.attempt[row] = r.attempt;
    }
  }

  /** Calls back for every live URL in add order (seq), with its latest attempt and location. */
  replay(f: (r: RecoveredUrl, location: number, bytes: number) => void): void {
    const live: number[] = [];
    for (let i = 0; i < this.count; i++) if (this.isLive[i] === 1) live.push(i);
    live.sort((a, b) => (this.seq[a] as number) - (this.seq[b] as number));
    for (const i of live) {
      const h = this.host[i] as number;
      f({
        hi: this.hi[i] as number, lo: this.lo[i] as number, host: this.hostNames[h] as string, ip: this.hostIp[h],
        priority: this.priority[i] as number, seq: this.seq[i] as number, attempt: this.attempt[i] as number,
      }, this.location[i] as number, this.bytes[i] as number);
    }
  }

  /** A new row; every column has room for it. */
  private grow(): number {
    const i = this.count++;
    if (i === this.seq.length) {
      const need = i + 1;
      this.hi = grown(this.hi, need);
      this.lo = grown(this.lo, need);
      this.priority = grown(this.priority, need);
      this.seq = grown(this.seq, need);
      this.attempt = grown(this.attempt, need);
      this.location = grown(this.location, need);
      this.bytes = grown(this.bytes, need);
      this.host = grown(this.host, need);
      this.isLive = grown(this.isLive, need);
    }
    return i;
  }
}

/** The page an entry was found on, as the log stores it. */
function fromUrlOf(entry: FrontierEntry): string | null {
  return typeof entry.fromUrl === 'string' ? entry.fromUrl : null;
}

function lifecycleError(method: string, state: string): Error {
  return new Error(`${NAME}.${method}(): the frontier ${state}`);
}
