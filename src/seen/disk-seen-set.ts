/**
 * `seen: disk` — the URL-seen test for sets larger than memory, as Mercator keeps it (seed 001,
 * "URL-Seen Test" and "Disk-Based Hash for UST?"): a sorted file of fingerprints on disk, the
 * fingerprints added since it was written in memory, and a cache of popular fingerprints in front.
 *
 *     addBatch ──▶ cache ──▶ buffer (memory, journaled) ──▶ sorted run on disk (pread, 4 KiB blocks)
 *                                   │ full
 *                                   ▼
 *                 merge: run + buffer ──▶ next run (written beside it, then renamed in)
 *
 * - **Sorted run** (`run-<k>.fps`): every fingerprint of the journals numbered below k, ascending, 8 bytes each (high
 *   and low word, little-endian), with a sparse index (`run-<k>.idx`: the first fingerprint of each
 *   block of 512), held in memory: 16 bytes per 512 fingerprints. A lookup finds its block in the
 *   index and reads those 4 KiB with pread; a batch is looked up in sorted order, so neighbours
 *   share a block read. The file is read, not memory-mapped: its pages sit in the OS page cache
 *   and do not count in the process's resident memory.
 * - **Buffer**: the fingerprints added since the run was written, in a {@link MemorySeenSet}, each
 *   also appended to the current journal (`journal-<j>.log`: blocks of fingerprints, each a framed
 *   record of `store/tail-repair.ts`, written and fdatasynced at `flush()`). At `bufferEntries` the
 *   buffer is frozen and merged with the run into run j + 1, in the background, 1 MiB at a time; new
 *   fingerprints go to a new buffer and journal j + 1 meanwhile. When run j + 1 is synced and renamed
 *   in, the old run and the journals below j + 1 are deleted.
 * - **Cache**: a {@link FingerprintCache} (CLOCK) of fingerprints seen often: most links of a crawl
 *   point at pages already seen, and those answers cost no disk read.
 *
 * Recovery (`start()`): the newest complete run k; every journal numbered k or more, read up to
 * the first block whose length or checksum does not hold (cut there); `*.tmp` files of a merge that
 * did not finish are deleted, so a crash during a merge loses nothing (the journals still hold the
 * buffer). Contract: that of `SeenSet` (`seen-set.ts`), durable. Calls run synchronously (a
 * batch's disk reads are preads from the page cache, a few µs each), so they take effect in call
 * order.
 *
 * Costs: memory = cache (9.25 bytes × `cacheEntries`) + buffer (11–23 bytes per buffered
 * fingerprint, twice that during a merge) + index (1/32 byte per fingerprint on disk); disk = 8 bytes
 * per fingerprint plus the journal. Each merge rewrites the run: over a crawl of n URLs with buffer
 * b, about n²/2b × 8 bytes are written (Mercator's trade-off; for n = 100 million and b = 1 million,
 * some 40 GB over the crawl, sequential; 160 GB with the default b of 262,144, which keeps the
 * buffer to a few MiB: raise it for crawls of tens of millions of URLs).
 */
import { releaseMemory } from '../core/release-memory.js';
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { syncDirectory } from '../store/sync-dir.js';
import { FRAME_BYTES, frameRecord, readFramed } from '../store/tail-repair.js';
import { FingerprintCache } from './fingerprint-cache.js';
import { MemorySeenSet } from './memory-seen-set.js';
import {
  BLOCK_BYTES,
  BLOCK_ENTRIES,
  RUN_RE,
  below,
  indexName,
  openSortedRun,
  runName,
  writeMergedRun,
  type SortedRun,
} from './sorted-run.js';
import {
  WORD_OFFSET,
  fingerprintWords,
  lifecycleError,
  splitFingerprint,
  type Fingerprints,
  type SeenSet,
  type SeenSetSpec,
} from './seen-set.js';

