/**
 * One append-only file of the crawl directory, written once here so that the crawl log, the page
 * metadata and the link graph share one discipline (SPEC §2 item 11, §8):
 *
 * - **Buffered, whole records.** `append` copies into one staging buffer; when the next record does
 *   not fit, the buffer goes to the kernel in one `write`. A write therefore holds whole records, and
 *   a `kill -9` can tear at most the last record (a write cut short by the signal).
 * - **Synchronous writes, asynchronous fsync.** The write of a full buffer is a copy into the page
 *   cache (tens of µs for 64 KiB), so it is done synchronously: records reach the kernel in program
 *   order, across files too (the link graph relies on that, see `dependsOn`), no queue grows when the
 *   disk is slow, and memory stays at one buffer per file. The fsync, which waits for the disk, runs
 *   on libuv's thread pool.
 * - **Durable points.** `flush()` writes the buffer and fsyncs: everything appended before the call
 *   survives a crash or a power loss. The file also fsyncs by itself once `syncEveryBytes` have been
 *   written since the last fsync, which bounds how far back a power loss can damage the file.
 * - **Repair on open.** `start()` cuts a torn tail: for line files, bytes after the last `\n`; for
 *   fixed-size records, a partial record; and, scanning forward from `repairScanBytes` before the end,
 *   everything from the first record the caller's validator rejects (a power loss can leave zeros or
 *   stale blocks in the part that was not yet fsynced). The scan is bounded so that opening a 10 GB
 *   log does not read 10 GB; the automatic fsync keeps the damage inside the scanned window.
 * - **Failure.** An I/O error makes every later call throw the same `ShoalError` (code `IO`): records
 *   already accepted may not be on disk, so the node stops and resumes from the file as repaired.
 *
 * One process writes a file at a time; readers may read it while it grows (they see whole records
 * up to the last write, and must ignore a trailing partial one: see `readLines` in `read-lines.ts`).
 */
import { closeSync, fstatSync, fsync, fsyncSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { syncDirectory } from './sync-dir.js';
import { readAt, validPrefixLength, type RecordFraming } from './tail-repair.js';

/** Re-exported: the framing is part of {@link AppendFileOptions}. */
export type { RecordFraming } from './tail-repair.js';

/** Options of {@link AppendFile}. */
export interface AppendFileOptions {
  readonly path: string;
  readonly framing: RecordFraming;
  /**
   * Bytes every file starts with (magic and version, or a TSV header line): written when the file is
   * created; a file that starts otherwise is refused. A file shorter than the header that is a prefix
   * of it (torn at creation) is started again. Default none.
   */
  readonly header?: Uint8Array;
  /**
   * Whether a complete record (without its `\n` for line files) is well formed. Called on the tail
   * scanned by `start()`; the file is cut before the first record it rejects. Default: every complete
   * record is accepted. Keep it lenient: what it rejects is deleted.
   */
  readonly isValidRecord?: (record: Buffer) => boolean;
  /**
   * Files whose appended bytes must reach the kernel, and the disk, before this file's: their
   * buffers are written out before this one's, and fsynced before it is. The link graph makes its
   * links depend on the URL dictionary and the anchor texts they point into.
   */
  readonly dependsOn?: readonly AppendFile[];
  /** Size of the staging buffer, in bytes. Default 64 KiB. */
  readonly bufferBytes?: number;
  /** Bytes written since the last fsync that trigger one in the background. Default 4 MiB; `Infinity`: only `flush()` and `close()` fsync. */
  readonly syncEveryBytes?: number;
  /**
   * How far before the end `start()` validates records, in bytes; `Infinity` validates the whole
   * file. Default 16 MiB: four times `syncEveryBytes`, so the part a power loss can damage is
   * scanned unless an fsync stalls while more than 12 MiB are appended.
   */
  readonly repairScanBytes?: number;
}

/** What {@link AppendFile.start} found. */
export interface AppendRepairReport {
  /** Whether the file was created (or started again after a torn header). */
  readonly isNew: boolean;
  /** Length of the file after repair, header included, in bytes. */
  readonly keptBytes: number;
  /** Bytes cut from its tail. */
  readonly droppedBytes: number;
}

/** Default {@link AppendFileOptions.bufferBytes}: 64 KiB. */
export const DEFAULT_BUFFER_BYTES = 64 * 1024;
/** Default {@link AppendFileOptions.syncEveryBytes}: 4 MiB. */
export const DEFAULT_SYNC_EVERY_BYTES = 4 * 1024 * 1024;
/** Default {@link AppendFileOptions.repairScanBytes}: 16 MiB. */
export const DEFAULT_REPAIR_SCAN_BYTES = 16 * 1024 * 1024;

const EMPTY: Buffer = Buffer.alloc(0);

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err === null ? resolve() : reject(err))));
}

