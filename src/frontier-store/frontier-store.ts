/**
 * The frontier's LMDB environment: every URL the frontier holds, the leases out, the completions
 * not yet made final, and an index of the hosts waiting for a back queue. `persistent-frontier.ts`
 * decides what to keep in memory; this file decides how it sits on disk and what a crash leaves.
 *
 * Tables (named databases of one environment; key layouts in `frontier-keys.ts`):
 *
 * | table         | key                   | value                        | holds                                        |
 * |---------------|-----------------------|------------------------------|----------------------------------------------|
 * | `urls`        | host·0·priority·seq   | [url, depth, ip, attempt, fromUrl, isSitemap] | every URL held, queued or in flight |
 * | `fingerprint` | URL fingerprint       | URL key                      | which URLs are held (the duplicate test)     |
 * | `done`        | URL key               | URL fingerprint              | completions since the last flush: tombstones |
 * | `leases`      | URL key               | leasedAtMs                   | leases out                                   |
 * | `hosts`       | rank·host             | (empty)                      | hosts waiting for a back queue, best first   |
 * | `host-rank`   | host                  | rank of its `hosts` key      | to move a host up when a better URL arrives  |
 * | `resident`    | host                  | (empty)                      | hosts holding a back queue (not in `hosts`)  |
 * | `meta`        | name                  | format, next seq             |                                              |
 *
 * Crash safety comes from two rules. Writes reach LMDB in the order they were made, in atomic
 * transactions ({@link PendingWrites}), so what a crash leaves is the state after some operation.
 * (Each commit is a synchronous LMDB transaction ending with an fdatasync on the calling thread, so a
 * committed state survives power loss too, as far as the disk honours it.)
 * And a completion only writes a tombstone: the URL's record stays until the next flush deletes
 * record and tombstone together, in the flush's own transaction. Opening the store after a crash
 * therefore revives every tombstone (the completions the crash made void) and drops the lease records
 * (those URLs are simply queued again); a revived URL whose host had given up its back queue puts the
 * host back in the host index (`store-tables.ts` has both walks). Then it commits, so the state found
 * is the new starting point. The hosts that held back queues keep them: the frontier reads their
 * first pages when it starts.
 *
 * Reads never wait for a commit: point lookups go through the pending writes first, and the two range
 * reads (a host's next page, the best waiting host) merge the pending writes with what LMDB returns.
 * Commits happen only when `maxPendingWrites` writes are pending, and at a flush.
 *
 * URLs are told apart by their 64-bit fingerprint (`src/url/fingerprint.ts`), as in the URL-seen
 * set: two URLs with one fingerprint are one URL here too.
 */
import { open, type RootDatabase } from 'lmdb';

/** Address space reserved for the frontier's LMDB map (not disk, not memory): 16 GiB. */
const FRONTIER_MAP_BYTES = 16 * 1024 ** 3;
import { ShoalError } from '../core/errors.js';
import type { FrontierEntry } from '../frontier/frontier.js';
import { HostHeap, NOT_IN_HEAP, type HeapSlot } from '../frontier/host-heap.js';
import {
  RANK_BYTES, decodeUrlKey, hostBytesOf, hostEnd, hostIndexKey, hostOfIndexKey, hostStart, keyAfter,
} from './frontier-keys.js';
import { PendingWrites, REMOVED } from './pending-writes.js';
import { EMPTY, openTables, recoverTables, sweepTombstones, type StoreTables, type Table, type UrlValue } from './store-tables.js';

/** A URL as read back from the store. */
export interface StoredUrl {
  readonly key: Buffer;
  readonly entry: FrontierEntry;
  readonly seq: number;
  readonly attempt: number;
}

/** What opening the store found and repaired. */
export interface RecoveryReport {
  /** Leases out when the store was last used: their URLs are queued again. */
  readonly recoveredLeases: number;
  /** Completions not made final by a flush: their URLs are queued again. */
  readonly restoredCompletions: number;
  /** URLs held after recovery (all queued). */
  readonly queued: number;
}

/** Bumped when the layout changes; a store of another format is refused, not misread. */
const FORMAT = 1;

/** A key in a heap. */
interface KeySlot extends HeapSlot {
  readonly key: Buffer;
}

