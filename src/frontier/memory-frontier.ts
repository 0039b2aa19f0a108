/**
 * The Mercator frontier in memory (seed 001, SPEC §2 item 5): {@link SlotFrontier} does all the
 * scheduling (front queue, back queues, the heap of hosts, IP groups, delays, back-off); this class
 * keeps each held URL's `FrontierEntry` beside its slot and hands out `Lease` objects. URLs are told
 * apart by their 64-bit fingerprint (`url/fingerprint.ts`), as in the URL-seen set. `README.md` in
 * this folder tells the life of a URL through it.
 */
import {
  leaseOf,
  type CompletionReport,
  type Frontier,
  type FrontierEntry,
  type FrontierStats,
  type Lease,
  type NextResult,
  type Reprioritizable,
} from './frontier.js';
import { NEXT_EMPTY, NEXT_WAIT, SlotFrontier, type SlotFrontierOptions } from './slot-frontier.js';
import { urlFingerprintInto } from '../url/fingerprint.js';

export { backQueueCountFor } from './slot-frontier.js';

/** Options of {@link MemoryFrontier}; every field is optional. */
export type MemoryFrontierOptions = SlotFrontierOptions;

const EMPTY: NextResult = { kind: 'empty' };

/** The Mercator frontier held in memory; see the file comment. */
export class MemoryFrontier implements Frontier, Reprioritizable {
  private readonly core: SlotFrontier;
  /** The entry of each held slot. */
  private readonly entries: (FrontierEntry | undefined)[] = [];
  private readonly leases = new Map<number, { readonly lease: Lease; readonly slot: number }>();
  private readonly fp = new Uint32Array(2);
  private nextLeaseId = 1;

  /** @throws RangeError on an out-of-range option. */
  constructor(options: MemoryFrontierOptions = {}) {
    this.core = new SlotFrontier(options);
  }

  add(entry: FrontierEntry, nowMs: number): boolean {
    if (!Number.isFinite(entry.priority)) throw new RangeError(`frontier: priority must be finite, got ${entry.priority} for ${entry.url}`);
    urlFingerprintInto(entry.url, this.fp);
    const slot = this.core.add(this.fp[0] as number, this.fp[1] as number, entry.host, entry.ip, entry.priority, nowMs);
    if (slot < 0) return false;
    this.entries[slot] = entry;
    return true;
  }

  next(nowMs: number): NextResult {
    const slot = this.core.next(nowMs);
    if (slot === NEXT_EMPTY) return EMPTY;
    if (slot === NEXT_WAIT) return { kind: 'wait', untilMs: this.core.waitUntilMs };
    const lease = leaseOf(
      this.nextLeaseId++,
      this.entries[slot] as FrontierEntry,
      this.core.slots.attemptOf(slot),
      nowMs,
      this.core.leaseIpOf(slot),
    );
    this.leases.set(lease.id, { lease, slot });
    return { kind: 'url', lease };
  }

  endFetch(lease: Lease, report: CompletionReport, nowMs: number): void {
    const record = this.leases.get(lease.id);
    if (record === undefined) throw new Error(`frontier: lease ${lease.id} (${lease.entry.url}) is not in flight`);
    this.core.endFetch(record.slot, report, nowMs);
  }

  complete(lease: Lease, report: CompletionReport, nowMs: number): void {
    const record = this.leases.get(lease.id);
    if (record === undefined) throw new Error(`frontier: lease ${lease.id} (${lease.entry.url}) is not in flight`);
    const isKept = this.core.complete(record.slot, report, nowMs);
    this.leases.delete(lease.id);
    if (!isKept) this.entries[record.slot] = undefined;
  }

  reprioritize(url: string, priority: number): boolean {
    if (!Number.isFinite(priority)) throw new RangeError(`frontier: priority must be finite, got ${priority} for ${url}`);
    urlFingerprintInto(url, this.fp);
    return this.core.reprioritize(this.fp[0] as number, this.fp[1] as number, priority);
  }

  reprioritizeFingerprint(hi: number, lo: number, priority: number): boolean {
    return this.core.reprioritize(hi, lo, priority);
  }

  reprioritizeFingerprints(count: number, his: ArrayLike<number>, los: ArrayLike<number>, priorities: ArrayLike<number>): number {
    return this.core.reprioritizeMany(count, his, los, priorities);
  }

  inFlight(): readonly Lease[] {
    return Array.from(this.leases.values(), (record) => record.lease);
  }

  stats(): FrontierStats {
    return this.core.stats();
  }
}
