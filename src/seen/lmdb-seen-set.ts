/**
 * `seen: lmdb` — the URL-seen test on disk, for sets larger than memory: an LMDB environment whose
 * keys are the fingerprints (8 bytes, big-endian, so key order is numeric order) with empty values,
 * behind a {@link FingerprintCache} of popular fingerprints.
 *
 * A batch goes the way Mercator's does (seed 001, "Disk-Based Hash for UST?"):
 *  1. each fingerprint is looked up in the cache; a hit is "seen" and costs no disk access;
 *  2. then in the pending set: fingerprints written but not yet committed (below);
 *  3. the rest are sorted by key and looked up in LMDB in that order, one sweep down the B-tree
 *     instead of a seek per URL in arrival order. The sort is a stable radix sort, so equal keys
 *     keep their input order and the first occurrence in the batch is the one reported new;
 *  4. absent fingerprints are put, and go into the cache and the pending set.
 *
 * Why a pending set: lmdb-js writes asynchronously. Puts are committed by its write thread, and
 * all puts made while a commit is under way go into the next transaction. That group commit is
 * what makes inserts fast: with random keys a transaction rewrites about one leaf page per key it
 * adds, so fewer, larger transactions write far less. Reads see committed data only, so a
 * fingerprint stays in the pending set (a {@link MemorySeenSet}) from its put until its
 * transaction has committed; past `maxPendingEntries` a batch waits for a commit first.
 *
 * Memory is bounded whatever the set's size: the cache (fixed at construction), the pending set
 * (at most `maxPendingEntries` plus one batch) and scratch arrays the size of the largest batch.
 * LMDB's pages are memory-mapped: the OS keeps as many in its page cache as it can spare, counted
 * in the process's RSS but given back under memory pressure.
 *
 * Costs to know: lookups that miss the OS page cache read the disk on the main thread (key order
 * keeps those reads short seeks); a batch of n cache misses holds the event loop for about
 * n × 2–4 µs, so batches of at most 10,000 are advised. On disk, the tree takes about 25 bytes per
 * fingerprint; the file grows to 2–3 times that, because with random keys each transaction copies
 * most leaf pages (copy-on-write) while readers may still use the old ones. One process owns the
 * directory.
 */
import { open, type RootDatabase } from 'lmdb';
import { ShoalError } from '../core/errors.js';
import { FingerprintCache } from './fingerprint-cache.js';
import { MemorySeenSet } from './memory-seen-set.js';
import {
  WORD_OFFSET, fingerprintWords, lifecycleError, splitFingerprint,
  type Fingerprints, type SeenSet, type SeenSetSpec,
} from './seen-set.js';

/** Options of {@link LmdbSeenSet}. */
export interface LmdbSeenSetOptions {
  /** Directory of the LMDB environment (created if missing; a dot in its name is fine). */
  readonly dir: string;
  /** Entries of the in-memory cache of popular fingerprints (9.25 bytes each). Default 1,048,576. */
  readonly cacheEntries?: number;
  /**
   * Fingerprints written but not yet committed beyond which a batch waits for a commit
   * (about 23 bytes each at most). Default 1,000,000.
   */
  readonly maxPendingEntries?: number;
}

/** Counters since `start()`: where answers came from. */
export interface LmdbSeenSetStats {
  /** Fingerprints answered by the cache. */
  readonly cacheHits: number;
  /** Fingerprints answered by the pending (written, not yet committed) set. */
  readonly pendingHits: number;
  /** Distinct fingerprints looked up in LMDB, and how many of them were there. */
  readonly diskLookups: number;
  readonly diskHits: number;
  /** Fingerprints inserted. */
  readonly inserted: number;
  /** Fingerprints the cache holds now, and its fixed size in bytes. */
  readonly cacheSize: number;
  readonly cacheBytes: number;
}

const NAME = 'LmdbSeenSet';
const DEFAULT_CACHE_ENTRIES = 1 << 20;
const DEFAULT_MAX_PENDING = 1_000_000;
const EMPTY_VALUE = Buffer.alloc(0);
const { hi: HI, lo: LO } = WORD_OFFSET;

function noop(): void {}

/** Disk-backed {@link SeenSet} with a cache in front; see the file comment. */
export class LmdbSeenSet implements SeenSet {
  readonly spec: SeenSetSpec;
  readonly isDurable = true;
  readonly dir: string;
  private readonly cache: FingerprintCache;
  private readonly maxPending: number;
  private db: RootDatabase<Buffer, Buffer> | null = null;
  private starting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private failure: ShoalError | null = null;
  private count = 0;
  /** Settles after every call made so far: calls run one after another, in call order. */
  private tail: Promise<void> = Promise.resolve();
  /** Written since the last seal; and sealed: written before `sealedCommit`'s transaction. */
  private pendingNew = new MemorySeenSet();
  private pendingSealed = new MemorySeenSet();
  private sealedCommit: Promise<void> | null = null;
  /** Commit promise of the latest put (lmdb-js hands one promise to all puts of a transaction). */
  private lastCommit: Promise<boolean> | null = null;
  private readonly key = Buffer.alloc(8);
  private order = new Uint32Array(0);
  private scratch = new Uint32Array(0);
  private readonly counts = new Uint32Array(256);
  private readonly counters = { cacheHits: 0, pendingHits: 0, diskLookups: 0, diskHits: 0, inserted: 0 };

