/**
 * Writes WARC records to `<dir>/<prefix>-<YYYYMMDDhhmmss>-<serial>.warc.gz`, one gzip member per
 * record (WARC/1.1 Annex D), so any record can be read from its offset alone. A file is rotated once
 * it has passed `maxFileBytes`: the next record opens a new file that starts with a `warcinfo`
 * record, and a record is never split. Response and revisit records are also indexed in
 * `<dir>/index.cdxj` (see `cdxj.ts`).
 *
 * Order: records land in the file in the order `write` was called. `write` fixes a record's file at
 * once (its WARC-Warcinfo-ID names it) and its place in line; the record is compressed, either in the
 * calling thread ({@link gzipMember}, in `gzip-members.ts`) or by a {@link WarcCompressor} (the
 * node's worker threads), and takes its offset when every record before it has taken theirs. Rotation
 * counts the records still being compressed at their uncompressed size, so a file is rotated once the
 * bytes written and being written reach `maxFileBytes` (never later than with in-thread compression).
 *
 * Crash safety: appends go through one queue and one file handle in that order; `flush` fsyncs and
 * reports the durable length of everything written before it was called. After a `kill -9`,
 * {@link WarcWriter.start} cuts a torn last member ({@link repairWarcTail}), drops index lines that
 * point at what was cut, and indexes the records that reached the WARC but not the index.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ShoalError } from '../../core/errors.js';
import { cdxjEntry, cdxjEntryFromStored, cdxjLine, reconcileCdxj } from './cdxj.js';
import { gzipMember, repairWarcTail, scanMembers, type ByteRange, type GzipMember, type StoredMember } from './gzip-members.js';
import { encodeRecord, parseWarcHead, storedRange, warcinfoRecord, WarcType, type WarcField, type WarcRecord } from './warc-record.js';

/** The gzip-member functions moved to `gzip-members.ts`; re-exported here for existing importers. */
export { gzipMember, readGzipMember, repairWarcTail } from './gzip-members.js';

/**
 * Compresses records elsewhere (worker threads): one gzip member per record of the batch, in order.
 * A rejection is not fatal: the writer then compresses that batch itself.
 */
export type WarcCompressor = (records: readonly RecordBytes[], level: number) => Promise<readonly GzipMember[]>;

/** A record on its way to compression: its bytes in pieces, and the range of them that is compressed already (see {@link gzipMember}). */
export interface RecordBytes {
  readonly pieces: readonly Buffer[];
  readonly stored: ByteRange | null;
}

/** Options of {@link WarcWriter}. */
export interface WarcWriterOptions {
  /** Directory of the WARC files and `index.cdxj` (created if missing). */
  readonly dir: string;
  /** shoal's version, written as `software: shoal/<version>` in every warcinfo record. */
  readonly version: string;
  /** File name prefix, e.g. the node id. Default `shoal`. */
  readonly prefix?: string;
  /** A file is rotated once it has passed this size, in bytes. Default 1 GiB. */
  readonly maxFileBytes?: number;
  /** gzip level, 0 (store) to 9. Default 2 (the crawl configuration's default; see the README). */
  readonly compressionLevel?: number;
  /** Operator fields added to each warcinfo block (`operator`, `isPartOf`, `description`, `robots`, ...). */
  readonly warcinfoFields?: readonly WarcField[];
  /** Whether response and revisit records are indexed in `index.cdxj`. Default true. */
  readonly isIndexed?: boolean;
  /** Clock in ms (file names, warcinfo dates). Default Date.now. */
  readonly now?: () => number;
  /** Where records are compressed; default: in the calling thread, as `write` is called. */
  readonly compress?: WarcCompressor;
}

/** Where a record went: what the index and crash recovery need. */
export interface WarcWriteResult {
  readonly filename: string;
  /** Offset of the record's gzip member, bytes. */
  readonly offset: number;
  /** Compressed length of the member, bytes. */
  readonly length: number;
  readonly recordId: string;
}

