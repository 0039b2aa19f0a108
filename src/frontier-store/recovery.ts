/**
 * Recovery of the frontier log (`frontier-log.ts`) for `PersistentFrontier`: the state its records
 * describe, rebuilt in one pass over every segment when the frontier opens.
 */
import { FingerprintMap } from '../core/fingerprint-map.js';
import { withRoomFor } from '../core/typed-arrays.js';
import type { ScannedRecord } from './frontier-log.js';

/** What recovery passes on for each live URL: what `SlotFrontier.add` needs, and where its record is. */
export interface RecoveredUrl {
  readonly hi: number;
  readonly lo: number;
  readonly host: string;
  readonly ip: string | undefined;
  /** Its latest priority: the last PRIORITY record's after its add (or copy), else its record's. */
  readonly priority: number;
  /** Whether `priority` came from a PRIORITY record, so differs from the one its ADD record holds. */
  readonly isReprioritized: boolean;
  readonly seq: number;
  readonly attempt: number;
  /** Whether the URL names a sitemap (its ADD record's flag). */
  readonly isSitemap: boolean;
}

/**
 * The state a log's records describe, rebuilt in one pass: per fingerprint, the latest add whose
 * seq no DONE record has named, with the priority of the last PRIORITY record that followed it, or
 * its add's (compaction writes a PRIORITY record after a copy whenever the URL's priority differs). Columns of typed arrays, one row per ADD record seen (no URL
 * strings: a resumed frontier of a million URLs does not hold a million strings even while it
 * recovers); host names are interned.
 */
export class Recovery {
  completions = 0;
  /** Live URLs whose priority a PRIORITY record set (counted in {@link replay}). */
  reprioritized = 0;
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
  private isSitemap = new Uint8Array(1 << 16);
  private isReprioritized = new Uint8Array(1 << 16);
  private readonly hostIndex = new Map<string, number>();
  private readonly hostNames: string[] = [];
  private readonly hostIp: (string | undefined)[] = [];

  take(r: ScannedRecord): void {
    if (r.kind === 'add') {
      const a = r.record;
      const row = this.rows.get(a.hi, a.lo);
      if (row >= 0 && this.isLive[row] === 1 && this.seq[row] === a.seq) {
        // A copy made by compaction: the record moved. It holds the priority of the add; a later
        // PRIORITY record follows it when the URL's was another (persistent-frontier.ts).
        this.location[row] = r.location;
        this.attempt[row] = Math.max(this.attempt[row] as number, a.attempt);
        this.priority[row] = a.priority;
        this.isReprioritized[row] = 0;
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
      this.isSitemap[i] = a.isSitemap ? 1 : 0;
      this.isReprioritized[i] = 0;
      if (row >= 0) this.isLive[row] = 0;
      this.rows.set(a.hi, a.lo, i);
      return;
    }
    const row = this.rows.get(r.hi, r.lo);
    if (r.kind === 'priority') {
      // It names the live add of its fingerprint at this point of the log, if there is one.
      if (row < 0 || this.isLive[row] !== 1) return;
      this.priority[row] = r.priority;
      this.isReprioritized[row] = 1;
      return;
    }
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
      const isReprioritized = this.isReprioritized[i] === 1;
      if (isReprioritized) this.reprioritized++;
      f(
        {
          hi: this.hi[i] as number,
          lo: this.lo[i] as number,
          host: this.hostNames[h] as string,
          ip: this.hostIp[h],
          priority: this.priority[i] as number,
          isReprioritized,
          seq: this.seq[i] as number,
          attempt: this.attempt[i] as number,
          isSitemap: this.isSitemap[i] === 1,
        },
        this.location[i] as number,
        this.bytes[i] as number,
      );
    }
  }

  /** A new row; every column has room for it. */
  private grow(): number {
    const i = this.count++;
    if (i === this.seq.length) {
      const need = i + 1;
      this.hi = withRoomFor(this.hi, need);
      this.lo = withRoomFor(this.lo, need);
      this.priority = withRoomFor(this.priority, need);
      this.seq = withRoomFor(this.seq, need);
      this.attempt = withRoomFor(this.attempt, need);
      this.location = withRoomFor(this.location, need);
      this.bytes = withRoomFor(this.bytes, need);
      this.host = withRoomFor(this.host, need);
      this.isLive = withRoomFor(this.isLive, need);
      this.isSitemap = withRoomFor(this.isSitemap, need);
      this.isReprioritized = withRoomFor(this.isReprioritized, need);
    }
    return i;
  }
}