  constructor(options: LmdbSeenSetOptions) {
    const cacheEntries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    const maxPending = options.maxPendingEntries ?? DEFAULT_MAX_PENDING;
    if (!Number.isInteger(maxPending) || maxPending < 1) throw new RangeError(`maxPendingEntries must be a positive integer, got ${maxPending}`);
    this.dir = options.dir;
    this.cache = new FingerprintCache({ maxEntries: cacheEntries });
    this.maxPending = maxPending;
    this.spec = { id: 'lmdb', params: { cacheEntries: this.cache.capacity, maxPendingEntries: maxPending } };
  }

  get size(): number {
    return this.count;
  }

  /** Opens (or creates) the environment. Idempotent. */
  start(): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError(NAME, 'start', 'closed'));
    this.starting ??= this.openStore();
    return this.starting;
  }

  async addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.check('addBatch');
    // A copy: the caller may reuse its array before this call's turn in the queue comes.
    const words = fingerprintWords(fingerprints).slice();
    return this.enqueue(async () => {
      await this.waitForRoom();
      return this.lookup(words, true);
    });
  }

  /**
   * Which of the fingerprints are in the set, without inserting any: `r[i] === 1` when `f[i]` is
   * (note: the opposite sense of {@link addBatch}'s "new"). Same path as `addBatch`: cache, pending,
   * then sorted disk lookups. Changes nothing, the cache's reference bits included.
   */
  async hasBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.check('hasBatch');
    const words = fingerprintWords(fingerprints).slice();
    return this.enqueue(() => this.lookup(words, false));
  }

  async has(fingerprint: bigint): Promise<boolean> {
    this.check('has');
    const [hi, lo] = splitFingerprint(fingerprint);
    return this.enqueue(() => {
      this.throwIfFailed();
      if (this.cache.peek(hi, lo) || this.isPending(hi, lo)) return true;
      return this.isOnDisk(hi, lo);
    });
  }

  /** Resolves once every fingerprint accepted before the call is committed and synced to disk. */
  async flush(): Promise<void> {
    this.check('flush');
    const db = this.db!;
    await this.enqueue(noop);
    this.throwIfFailed();
    await db.flushed;
    this.throwIfFailed();
  }

  /** Lets earlier calls finish, flushes, closes the environment. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Where answers came from since `start()`. */
  stats(): LmdbSeenSetStats {
    return { ...this.counters, cacheSize: this.cache.size, cacheBytes: this.cache.byteLength };
  }

  private async openStore(): Promise<void> {
    try {
      // noSubdir: false, or lmdb-js would take a directory named like `seen.v1` for a file name.
      // useWritemap: the write thread changes pages in the file mapping itself. Without it, LMDB
      // copies every page a transaction touches into malloc'd memory and keeps those buffers for
      // reuse: with random keys that is most leaf pages, so private memory grew with the set
      // (about +200 MB at 5M fingerprints) and inserts were a third slower.
      const db = open<Buffer, Buffer>(this.dir, {
        keyEncoding: 'binary', encoding: 'binary', noSubdir: false, useWritemap: true,
      });
      this.count = (db.getStats() as { entryCount?: number }).entryCount ?? 0;
      this.db = db;
    } catch (err) {
      throw new ShoalError('IO', `cannot open the seen set in ${this.dir}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  private async shutdown(): Promise<void> {
    await this.starting?.catch(noop);
    await this.tail;
    const db = this.db;
    if (db === null) return;
    try {
      if (this.failure === null) await db.flushed;
    } finally {
      await db.close();
      this.pendingNew.clear();
      this.pendingSealed.clear();
      this.cache.clear();
    }
  }

  private check(method: string): void {
    if (this.closing !== null) throw lifecycleError(NAME, method, 'closed');
    if (this.db === null) throw lifecycleError(NAME, method, 'not started');
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  private fail(err: unknown): void {
    this.failure ??= new ShoalError('IO',
      `seen set in ${this.dir}: an LMDB write failed; fingerprints reported new since the last flush may be lost`, { cause: err });
  }

  private enqueue<T>(task: () => T | Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.then(noop, noop);
    return run;
  }

  /** Backpressure: waits while too many written fingerprints await their commit. */
  private async waitForRoom(): Promise<void> {
    // A failed commit leaves `sealedCommit` settled for good: stop waiting on it.
    while (this.failure === null && this.sealedCommit !== null && this.pendingNew.size + this.pendingSealed.size >= this.maxPending) {
      await this.sealedCommit;
    }
    this.throwIfFailed();
  }

  /**
   * The batch path of the file comment. With `shouldInsert`, returns 1 for each first occurrence
   * of an absent fingerprint and inserts it; without, returns 1 for each present fingerprint.
   */
  private lookup(words: Uint32Array, shouldInsert: boolean): Uint8Array {
    this.throwIfFailed();
    const n = words.length >>> 1;
    const out = new Uint8Array(n);
    const present = shouldInsert ? 0 : 1;
    if (this.order.length < n) {
      this.order = new Uint32Array(n);
      this.scratch = new Uint32Array(n);
    }
    const c = this.counters;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const hi = words[2 * i + HI]!;
      const lo = words[2 * i + LO]!;
      if (shouldInsert ? this.cache.has(hi, lo) : this.cache.peek(hi, lo)) {
        c.cacheHits++;
        out[i] = present;
      } else if (this.isPending(hi, lo)) {
        c.pendingHits++;
        out[i] = present;
        if (shouldInsert) this.cache.add(hi, lo);
      } else {
        this.order[m++] = i;
      }
    }
    if (m === 0) return out;
    const sorted = radixSortByKey(this.order, this.scratch, m, words, this.counts);
    let commit: Promise<boolean> | null = null;
    try {
      for (let g = 0; g < m;) {
        const first = sorted[g]!;
        const hi = words[2 * first + HI]!;
        const lo = words[2 * first + LO]!;
        let end = g + 1;
        while (end < m && words[2 * sorted[end]! + HI] === hi && words[2 * sorted[end]! + LO] === lo) end++;
        c.diskLookups++;
        if (this.isOnDisk(hi, lo)) {
          c.diskHits++;
          if (shouldInsert) this.cache.add(hi, lo);
          else for (let j = g; j < end; j++) out[sorted[j]!] = 1;
        } else if (shouldInsert) {
          out[first] = 1;
          const p = this.db!.put(this.key, EMPTY_VALUE);
          if (p !== commit) {
            commit = p;
            p.then(noop, (err: unknown) => this.fail(err));
          }
          this.pendingNew.addWords(hi, lo);
          this.cache.add(hi, lo);
          this.count++;
          c.inserted++;
        }
        g = end;
      }
    } catch (err) {
      // Part of the batch may be written with no answer given: the set can no longer be trusted.
      this.fail(err);
      throw this.failure ?? err;
    } finally {
      if (commit !== null) {
        this.lastCommit = commit;
        this.seal();
      }
    }
    return out;
  }

  private isPending(hi: number, lo: number): boolean {
    return this.pendingNew.hasWords(hi, lo) || this.pendingSealed.hasWords(hi, lo);
  }

  /** Looks the fingerprint up in LMDB, leaving its key in `this.key` for a put that may follow. */
  private isOnDisk(hi: number, lo: number): boolean {
    this.key.writeUInt32BE(hi, 0);
    this.key.writeUInt32BE(lo, 4);
    return this.db!.doesExist(this.key);
  }

  /**
   * Moves the pending fingerprints into the sealed generation, to be dropped when the latest put's
   * transaction commits (lmdb-js commits in put order, so every sealed put is committed by then).
   * One sealed generation at a time; the next seal happens when it is dropped.
   */
  private seal(): void {
    if (this.sealedCommit !== null || this.pendingNew.size === 0 || this.lastCommit === null) return;
    const sealed = this.pendingNew;
    this.pendingNew = this.pendingSealed;
    this.pendingSealed = sealed;
    this.sealedCommit = this.lastCommit.then(() => {
      this.pendingSealed.clear();
      this.sealedCommit = null;
      this.seal();
    }, (err: unknown) => {
      this.fail(err);
    });
  }
}

/**
 * Sorts the indices `order[0..m)` by the unsigned 64-bit key of their word pair in `words`: a
 * least-significant-digit radix sort, 8 passes of one byte, stable so equal keys keep input order.
 * A pass whose byte is the same for every key is skipped. Returns whichever of `order` and
 * `scratch` holds the result. Linear time, where a comparison sort of 10,000 keys costs 5–10x more.
 */
function radixSortByKey(order: Uint32Array, scratch: Uint32Array, m: number, words: Uint32Array, counts: Uint32Array): Uint32Array {
  let src = order;
  let dst = scratch;
  for (let pass = 0; pass < 8; pass++) {
    const offset = pass < 4 ? LO : HI;
    const shift = (pass & 3) * 8;
    counts.fill(0);
    for (let j = 0; j < m; j++) counts[(words[2 * src[j]! + offset]! >>> shift) & 255]!++;
    if (counts[(words[2 * src[0]! + offset]! >>> shift) & 255] === m) continue;
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      const k = counts[b]!;
      counts[b] = sum;
      sum += k;
    }
    for (let j = 0; j < m; j++) {
      const i = src[j]!;
      dst[counts[(words[2 * i + offset]! >>> shift) & 255]!++] = i;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}