/** Options of {@link DiskSeenSet}. */
export interface DiskSeenSetOptions {
  /** Directory of the run, its index and the journals (created if missing). */
  readonly dir: string;
  /** Entries of the in-memory cache of popular fingerprints (9.25 bytes each). Default {@link DEFAULT_CACHE_ENTRIES}. */
  readonly cacheEntries?: number;
  /** Fingerprints held in memory before they are merged into the sorted run. Default {@link DEFAULT_BUFFER_ENTRIES}. */
  readonly bufferEntries?: number;
}

/** Where answers came from since `start()`. */
export interface DiskSeenSetStats {
  readonly cacheHits: number;
  readonly bufferHits: number;
  /** Distinct fingerprints looked up in the run, and how many were there. */
  readonly runLookups: number;
  readonly runHits: number;
  /** 4 KiB blocks read from the run. */
  readonly blockReads: number;
  readonly inserted: number;
  readonly merges: number;
  /** Fingerprints in the sorted run, and in memory (buffer, and the one being merged). */
  readonly runSize: number;
  readonly buffered: number;
  /** Fingerprints the cache holds now, and its fixed size in bytes. */
  readonly cacheSize: number;
  readonly cacheBytes: number;
}

const NAME = 'DiskSeenSet';
/** Default {@link DiskSeenSetOptions.cacheEntries}: 262,144 fingerprints (2.3 MiB). */
export const DEFAULT_CACHE_ENTRIES = 1 << 18;
/** Default {@link DiskSeenSetOptions.bufferEntries}: 262,144 fingerprints (3–6 MiB, twice that during a merge). */
export const DEFAULT_BUFFER_ENTRIES = 1 << 18;
const { hi: HI, lo: LO } = WORD_OFFSET;
const JOURNAL_RE = /^journal-(\d+)\.log$/;
const journalName = (g: number): string => `journal-${String(g).padStart(6, '0')}.log`;

/** Disk-backed {@link SeenSet} with a cache in front; see the file comment. */
export class DiskSeenSet implements SeenSet {
  readonly spec: SeenSetSpec;
  readonly isDurable = true;
  readonly dir: string;
  private readonly cache: FingerprintCache;
  private readonly bufferEntries: number;
  private run: SortedRun | null = null;
  private closedRunCount = 0;
  private buffer = new MemorySeenSet();
  /** The buffer being merged into the next run; null when no merge runs. */
  private frozen: MemorySeenSet | null = null;
  private merging: Promise<void> | null = null;
  /** The journal new fingerprints go to (numbered 1, 2, ...), its file and its length. */
  private journalNumber = 0;
  private journalFd = -1;
  private journalBytes = 0;
  private pending: number[] = [];
  private starting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private isStarted = false;
  private failure: ShoalError | null = null;
  private readonly block = new Uint32Array(BLOCK_ENTRIES * 2);
  private readonly blockBytes = Buffer.from(this.block.buffer);
  private blockAt = -1;
  private blockRun: SortedRun | null = null;
  private blockCount = 0;
  private readonly counters = { cacheHits: 0, bufferHits: 0, runLookups: 0, runHits: 0, blockReads: 0, inserted: 0, merges: 0 };

  constructor(options: DiskSeenSetOptions) {
    const cacheEntries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    this.bufferEntries = options.bufferEntries ?? DEFAULT_BUFFER_ENTRIES;
    if (!Number.isInteger(this.bufferEntries) || this.bufferEntries < 1)
      throw new RangeError(`bufferEntries must be a positive integer, got ${this.bufferEntries}`);
    this.dir = options.dir;
    this.cache = new FingerprintCache({ maxEntries: cacheEntries });
    this.spec = { id: 'disk', params: { cacheEntries: this.cache.capacity, bufferEntries: this.bufferEntries } };
  }

  /** Distinct fingerprints in the set (still answered after `close()`). */
  get size(): number {
    return this.runCount + this.buffer.size + (this.frozen?.size ?? 0);
  }

  /** Fingerprints in the sorted run (kept when the run is closed). */
  private get runCount(): number {
    return this.run?.count ?? this.closedRunCount;
  }