/** Writes all of `buf` at the end of `fd` (opened O_APPEND), going on after a short write. */
function writeAllSync(fd: number, buf: Uint8Array): void {
  let at = 0;
  while (at < buf.length) at += writeSync(fd, buf, at, buf.length - at);
}

/**
 * An append-only, crash-safe file; see the file comment. Lifecycle: construct, `await start()`
 * (creates or repairs), `append` records, `flush()` at durable points, `close()` (idempotent).
 */
export class AppendFile {
  private readonly staging: Buffer;
  private readonly syncEveryBytes: number;
  private readonly repairScanBytes: number;
  private readonly dependsOn: readonly AppendFile[];
  private fd = -1;
  private state: 'new' | 'open' | 'closed' = 'new';
  /** Bytes in the staging buffer. */
  private used = 0;
  /** Length of the file as the kernel has it. */
  private written = 0;
  /** Length known to be durable. */
  private synced = 0;
  private syncing: Promise<void> | null = null;
  private failure: ShoalError | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: AppendFileOptions) {
    const bufferBytes = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
    this.syncEveryBytes = options.syncEveryBytes ?? DEFAULT_SYNC_EVERY_BYTES;
    this.repairScanBytes = options.repairScanBytes ?? DEFAULT_REPAIR_SCAN_BYTES;
    this.dependsOn = options.dependsOn ?? [];
    if (!Number.isInteger(bufferBytes) || bufferBytes < 16)
      throw new RangeError(`bufferBytes must be an integer >= 16, got ${bufferBytes}`);
    if (!(this.syncEveryBytes > 0)) throw new RangeError(`syncEveryBytes must be positive, got ${this.syncEveryBytes}`);
    if (!(this.repairScanBytes >= 0)) throw new RangeError(`repairScanBytes must be >= 0, got ${this.repairScanBytes}`);
    const { framing } = options;
    if (framing.kind === 'fixed' && !(Number.isInteger(framing.recordBytes) && framing.recordBytes > 0)) {
      throw new RangeError(`recordBytes must be a positive integer, got ${framing.recordBytes}`);
    }
    this.staging = Buffer.allocUnsafeSlow(bufferBytes);
  }

  /** The file's path. */
  get path(): string {
    return this.options.path;
  }

  /** Offset the next appended byte will have: the file's length once the buffer is written, header included. */
  get size(): number {
    return this.written + this.used;
  }

  /** Bytes appended and not yet known to be durable (buffered, written or being fsynced). */
  get unsyncedBytes(): number {
    return this.size - this.synced;
  }

  /** Creates the file, or repairs an existing one (see the file comment). Call once. */
  async start(): Promise<AppendRepairReport> {
    if (this.state !== 'new')
      throw new Error(`AppendFile.start(): ${this.path} is already ${this.state === 'open' ? 'started' : 'closed'}`);
    this.state = 'open';
    try {
      return this.openAndRepair();
    } catch (err) {
      this.state = 'closed';
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = -1;
      throw err instanceof ShoalError ? err : new ShoalError('IO', `cannot open ${this.path}`, { cause: err });
    }
  }

  private openAndRepair(): AppendRepairReport {
    const header = this.options.header ?? EMPTY;
    mkdirSync(dirname(this.path), { recursive: true });
    // 'a+': read (repair), append (O_APPEND: every write goes to the end, whatever was cut).
    this.fd = openSync(this.path, 'a+');
    const size = fstatSync(this.fd).size;
    let isNew = size === 0;
    if (size > 0 && size < header.length && Buffer.compare(readAt(this.fd, 0, size), header.subarray(0, size)) === 0) {
      ftruncateSync(this.fd, 0); // the process died while creating the file
      isNew = true;
    } else if (size > 0 && !readAt(this.fd, 0, Math.min(size, header.length)).equals(header)) {
      throw new ShoalError(
        'IO',
        `${this.path} does not start with the expected header: it is not this kind of file, or of another format version`,
      );
    }
    if (isNew) {
      if (header.length > 0) writeAllSync(this.fd, header);
      fsyncSync(this.fd);
      syncDirectory(dirname(this.path));
      this.written = this.synced = header.length;
      return { isNew: true, keptBytes: header.length, droppedBytes: size };
    }
    const kept = validPrefixLength(this.fd, this.options.framing, this.options.isValidRecord, header.length, size, this.repairScanBytes);
    if (kept < size) {
      ftruncateSync(this.fd, kept);
      fsyncSync(this.fd);
    }
    this.written = this.synced = kept;
    return { isNew: false, keptBytes: kept, droppedBytes: size - kept };
  }

  /**
   * Appends one record (or several whole ones). Strings are written as UTF-8. Throws the file's
   * `ShoalError` after an I/O failure, and an `Error` before `start()` or after `close()`.
   */
  append(data: string | Uint8Array): void {
    this.check('append');
    const room = this.staging.length - this.used;
    // A string of n UTF-16 units takes at most 3n bytes; most records fit without measuring them.
    if (typeof data === 'string' && data.length * 3 <= room) {
      this.used += this.staging.write(data, this.used, 'utf8');
      return;
    }
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length > room) this.writeOutNow();
    if (bytes.length >= this.staging.length) {
      this.writeOutNow(); // the dependencies' bytes first, even when the buffer was empty
      this.guard(() => writeAllSync(this.fd, bytes));
      this.afterWrite(bytes.length);
      return;
    }
    this.staging.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Hands the buffered records (and, first, those of the files this one depends on) to the kernel; no fsync. */
  writeOut(): void {
    this.check('writeOut');
    this.writeOutNow();
  }

  /**
   * Makes every record appended before this call durable (and, first, those of the files this one
   * depends on). Rejects with the file's `ShoalError` after an I/O failure.
   */
  async flush(): Promise<void> {
    this.check('flush');
    await this.flushNow();
  }

  /** Flushes and closes the file. Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    const wasOpen = this.state === 'open';
    this.closing = (async () => {
      if (!wasOpen) {
        this.state = 'closed';
        return;
      }
      try {
        if (this.failure === null) await this.flushNow();
      } finally {
        this.state = 'closed';
        // A file this one is a dependency of may have started an fsync: it must not outlive the fd.
        while (this.syncing !== null) await this.syncing;
        closeSync(this.fd);
        this.fd = -1;
      }
      if (this.failure !== null) throw this.failure;
    })();
    return this.closing;
  }

  private writeOutNow(): void {
    for (const d of this.openDependencies()) d.writeOutNow();
    if (this.used === 0) return;
    const n = this.used;
    this.guard(() => writeAllSync(this.fd, this.staging.subarray(0, n)));
    this.used = 0;
    this.afterWrite(n);
  }

  private async flushNow(): Promise<void> {
    this.writeOutNow();
    const target = this.written;
    while (this.synced < target) {
      await (this.syncing ?? this.startSync());
      if (this.failure !== null) throw this.failure;
    }
  }

  private afterWrite(n: number): void {
    this.written += n;
    if (this.written - this.synced >= this.syncEveryBytes && this.syncing === null) {
      // The background fsync records its failure; the next call on the file throws it.
      void this.startSync();
    }
  }

  /** Starts one fsync (of the dependencies first) covering what was written so far; never rejects. */
  private startSync(): Promise<void> {
    const target = this.written;
    const fd = this.fd;
    const run = (async () => {
      try {
        for (const d of this.openDependencies()) await d.flushNow();
        await fsyncAsync(fd);
        this.synced = Math.max(this.synced, target);
      } catch (err) {
        this.fail(err);
      } finally {
        this.syncing = null;
      }
    })();
    this.syncing = run;
    return run;
  }

  /** A dependency closed already was made durable by its `close()`: nothing of it is left to order. */
  private openDependencies(): AppendFile[] {
    return this.dependsOn.filter((d) => d.state === 'open');
  }

  private guard(write: () => void): void {
    try {
      write();
    } catch (err) {
      this.fail(err);
      throw this.failure;
    }
  }

  private fail(err: unknown): void {
    this.failure ??= err instanceof ShoalError ? err : new ShoalError('IO', `writing ${this.path} failed`, { cause: err });
  }

  private check(method: string): void {
    if (this.failure !== null) throw this.failure;
    if (this.state === 'open' && this.closing === null) return;
    const why = this.state === 'new' ? 'is not started; call and await start() first' : 'is closed';
    throw new Error(`AppendFile.${method}(): ${this.path} ${why}`);
  }
}