/** The frontier's tables in one LMDB environment; see the file comment. */
export class FrontierStore {
  readonly dir: string;
  private readonly t: StoreTables;
  private readonly maxPendingWrites: number;
  private readonly pending = new PendingWrites();
  /** URL keys written since the last commit, by host: merged into range reads of that host. */
  private readonly pendingUrlKeys = new Map<string, Buffer[]>();
  /** Host-index keys put since the last commit, best first (some may have been removed again). */
  private readonly pendingHostKeys = new HostHeap<KeySlot>((a, b) => Buffer.compare(a.key, b.key) < 0);
  /** Committed host-index keys below this one are all removed by pending writes: scans start here. */
  private hostScanFrom: Buffer | null = null;
  private nextSeq: number;
  private indexedHosts: number;
  private commits = 0;

  private constructor(dir: string, root: RootDatabase<unknown, string>, maxPendingWrites: number) {
    this.dir = dir;
    this.t = openTables(root);
    this.maxPendingWrites = maxPendingWrites;
    const format = root.get('format');
    if (format !== undefined && format !== FORMAT) {
      throw new ShoalError('IO', `frontier store in ${dir} has format ${String(format)}; this shoal reads format ${FORMAT}`);
    }
    this.nextSeq = (root.get('nextSeq') as number | undefined) ?? 0;
    this.indexedHosts = entryCount(this.t.hosts);
  }

  /**
   * Opens (or creates) the environment in `dir` and recovers it (see the file comment).
   * @throws ShoalError `IO` when the environment cannot be opened or is of another format.
   */
  static open(dir: string, maxPendingWrites: number): { store: FrontierStore; recovery: RecoveryReport } {
    let root: RootDatabase<unknown, string> | undefined;
    try {
      // noSubdir: false, or lmdb-js would take a directory named like `frontier.v1` for a file name.
      // No useWritemap: measured no faster here, and a stray write cannot reach the map.
      // A map set large at once: grown step by step, lmdb-js keeps every earlier mapping, and pages
      // touched through several of them counted several times in RSS (756 MiB resident for a
      // 383 MiB file at 1M URLs, against about the file's size with one mapping). Without
      // useWritemap the file grows with its data, not with the map; lmdb-js still grows the map
      // if a frontier outgrows it.
      root = open<unknown, string>(dir, { noSubdir: false, maxDbs: 12, mapSize: FRONTIER_MAP_BYTES });
      const store = new FrontierStore(dir, root, maxPendingWrites);
      let found = { recoveredLeases: 0, restoredCompletions: 0 };
      store.transact('recover', () => {
        found = recoverTables(store.t);
        store.t.root.putSync('format', FORMAT);
      });
      store.indexedHosts = entryCount(store.t.hosts);
      return { store, recovery: { ...found, queued: entryCount(store.t.urls) } };
    } catch (err) {
      void root?.close();
      if (err instanceof ShoalError) throw err;
      throw ioError(`cannot open the frontier store in ${dir}`, err);
    }
  }

  /** Writes not yet committed. */
  get pendingWrites(): number {
    return this.pending.size;
  }

  /** Hosts in the host index (waiting for a back queue). */
  get waitingHosts(): number {
    return this.indexedHosts;
  }

  /** Transactions committed since opening. */
  get commitCount(): number {
    return this.commits;
  }

  /** A fresh add-order number; the store remembers the next one across restarts. */
  takeSeq(): number {
    return this.nextSeq++;
  }

  /** The URL key of the held URL with this fingerprint, or undefined if no such URL is held. */
  heldKey(fingerprint: Buffer): Buffer | undefined {
    const key = this.read(this.t.fingerprints, fingerprint) as Buffer | undefined;
    if (key === undefined || this.read(this.t.done, key) !== undefined) return undefined;
    return key;
  }

  /** Writes a URL record; with `fingerprint`, also marks the URL held under this key. */
  putUrl(key: Buffer, entry: FrontierEntry, attempt: number, fingerprint?: Buffer): void {
    const value: UrlValue = [entry.url, entry.depth, entry.ip ?? null, attempt, entry.fromUrl ?? null, entry.isSitemap === true];
    this.pending.put(this.t.urls, key, value);
    if (fingerprint !== undefined) this.pending.put(this.t.fingerprints, fingerprint, key);
    const keys = this.pendingUrlKeys.get(entry.host);
    if (keys === undefined) this.pendingUrlKeys.set(entry.host, [key]);
    else keys.push(key);
  }