/** What {@link WarcWriter.flush} made durable. */
export interface WarcFlushResult {
  /** The file being written, or null before the first record. */
  readonly filename: string | null;
  /** Its length on disk after fsync, bytes. */
  readonly durableBytes: number;
}

/** What {@link WarcWriter.start} found and repaired. */
export interface WarcResumeReport {
  /** The last existing file, or null for an empty directory. */
  readonly lastFile: string | null;
  readonly keptBytes: number;
  /** Bytes cut from its torn tail. */
  readonly droppedBytes: number;
  /** Index lines removed (torn, or pointing at what was cut). */
  readonly droppedIndexLines: number;
  /** Records indexed again because they reached the WARC file but not the index. */
  readonly reindexed: number;
  /** Whether new records are appended to `lastFile` (false: the next record opens a new file). */
  readonly isAppending: boolean;
}

/** Default `maxFileBytes`: 1 GiB, the customary WARC file size. */
export const DEFAULT_MAX_FILE_BYTES = 1024 ** 3;
/** The index file name in the WARC directory. */
export const INDEX_FILE = 'index.cdxj';

const FORMAT_FIELDS: readonly WarcField[] = [
  ['format', 'WARC File Format 1.1'],
  ['conformsTo', 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
];

interface OpenFile {
  readonly name: string;
  readonly path: string;
  /** Bytes assigned so far (written or queued). */
  size: number;
  /** Uncompressed bytes of the records placed in the file but still being compressed. */
  pendingBytes: number;
  readonly warcinfoId: string;
  /** Whether a record other than the warcinfo has been assigned to the file. */
  hasRecords: boolean;
  handle: FileHandle | null;
}

interface Deferred<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (err: unknown) => void;
}

type Op =
  | { readonly kind: 'open'; readonly file: OpenFile }
  | { readonly kind: 'append'; readonly file: OpenFile; readonly pieces: readonly Buffer[]; readonly done: (() => void) | null }
  | { readonly kind: 'index'; readonly line: Buffer }
  | { readonly kind: 'retire'; readonly file: OpenFile }
  | { readonly kind: 'sync'; readonly file: OpenFile | null; readonly result: WarcFlushResult; readonly done: Deferred<WarcFlushResult> }
  | { readonly kind: 'shutdown'; readonly done: Deferred<void> };

/** A record in line for its offset: placed in a file, compressed or being compressed. */
interface Placed {
  readonly kind: 'record';
  readonly file: OpenFile;
  readonly record: WarcRecord;
  readonly rawBytes: number;
  member: GzipMember | null;
  readonly resolve: (r: WarcWriteResult) => void;
}

/** Queue operations that must wait for the records written before them (rotation, flush, shutdown). */
interface Barrier {
  readonly kind: 'barrier';
  /** The operations, built when every record before the barrier has its offset. */
  readonly ops: () => Op[];
  /** Rejected if the writer fails before the barrier is reached. */
  readonly done: Deferred<never> | null;
}

type Step = Placed | Barrier;

function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** Appends buffers through `handle`, going on after a short write. */
async function writeAll(handle: FileHandle, buffers: readonly Buffer[]): Promise<void> {
  let rest = buffers.slice();
  while (rest.length > 0) {
    const chunk = rest.slice(0, 512); // stay under IOV_MAX
    let total = 0;
    for (const b of chunk) total += b.length;
    let { bytesWritten } = await handle.writev(chunk);
    if (bytesWritten === total) {
      rest = rest.slice(chunk.length);
      continue;
    }
    while (rest.length > 0 && bytesWritten >= (rest[0]?.length ?? 0)) bytesWritten -= rest.shift()?.length ?? 0;
    if (rest.length > 0 && bytesWritten > 0) rest[0] = (rest[0] as Buffer).subarray(bytesWritten);
  }
}