  /** Opens (or creates) the directory and recovers it. Idempotent. */
  start(): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError(NAME, 'start', 'closed'));
    this.starting ??= (async () => {
      this.guard(() => this.recover());
      this.isStarted = true;
    })();
    return this.starting;
  }

  async addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.check('addBatch');
    const words = fingerprintWords(fingerprints);
    const out = this.guard(() => this.lookup(words, true));
    if (this.buffer.size >= this.bufferEntries && this.merging === null) this.startMerge();
    return out;
  }

  /**
   * Which of the fingerprints are in the set, without inserting any: `r[i] === 1` when `f[i]` is
   * (the opposite sense of {@link addBatch}'s "new"). Changes nothing, the cache included.
   */
  async hasBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    this.check('hasBatch');
    const words = fingerprintWords(fingerprints);
    return this.guard(() => this.lookup(words, false));
  }

  async has(fingerprint: bigint): Promise<boolean> {
    this.check('has');
    const [hi, lo] = splitFingerprint(fingerprint);
    return this.guard(
      () => this.cache.peek(hi, lo) || this.buffer.hasWords(hi, lo) || this.frozen?.hasWords(hi, lo) === true || this.runHas(hi, lo),
    );
  }

  /** Writes the journal's new fingerprints and fdatasyncs it: every fingerprint accepted so far survives a crash. */
  async flush(): Promise<void> {
    this.check('flush');
    this.guard(() => this.syncJournal());
  }

  /** Lets a merge under way finish, flushes and closes the files. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      await this.merging?.catch(() => undefined);
      if (!this.isStarted) return;
      try {
        if (this.failure === null) this.syncJournal();
      } finally {
        if (this.journalFd >= 0) closeSync(this.journalFd);
        if (this.run !== null) closeSync(this.run.fd);
        this.journalFd = -1;
        this.closedRunCount = this.run?.count ?? 0;
        this.run = null;
        this.cache.clear();
      }
    })();
    return this.closing;
  }

  /** Waits for a merge under way (tests and benchmarks). */
  async settled(): Promise<void> {
    await this.merging;
  }

  stats(): DiskSeenSetStats {
    return {
      ...this.counters,
      runSize: this.run?.count ?? 0,
      buffered: this.buffer.size + (this.frozen?.size ?? 0),
      cacheSize: this.cache.size,
      cacheBytes: this.cache.byteLength,
    };
  }

  /** The batch path: cache, buffers, then the run in sorted order. */
  private lookup(words: Uint32Array, shouldInsert: boolean): Uint8Array {
    const n = words.length >>> 1;
    const out = new Uint8Array(n);
    // Pass 1: answers from memory; the rest wait for the run.
    const toRun: number[] = [];
    for (let i = 0; i < n; i++) {
      const hi = words[2 * i + HI] as number;
      const lo = words[2 * i + LO] as number;
      if (shouldInsert ? this.cache.has(hi, lo) : this.cache.peek(hi, lo)) {
        this.counters.cacheHits++;
        if (!shouldInsert) out[i] = 1;
        continue;
      }
      if (this.buffer.hasWords(hi, lo) || this.frozen?.hasWords(hi, lo) === true) {
        this.counters.bufferHits++;
        if (shouldInsert) this.cache.add(hi, lo);
        else out[i] = 1;
        continue;
      }
      toRun.push(i);
    }
    // Pass 2: the run, in key order, so that neighbours share a block read.
    const onRun = new Uint8Array(n);
    if (this.run !== null && toRun.length > 0) {
      toRun.sort((a, b) => {
        const ha = words[2 * a + HI] as number;
        const hb = words[2 * b + HI] as number;
        return ha !== hb ? ha - hb : (words[2 * a + LO] as number) - (words[2 * b + LO] as number);
      });
      let prevHi = -1;
      let prevLo = -1;
      let prevAnswer = false;
      for (const i of toRun) {
        const hi = words[2 * i + HI] as number;
        const lo = words[2 * i + LO] as number;
        if (hi !== prevHi || lo !== prevLo) {
          this.counters.runLookups++;
          prevAnswer = this.runHas(hi, lo);
          if (prevAnswer) this.counters.runHits++;
          prevHi = hi;
          prevLo = lo;
        }
        if (prevAnswer) onRun[i] = 1;
      }
      toRun.sort((a, b) => a - b);
    }
    // Pass 3, in input order: the first occurrence of a fingerprint in neither is new.
    for (const i of toRun) {
      const hi = words[2 * i + HI] as number;
      const lo = words[2 * i + LO] as number;
      if (onRun[i] === 1) {
        if (shouldInsert) this.cache.add(hi, lo);
        else out[i] = 1;
        continue;
      }
      if (!shouldInsert) continue;
      if (this.buffer.addWords(hi, lo)) {
        out[i] = 1;
        this.pending.push(hi, lo);
        this.counters.inserted++;
      }
      this.cache.add(hi, lo);
    }
    return out;
  }

  /** Whether the sorted run holds (hi, lo): one block read at most (none when the block is the last one read). */
  private runHas(hi: number, lo: number): boolean {
    const run = this.run;
    if (run === null) return false;
    const b = run.blockOf(hi, lo);
    if (b < 0) return false;
    if (this.blockAt !== b || this.blockRun !== run) {
      const got = readSync(run.fd, this.blockBytes, 0, BLOCK_BYTES, b * BLOCK_BYTES);
      this.counters.blockReads++;
      this.blockCount = got >>> 3;
      this.blockAt = b;
      this.blockRun = run;
    }
    const w = this.block;
    let low = 0;
    let high = this.blockCount - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const h = w[2 * mid] as number;
      const l = w[2 * mid + 1] as number;
      if (h === hi && l === lo) return true;
      if (below(hi, lo, h, l)) high = mid - 1;
      else low = mid + 1;
    }
    return false;
  }

  /** Appends the pending fingerprints to the journal as one checksummed block, then fdatasyncs. */
  private syncJournal(): void {
    this.writePending();
    fdatasyncSync(this.journalFd);
  }

  private writePending(): void {
    if (this.pending.length === 0) return;
    const block = Buffer.alloc(FRAME_BYTES + 4 * this.pending.length);
    for (let i = 0; i < this.pending.length; i++) block.writeUInt32LE(this.pending[i] as number, FRAME_BYTES + 4 * i);
    this.pending = [];
    frameRecord(block, 0, block.length);
    let done = 0;
    while (done < block.length) done += writeSync(this.journalFd, block, done, block.length - done, this.journalBytes + done);
    this.journalBytes += block.length;
  }

  /** Freezes the buffer and merges it into the next run in the background. */
  private startMerge(): void {
    const run = this.run;
    const next = this.journalNumber + 1;
    // The frozen fingerprints' journal is made whole and durable; new ones go to journal `next`.
    this.syncJournal();
    closeSync(this.journalFd);
    this.openJournal(next, true);
    this.frozen = this.buffer;
    this.buffer = new MemorySeenSet();
    this.counters.merges++;
    this.merging = this.merge(run, this.frozen, next).then(
      () => {
        this.merging = null;
      },
      (err: unknown) => {
        this.merging = null;
        this.failure ??=
          err instanceof ShoalError
            ? err
            : new ShoalError('IO', `${NAME}: merging into ${runName(next)} in ${this.dir}: ${(err as Error).message}`, { cause: err });
      },
    );
  }

  private async merge(run: SortedRun | null, frozen: MemorySeenSet, next: number): Promise<void> {
    const words = frozen.sortedWords();
    const merged = await writeMergedRun(this.dir, run, words, next);
    this.run = merged;
    this.frozen = null;
    // Both have lived through the merge's writes, long enough to reach the old generation.
    releaseMemory(words);
    await frozen.close();
    if (run !== null) {
      closeSync(run.fd);
      unlinkSync(join(this.dir, runName(run.generation)));
      unlinkSync(join(this.dir, indexName(run.generation)));
    }
    for (const g of journalGenerations(this.dir)) if (g < next) unlinkSync(join(this.dir, journalName(g)));
    syncDirectory(this.dir);
  }

  /** Opens the newest complete run and replays the journals from its generation on. */
  private recover(): void {
    mkdirSync(this.dir, { recursive: true });
    const names = readdirSync(this.dir);
    for (const name of names) if (name.endsWith('.tmp')) unlinkSync(join(this.dir, name));
    const runs = names
      .flatMap((name) => {
        const m = RUN_RE.exec(name);
        return m !== null && names.includes(indexName(Number(m[1]))) ? [Number(m[1])] : [];
      })
      .sort((a, b) => a - b);
    const generation = runs.at(-1) ?? 0;
    if (generation > 0) this.run = openSortedRun(this.dir, generation);
    for (const g of runs) {
      if (g < generation) {
        unlinkSync(join(this.dir, runName(g)));
        unlinkSync(join(this.dir, indexName(g)));
      }
    }
    const journals = journalGenerations(this.dir);
    for (const g of journals) if (g < generation) unlinkSync(join(this.dir, journalName(g)));
    const live = journals.filter((g) => g >= generation);
    for (const g of live) this.replayJournal(g, g === live.at(-1));
    if (live.length === 0) this.openJournal(Math.max(generation, 1), true);
    else this.openJournal(live.at(-1) as number, false);
    // Journals older than the last one hold fingerprints a merge had frozen when the crash came: they wait in the buffer.
  }

  /** Loads journal `g` into the buffer; cuts a torn tail when it is the newest. */
  private replayJournal(g: number, isNewest: boolean): void {
    const path = join(this.dir, journalName(g));
    const fd = openSync(path, 'r+');
    try {
      const size = fstatSync(fd).size;
      const bytes = Buffer.alloc(size);
      if (size > 0) readSync(fd, bytes, 0, size, 0);
      let at = 0;
      for (let framed = readFramed(bytes, at); framed.kind === 'record' && framed.body.length % 8 === 0; framed = readFramed(bytes, at)) {
        const payload = framed.body;
        for (let p = 0; p < payload.length; p += 8) this.buffer.addWords(payload.readUInt32LE(p), payload.readUInt32LE(p + 4));
        at += FRAME_BYTES + payload.length;
      }
      if (at < size) {
        if (!isNewest)
          throw new ShoalError(
            'IO',
            `${NAME}: ${journalName(g)} in ${this.dir} is damaged at byte ${at} (only the newest journal may end torn)`,
          );
        ftruncateSync(fd, at);
        fdatasyncSync(fd);
      }
    } finally {
      closeSync(fd);
    }
  }

  private openJournal(g: number, isNew: boolean): void {
    const path = join(this.dir, journalName(g));
    this.journalFd = openSync(path, isNew ? 'w' : 'r+');
    this.journalBytes = isNew ? 0 : fstatSync(this.journalFd).size;
    this.journalNumber = g;
    if (isNew) syncDirectory(this.dir);
  }

  private check(method: string): void {
    if (this.failure !== null) throw this.failure;
    if (this.closing !== null) throw lifecycleError(NAME, method, 'closed');
    if (!this.isStarted) throw lifecycleError(NAME, method, 'not started');
  }

  /** Runs a step; a storage failure makes the set refuse every later call (answers given may not be on disk). */
  private guard<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      const failure =
        err instanceof ShoalError ? err : new ShoalError('IO', `${NAME} in ${this.dir}: ${(err as Error).message}`, { cause: err });
      this.failure = failure;
      throw failure;
    }
  }
}

function journalGenerations(dir: string): number[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = JOURNAL_RE.exec(name);
      return m === null ? [] : [Number(m[1])];
    })
    .sort((a, b) => a - b);
}