  /** Records a completion: a tombstone, made final (record deleted) by the next flush. */
  markDone(key: Buffer, fingerprint: Buffer): void {
    this.pending.put(this.t.done, key, fingerprint);
  }

  /** Records a lease of the URL under `key`. */
  putLease(key: Buffer, leasedAtMs: number): void {
    this.pending.put(this.t.leases, key, leasedAtMs);
  }

  /** Forgets the lease of the URL under `key` (it was completed). */
  deleteLease(key: Buffer): void {
    this.pending.remove(this.t.leases, key);
  }

  /** Puts `host` in the host index under `rank`, or moves it up if `rank` is better than its own. */
  indexHost(host: string, rank: Buffer): void {
    const hostKey = hostBytesOf(host);
    const current = this.read(this.t.hostRanks, hostKey) as Buffer | undefined;
    if (current !== undefined && Buffer.compare(current, rank) <= 0) return;
    if (current !== undefined) this.pending.remove(this.t.hosts, hostIndexKey(current, host));
    else this.indexedHosts++;
    const indexKey = hostIndexKey(rank, host);
    this.pending.put(this.t.hosts, indexKey, EMPTY);
    this.pendingHostKeys.push({ key: indexKey, heapIndex: NOT_IN_HEAP });
    this.pending.put(this.t.hostRanks, hostKey, rank);
  }

  /** Removes the host holding the best URL from the host index and returns it; undefined if none. */
  takeBestHost(): string | undefined {
    const best = this.bestHostKey();
    if (best === undefined) return undefined;
    const host = hostOfIndexKey(best);
    this.pending.remove(this.t.hosts, best);
    this.pending.remove(this.t.hostRanks, hostBytesOf(host));
    this.indexedHosts--;
    return host;
  }

  /** The rank of the best URL of any waiting host, or undefined when no host waits. */
  bestWaitingRank(): Buffer | undefined {
    return this.bestHostKey()?.subarray(0, RANK_BYTES);
  }

  /** Records whether `host` holds a back queue (so that a restart gives it one again). */
  setResident(host: string, isResident: boolean): void {
    if (isResident) this.pending.put(this.t.resident, hostBytesOf(host), EMPTY);
    else this.pending.remove(this.t.resident, hostBytesOf(host));
  }

  /**
   * The hosts that held a back queue when the store was last used, in key order. They get one again
   * first (so a restart picks up where the crawl was); the frontier moves any beyond its back-queue
   * count to the host index.
   */
  residentHosts(): string[] {
    this.commit();
    return this.io('read the resident hosts', () => Array.from(this.t.resident.getKeys({}), (key) => key.toString('utf8')));
  }

  /**
   * Up to `limit` queued URLs of `host` with keys above `after` (from its first when null), in key
   * order, leaving out tombstones and the URLs `isLeased` names; `hasMore` tells whether more follow.
   * Committed records and pending writes are merged, so no commit is needed first.
   */
  readHost(host: string, after: Buffer | null, limit: number, isLeased: (url: string) => boolean): { urls: StoredUrl[]; hasMore: boolean } {
    const fresh = (this.pendingUrlKeys.get(host) ?? []).filter((key) => after === null || Buffer.compare(key, after) > 0).sort(Buffer.compare);
    return this.io(`read the URLs of ${host}`, () => {
      const urls: StoredUrl[] = [];
      const committed = this.t.urls.getRange({ start: after === null ? hostStart(host) : keyAfter(after), end: hostEnd(host) })[Symbol.iterator]();
      try {
        let c = committed.next();
        let i = 0;
        for (;;) {
          const pendingKey = fresh[i];
          if (c.done === true && pendingKey === undefined) return { urls, hasMore: false };
          let key: Buffer;
          let value: unknown;
          if (pendingKey !== undefined && (c.done === true || Buffer.compare(pendingKey, c.value.key) <= 0)) {
            key = pendingKey;
            value = (this.pending.lookup(this.t.urls, key) as { value: unknown }).value;
            if (c.done !== true && key.equals(c.value.key)) c = committed.next();
            while (fresh[i] !== undefined && (fresh[i] as Buffer).equals(key)) i++;
          } else {
            const entry = c.value as { key: Buffer; value: unknown };
            key = entry.key;
            value = this.pending.lookup(this.t.urls, key)?.value ?? entry.value;
            c = committed.next();
          }
          const record = value as UrlValue;
          if (isLeased(record[0]) || this.read(this.t.done, key) !== undefined) continue;
          if (urls.length === limit) return { urls, hasMore: true };
          urls.push(storedUrl(key, record));
        }
      } finally {
        committed.return?.();
      }
    });
  }