/**
 * The WARC store of one node. Lifecycle: construct, `await start()` (resume and repair), `write`
 * records (await each, or at least bound how many are pending), `flush()` when a durable point is
 * needed, `close()` (idempotent). After an I/O failure every pending and later call rejects with a
 * `ShoalError` of code `IO`.
 */
export class WarcWriter {
  private readonly prefix: string;
  private readonly maxFileBytes: number;
  private readonly level: number;
  private readonly isIndexed: boolean;
  private readonly now: () => number;
  private readonly indexPath: string;
  private current: OpenFile | null = null;
  private nextSerial = 1;
  private index: FileHandle | null = null;
  private readonly queue: Op[] = [];
  /** Records waiting for their offset, and the operations that must follow them, in call order. */
  private readonly steps: Step[] = [];
  /** Records of this turn of the event loop, for the compressor. */
  private batch: { placed: Placed; bytes: RecordBytes }[] | null = null;
  /** Rejections of the writes still in the queue, in order (so a failure can reach them). */
  private readonly pendingRejects: Array<(err: unknown) => void> = [];
  private isPumping = false;
  private state: 'new' | 'started' | 'closed' = 'new';
  private failure: ShoalError | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: WarcWriterOptions) {
    this.prefix = options.prefix ?? 'shoal';
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.level = options.compressionLevel ?? 2;
    this.isIndexed = options.isIndexed ?? true;
    this.now = options.now ?? Date.now;
    this.indexPath = join(options.dir, INDEX_FILE);
    if (!/^[A-Za-z0-9._-]+$/.test(this.prefix))
      throw new RangeError(`WARC prefix must be letters, digits, '.', '_' or '-': ${JSON.stringify(this.prefix)}`);
    if (!(this.maxFileBytes > 0)) throw new RangeError(`maxFileBytes must be positive, got ${this.maxFileBytes}`);
    if (!Number.isInteger(this.level) || this.level < 0 || this.level > 9)
      throw new RangeError(`compressionLevel must be 0..9, got ${this.level}`);
  }

  /** The file records currently go to, or null before the first record. */
  get filename(): string | null {
    return this.current?.name ?? null;
  }

  /**
   * Opens the directory. When it already holds files of this prefix (a resumed crawl), the last one
   * is repaired; new records are appended to it when it is one of ours and not yet full, and the index
   * is reconciled with it.
   */
  async start(): Promise<WarcResumeReport> {
    if (this.state !== 'new') throw new Error(`WarcWriter.start() on a writer that is already ${this.state}`);
    this.state = 'started';
    try {
      return await this.resume();
    } catch (err) {
      this.state = 'closed';
      throw err instanceof ShoalError ? err : new ShoalError('IO', `cannot open the WARC directory ${this.options.dir}`, { cause: err });
    }
  }

  private async resume(): Promise<WarcResumeReport> {
    const { dir } = this.options;
    mkdirSync(dir, { recursive: true });
    const pattern = new RegExp(`^${this.prefix.replace(/\./g, '\\.')}-\\d{14}-(\\d{5,})\\.warc\\.gz$`);
    let last: { name: string; serial: number } | null = null;
    for (const name of readdirSync(dir)) {
      const m = pattern.exec(name);
      if (m !== null && (last === null || Number(m[1]) > last.serial)) last = { name, serial: Number(m[1]) };
    }
    let report: WarcResumeReport = {
      lastFile: null,
      keptBytes: 0,
      droppedBytes: 0,
      droppedIndexLines: 0,
      reindexed: 0,
      isAppending: false,
    };
    if (last !== null) {
      const path = join(dir, last.name);
      const { keptBytes, droppedBytes } = repairWarcTail(path);
      report = { ...report, lastFile: last.name, keptBytes, droppedBytes };
      if (this.isIndexed) report = { ...report, ...this.reindex(last.name, keptBytes) };
      this.nextSerial = last.serial + 1;
      if (keptBytes === 0) {
        unlinkSync(path); // not even its warcinfo survived: start it again under the same serial
        this.nextSerial = last.serial;
      } else {
        report = { ...report, isAppending: this.reopen(last.name, keptBytes) };
      }
    }
    // Opened here rather than through the queue, so that a failure surfaces from start().
    if (this.current !== null) this.current.handle = await open(this.current.path, 'a');
    if (this.isIndexed) this.index = await open(this.indexPath, 'a');
    return report;
  }

  /** Re-adopts the last file when it starts with a warcinfo record and is not yet full. */
  private reopen(name: string, keptBytes: number): boolean {
    if (keptBytes >= this.maxFileBytes) return false;
    const path = join(this.options.dir, name);
    const fd = openSync(path, 'r');
    let first: StoredMember | null = null;
    try {
      const step = scanMembers(fd, 0, keptBytes).next();
      first = step.done === true ? null : step.value;
    } finally {
      closeSync(fd);
    }
    const head = first === null ? null : parseWarcHead(first.data);
    const id = head?.fields.get('warc-record-id');
    if (first === null || head?.fields.get('warc-type') !== WarcType.warcinfo || id === undefined) return false;
    this.current = { name, path, size: keptBytes, pendingBytes: 0, warcinfoId: id, hasRecords: keptBytes > first.length, handle: null };
    return true;
  }

  /** Reconciles the index with the repaired last file and indexes what it lacks. */
  private reindex(name: string, keptBytes: number): { droppedIndexLines: number; reindexed: number } {
    const { indexedEnd, droppedLines } = reconcileCdxj(this.indexPath, name, keptBytes);
    let reindexed = 0;
    let lines: string[] = [];
    const fd = openSync(join(this.options.dir, name), 'r');
    const out = openSync(this.indexPath, 'a');
    try {
      for (const m of scanMembers(fd, indexedEnd, keptBytes)) {
        const e = cdxjEntryFromStored(m.data, { filename: name, offset: m.offset, length: m.length });
        if (e === null) continue;
        lines.push(`${cdxjLine(e)}\n`);
        reindexed++;
        if (lines.length < 1024) continue;
        writeSync(out, lines.join(''));
        lines = [];
      }
      if (lines.length > 0) writeSync(out, lines.join(''));
      if (reindexed > 0) fsyncSync(out);
    } finally {
      closeSync(fd);
      closeSync(out);
    }
    return { droppedIndexLines: droppedLines, reindexed };
  }

  /**
   * Queues `record` for writing and resolves once its bytes are in the file (not yet fsynced; see
   * {@link flush}). Records land in call order; the file is fixed now, the offset once every record
   * before this one has its own (see the file comment).
   */
  write(record: WarcRecord): Promise<WarcWriteResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.state !== 'started')
      return Promise.reject(new Error(`WarcWriter.write() on a writer that is ${this.state === 'new' ? 'not started' : 'closed'}`));
    if (record.type === WarcType.warcinfo) return Promise.reject(new RangeError('the writer writes warcinfo records itself'));
    let file = this.current;
    if (file === null || (file.hasRecords && file.size + file.pendingBytes >= this.maxFileBytes)) file = this.rotate();
    const pieces = encodeRecord(record, file.warcinfoId);
    let rawBytes = 0;
    for (const p of pieces) rawBytes += p.length;
    const bytes: RecordBytes = { pieces, stored: storedRange(record, rawBytes) };
    file.pendingBytes += rawBytes;
    file.hasRecords = true;
    return new Promise<WarcWriteResult>((resolve, reject) => {
      this.pendingRejects.push(reject);
      const placed: Placed = { kind: 'record', file, record, rawBytes, member: null, resolve };
      this.steps.push(placed);
      if (this.options.compress === undefined) {
        placed.member = gzipMember(pieces, this.level, bytes.stored);
        this.advance();
      } else {
        this.toCompress(placed, bytes);
      }
    });
  }

  /** Adds a record to the batch sent to the compressor at the end of this turn of the event loop. */
  private toCompress(placed: Placed, bytes: RecordBytes): void {
    if (this.batch === null) {
      const batch: { placed: Placed; bytes: RecordBytes }[] = [];
      this.batch = batch;
      queueMicrotask(() => {
        this.batch = null;
        void this.compressBatch(batch);
      });
    }
    this.batch.push({ placed, bytes });
  }

  private async compressBatch(batch: readonly { placed: Placed; bytes: RecordBytes }[]): Promise<void> {
    let members: readonly GzipMember[] | null = null;
    try {
      members = await (this.options.compress as WarcCompressor)(
        batch.map((b) => b.bytes),
        this.level,
      );
      if (members.length !== batch.length) members = null;
    } catch {
      members = null; // compressed here instead
    }
    batch.forEach((b, i) => {
      b.placed.member = members?.[i] ?? gzipMember(b.bytes.pieces, this.level, b.bytes.stored);
    });
    this.advance();
  }

  /** Gives offsets to the records at the head of the line that are compressed, and queues them. */
  private advance(): void {
    while (this.steps.length > 0 && this.failure === null) {
      const step = this.steps[0] as Step;
      if (step.kind === 'barrier') {
        for (const op of step.ops()) this.enqueue(op);
      } else {
        const member = step.member;
        if (member === null) return;
        const file = step.file;
        const result: WarcWriteResult = { filename: file.name, offset: file.size, length: member.length, recordId: step.record.id };
        file.size += member.length;
        file.pendingBytes -= step.rawBytes;
        this.enqueue({ kind: 'append', file, pieces: member.pieces, done: () => step.resolve(result) });
        if (this.isIndexed) {
          const entry = cdxjEntry(step.record, result);
          if (entry !== null) this.enqueue({ kind: 'index', line: Buffer.from(`${cdxjLine(entry)}\n`, 'utf8') });
        }
      }
      this.steps.shift();
    }
  }

  /** Waits for every record written before this call, fsyncs the WARC file and the index, and reports the durable length. */
  flush(): Promise<WarcFlushResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.state !== 'started') return Promise.reject(new Error('WarcWriter.flush() on a writer that is not open'));
    // The file is captured now: a write after this call may rotate before the sync runs.
    const file = this.current;
    return new Promise((resolve, reject) => {
      const done: Deferred<WarcFlushResult> = { resolve, reject };
      this.barrier(() => [{ kind: 'sync', file, result: { filename: file?.name ?? null, durableBytes: file?.size ?? 0 }, done }], done);
    });
  }

  /** Writes what is queued, fsyncs and closes the files. Idempotent; rejects if the writer had failed. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    const wasStarted = this.state === 'started';
    this.state = 'closed';
    if (!wasStarted) this.closing = Promise.resolve();
    else if (this.failure !== null) this.closing = Promise.reject(this.failure);
    else {
      this.closing = new Promise((resolve, reject) => {
        const done: Deferred<void> = { resolve, reject };
        this.barrier(() => [{ kind: 'shutdown', done }], done);
      });
    }
    return this.closing;
  }

  /** Queues `ops` after every record written so far. */
  private barrier(ops: () => Op[], done: Deferred<never> | null): void {
    this.steps.push({ kind: 'barrier', ops, done });
    this.advance();
  }

  /** Plans a new file: the old one is fsynced and closed, the new one starts with its warcinfo. */
  private rotate(): OpenFile {
    const old = this.current;
    const ms = this.now();
    const name = `${this.prefix}-${fileStamp(ms)}-${String(this.nextSerial++).padStart(5, '0')}.warc.gz`;
    const info = warcinfoRecord({
      date: ms,
      filename: name,
      fields: [['software', `shoal/${this.options.version}`], ...FORMAT_FIELDS, ...(this.options.warcinfoFields ?? [])],
    });
    const member = gzipMember(encodeRecord(info), this.level);
    const file: OpenFile = {
      name,
      path: join(this.options.dir, name),
      size: member.length,
      pendingBytes: 0,
      warcinfoId: info.id,
      hasRecords: false,
      handle: null,
    };
    this.barrier(
      () => [
        ...(old === null ? [] : [{ kind: 'retire', file: old } as const]),
        { kind: 'open', file },
        { kind: 'append', file, pieces: member.pieces, done: null },
      ],
      null,
    );
    this.current = file;
    return file;
  }

  private enqueue(op: Op): void {
    this.queue.push(op);
    if (this.isPumping) return;
    this.isPumping = true;
    void this.pump();
  }

  /**
   * Runs the queue. A run of appends (to one file) and index lines becomes two writes: the records in
   * one writev, then their index lines in another, so a line never reaches the disk before its record.
   */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const op = this.queue[0] as Op;
        let n = 1;
        if (op.kind === 'append' || op.kind === 'index') {
          let file = op.kind === 'append' ? op.file : null;
          for (; n < this.queue.length; n++) {
            const next = this.queue[n] as Op;
            if (next.kind === 'index') continue;
            if (next.kind !== 'append' || (file !== null && next.file !== file)) break;
            file = next.file;
          }
        }
        const batch = this.queue.slice(0, n);
        await this.run(op, batch);
        this.queue.splice(0, n);
        for (const b of batch) {
          if (b.kind !== 'append' || b.done === null) continue;
          this.pendingRejects.shift();
          b.done();
        }
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.isPumping = false;
    }
  }

  private async run(op: Op, batch: readonly Op[]): Promise<void> {
    switch (op.kind) {
      case 'open':
        op.file.handle = await open(op.file.path, 'ax'); // a new file never overwrites one
        return;
      case 'append':
      case 'index': {
        const pieces: Buffer[] = [];
        const lines: Buffer[] = [];
        let file: OpenFile | null = null;
        for (const b of batch) {
          if (b.kind === 'index') lines.push(b.line);
          else if (b.kind === 'append') {
            file = b.file;
            for (const p of b.pieces) pieces.push(p);
          }
        }
        if (file !== null) await writeAll(file.handle as FileHandle, pieces);
        if (lines.length > 0) await writeAll(this.index as FileHandle, lines);
        return;
      }
      case 'retire':
        await op.file.handle?.sync();
        await op.file.handle?.close();
        op.file.handle = null;
        await this.index?.sync(); // the retired file's index lines are durable with it
        return;
      case 'sync':
        await op.file?.handle?.sync();
        await this.index?.sync();
        op.done.resolve(op.result);
        return;
      case 'shutdown':
        await this.closeHandles(true);
        op.done.resolve();
        return;
    }
  }

  private async closeHandles(isSyncing: boolean): Promise<void> {
    for (const h of [this.current?.handle, this.index]) {
      if (h === null || h === undefined) continue;
      if (isSyncing) await h.sync();
      await h.close();
    }
    if (this.current !== null) this.current.handle = null;
    this.index = null;
  }

  /** Rejects everything queued with one `IO` error; the files are left as they are (repair on resume). */
  private fail(err: unknown): void {
    const failure =
      err instanceof ShoalError ? err : new ShoalError('IO', `writing WARC files in ${this.options.dir} failed`, { cause: err });
    this.failure = failure;
    for (const reject of this.pendingRejects.splice(0)) reject(failure);
    for (const op of this.queue.splice(0)) {
      if (op.kind === 'sync' || op.kind === 'shutdown') op.done.reject(failure);
    }
    for (const step of this.steps.splice(0)) if (step.kind === 'barrier') step.done?.reject(failure);
    void this.closeHandles(false).catch(() => {
      // The writer has already failed with the first error; a second one while releasing adds nothing.
    });
  }
}