  /** Commits when the pending writes have reached their limit. */
  commitIfFull(): void {
    if (this.pending.size >= this.maxPendingWrites) this.commit();
  }

  /** Commits every pending write in one transaction. */
  commit(): void {
    this.transact('commit', () => undefined);
  }

  /**
   * Commits every pending write and makes every completion so far final, in one transaction: the
   * flush point of the Contract. Synchronous, and synced to disk when it returns.
   */
  flush(): void {
    this.transact('flush', () => sweepTombstones(this.t, false));
  }

  /**
   * Every URL held, queued or in flight, in key order (host, then best first). For diagnostics and
   * tests: it commits first, and the store must not be written while the iteration runs.
   */
  *entries(): Generator<StoredUrl> {
    this.commit();
    for (const { key, value } of this.t.urls.getRange({})) {
      if (!this.t.done.doesExist(key)) yield storedUrl(key, value as UrlValue);
    }
  }

  /** Closes the environment; writes still pending are dropped (flush first). */
  async close(): Promise<void> {
    await this.t.root.close();
  }

  /**
   * The best key of the host index, committed or pending: the smallest pending put still in force,
   * or the first committed key no pending write removed, whichever is smaller.
   */
  private bestHostKey(): Buffer | undefined {
    let top = this.pendingHostKeys.peek();
    while (top !== undefined && this.pending.lookup(this.t.hosts, top.key)?.value !== EMPTY) {
      this.pendingHostKeys.pop();
      top = this.pendingHostKeys.peek();
    }
    const committed = this.io('read the host index', () => {
      for (const key of this.t.hosts.getKeys(this.hostScanFrom === null ? {} : { start: this.hostScanFrom })) {
        if (this.pending.lookup(this.t.hosts, key)?.value !== REMOVED) return key;
        // Every committed key before this one is removed too: later scans may start after it.
        this.hostScanFrom = keyAfter(key);
      }
      return undefined;
    });
    if (top === undefined) return committed;
    return committed === undefined || Buffer.compare(top.key, committed) < 0 ? top.key : committed;
  }

  /** Runs `work` in one synchronous write transaction after the pending writes, with the next seq. */
  private transact(what: string, work: () => void): void {
    this.io(what, () => {
      this.t.root.transactionSync(() => {
        this.pending.applyInTransaction();
        work();
        this.t.root.putSync('nextSeq', this.nextSeq);
      });
    });
    this.pendingUrlKeys.clear();
    this.pendingHostKeys.clear();
    this.hostScanFrom = null;
    this.commits++;
  }

  /** A point read through the pending writes. */
  private read(table: Table, key: Buffer): unknown {
    const pending = this.pending.lookup(table, key);
    if (pending !== undefined) return pending.value === REMOVED ? undefined : pending.value;
    return this.io('read', () => table.get(key));
  }

  private io<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw ioError(`frontier store in ${this.dir}: cannot ${what}`, err);
    }
  }
}

function storedUrl(key: Buffer, value: UrlValue): StoredUrl {
  const { host, priority, seq } = decodeUrlKey(key);
  const [url, depth, ip, attempt, fromUrl, isSitemap] = value;
  const entry: FrontierEntry = {
    url, host, depth, priority, ...(ip === null ? {} : { ip }), ...(typeof fromUrl === 'string' ? { fromUrl } : {}), ...(isSitemap === true ? { isSitemap } : {}),
  };
  return { key, entry, seq, attempt };
}

function entryCount(table: Table): number {
  return (table.getStats() as { entryCount?: number }).entryCount ?? 0;
}

function ioError(message: string, cause: unknown): ShoalError {
  return new ShoalError('IO', `${message}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
}
