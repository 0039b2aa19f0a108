/**
 * The durable outbox of one node (SPEC §4.5, §8): every message the node sends is appended here, and
 * stays until the transport confirms it. A send therefore survives the sender's `kill -9` and a
 * broker that is down, without the sender ever waiting for the receiver.
 *
 * ## Files (in the node's outbox directory)
 *
 * - `<firstSeq, 16 digits>.outbox`: segments, each a run of records
 *   `[u32 length][u32 crc32][f64 seq][u32 to][bytes]`, little-endian, where `length` counts the bytes
 *   after the first eight (12 + the message's bytes) and the CRC-32 covers those same bytes (the
 *   framed records of `store/tail-repair.ts`). A new
 *   segment starts when the current one would pass `segmentBytes`, and at the first append after
 *   `open()` (a repaired file is never appended to). A segment whose entries are all confirmed, and
 *   that is no longer written, is deleted.
 * - `next-seq`: a decimal number V such that every sequence number ever handed out is below V
 *   (written atomically: temporary file, fsync, rename, fsync of the directory). It keeps sequence
 *   numbers increasing across restarts even when every segment was deleted. Sequence numbers are
 *   reserved in blocks of {@link SEQ_RESERVATION} (one synchronous fsync per block): a transport may
 *   publish a message before its entry is durable, so after a crash no number is given twice (a
 *   broker that drops repeated message ids, as JetStream does, would otherwise drop a new message
 *   that reused a number). A clean `close()` writes the exact next number, so after a clean restart
 *   `takeSeq()` continues at 1 + the highest seq taken; after a crash it jumps to the reservation.
 *
 * ## Crash safety
 *
 * `sync()` writes the appended records and fdatasyncs them; a segment is made durable before the next
 * one receives data, so only the last segment can have a torn or damaged tail. `open()` cuts the last
 * segment before its first bad record; a bad record in an earlier segment means the disk lost data
 * that was fsynced, and is an `IO` error naming the file and offset.
 *
 * Confirmations are not persisted one by one: `open()` returns every entry of the segments not yet
 * deleted, confirmed or not, and the transport sends them again (receivers are idempotent). What is
 * sent again after a restart is bounded by the segments that hold an unconfirmed entry.
 *
 * One process uses a directory at a time.
 */
import {
  closeSync,
  fdatasync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { syncDirectory } from '../store/sync-dir.js';
import { FRAME_BYTES, frameRecord, readFramed } from '../store/tail-repair.js';
import type { PartitionId } from '../partition/partitioner.js';

/** One message in the outbox. */
export interface OutboxEntry {
  readonly seq: number;
  readonly to: PartitionId;
  /** The message as `encodeMessage` wrote it. */
  readonly bytes: Uint8Array;
}

/** Options of {@link Outbox}. */
export interface OutboxOptions {
  /** The outbox directory (created if needed). */
  readonly dir: string;
  /** Size at which a new segment starts, in bytes. Default 8 MiB. */
  readonly segmentBytes?: number;
}

/** Default {@link OutboxOptions.segmentBytes}: 8 MiB. */
export const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;
/** How many sequence numbers `next-seq` reserves at a time (see the file comment). */
export const SEQ_RESERVATION = 65_536;

/** seq (f64) + to (u32). */
const FIXED_BODY_BYTES = 12;
const SEGMENT_NAME = /^(\d{16})\.outbox$/;
const NEXT_SEQ = 'next-seq';
const NEXT_SEQ_TEMP = 'next-seq.tmp';

interface Segment {
  readonly path: string;
  /** Bytes the file has once every pending record is written. */
  bytes: number;
  unconfirmed: number;
  /** Open for appending while records are being written, else -1. */
  fd: number;
  isOnDisk: boolean;
  isDeleted: boolean;
}

interface PendingRecord {
  readonly segment: Segment;
  readonly record: Buffer;
}

/**
 * The durable outbox; see the file comment. Lifecycle: construct, `await open()`, then `takeSeq` /
 * `append` / `sync` / `confirm`, then `close()`. Deleting a confirmed segment happens in the
 * background, in order with the writes: it is done when the next `sync()` resolves.
 */
export class Outbox {
  private readonly dir: string;
  private readonly segmentBytes: number;
  private state: 'new' | 'opening' | 'open' | 'closed' = 'new';
  private opening: Promise<unknown> | null = null;
  private closing: Promise<void> | null = null;
  /** Segments not deleted, by first seq; the last may be `current`. */
  private segments: Segment[] = [];
  private current: Segment | null = null;
  /** Each unconfirmed seq and its segment. */
  private readonly owners = new Map<number, Segment>();
  private pending: PendingRecord[] = [];
  private lastAppendedSeq = 0;
  private nextSeq = 1;
  /** Every seq handed out is below this number, which `next-seq` holds on disk. */
  private reservedLimit = 1;
  /** File work (writes, fsyncs, deletions) runs one task at a time, in call order. */
  private tail: Promise<void> = Promise.resolve();
  private failure: ShoalError | null = null;

  constructor(options: OutboxOptions) {
    this.dir = options.dir;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    if (!(Number.isSafeInteger(this.segmentBytes) && this.segmentBytes > 0))
      throw new RangeError(`segmentBytes must be a positive integer, got ${this.segmentBytes}`);
  }

  /** Entries appended and not yet confirmed. */
  get unconfirmed(): number {
    return this.owners.size;
  }

  /** Creates the directory if needed, repairs a torn tail, and returns the entries not yet confirmed, in seq order. */
  open(): Promise<readonly OutboxEntry[]> {
    if (this.state !== 'new') throw new Error(`Outbox.open(): ${this.dir} is already ${this.state}`);
    this.state = 'opening';
    const run = this.load().then(
      (entries) => {
        this.state = 'open';
        return entries;
      },
      (err: unknown) => {
        this.state = 'closed';
        throw err instanceof ShoalError ? err : new ShoalError('IO', `cannot open the outbox in ${this.dir}`, { cause: err });
      },
    );
    this.opening = run;
    return run;
  }

  /** The next sequence number: 1 + the highest ever taken or appended (see the file comment for crashes). */
  takeSeq(): number {
    this.check('takeSeq');
    if (this.nextSeq >= this.reservedLimit) this.reserve(this.nextSeq + SEQ_RESERVATION);
    return this.nextSeq++;
  }

  /** Appends an entry, buffered in memory until `sync()`. Seqs must increase. */
  append(entry: OutboxEntry): void {
    this.check('append');
    const { seq, to, bytes } = entry;
    if (!Number.isSafeInteger(seq) || seq <= this.lastAppendedSeq)
      throw new RangeError(`Outbox.append(): seq ${seq} is not above the last one, ${this.lastAppendedSeq}`);
    if (!Number.isInteger(to) || to < 0 || to > 0xffffffff) throw new RangeError(`Outbox.append(): partition ${to} is not a u32`);
    if (bytes.length > 0xffffffff - FIXED_BODY_BYTES) throw new RangeError(`Outbox.append(): ${bytes.length} bytes is too large`);
    const record = Buffer.allocUnsafe(FRAME_BYTES + FIXED_BODY_BYTES + bytes.length);
    record.writeDoubleLE(seq, FRAME_BYTES);
    record.writeUInt32LE(to, FRAME_BYTES + 8);
    record.set(bytes, FRAME_BYTES + FIXED_BODY_BYTES);
    frameRecord(record, 0, record.length);
    let segment = this.current;
    if (segment === null || (segment.bytes > 0 && segment.bytes + record.length > this.segmentBytes)) segment = this.rotate(seq);
    segment.bytes += record.length;
    segment.unconfirmed++;
    this.owners.set(seq, segment);
    this.pending.push({ segment, record });
    this.lastAppendedSeq = seq;
    if (seq >= this.reservedLimit) this.reserve(seq + 1 + SEQ_RESERVATION);
    if (seq >= this.nextSeq) this.nextSeq = seq + 1;
  }

  /** Writes what was appended and fdatasyncs; resolves once everything appended before the call is durable. */
  sync(): Promise<void> {
    if (this.closing !== null) return this.closing;
    this.check('sync');
    return this.enqueue(() => this.writePending());
  }

  /** Marks `seq` confirmed; deletes its segment once all of it is confirmed and it is not being written. Unknown seqs are ignored. */
  confirm(seq: number): void {
    if (this.state !== 'open' || this.closing !== null) return;
    const segment = this.owners.get(seq);
    if (segment === undefined) return;
    this.owners.delete(seq);
    segment.unconfirmed--;
    if (segment.unconfirmed === 0 && segment !== this.current) this.retire(segment);
  }

  /** Syncs, deletes fully confirmed segments, writes the exact `next-seq`, and closes. Idempotent. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    this.closing = (async () => {
      await this.opening?.catch(() => undefined);
      const isOpen = this.state === 'open';
      this.state = 'closed'; // an outbox never opened, or whose open failed, has nothing to close
      if (!isOpen) return;
      try {
        await this.enqueue(async () => {
          await this.writePending();
          for (const segment of this.segments.filter((s) => s.unconfirmed === 0)) this.deleteFile(segment);
          this.segments = this.segments.filter((s) => s.unconfirmed > 0);
          this.writeNextSeq(this.nextSeq);
        });
      } finally {
        for (const segment of this.segments) this.closeFd(segment);
      }
    })();
    return this.closing;
  }

  private async load(): Promise<OutboxEntry[]> {
    mkdirSync(this.dir, { recursive: true });
    const segmentNames = readdirSync(this.dir)
      .filter((n) => SEGMENT_NAME.test(n))
      .sort();
    const entries: OutboxEntry[] = [];
    for (const [i, name] of segmentNames.entries()) {
      const path = join(this.dir, name);
      const buf = await readFile(path);
      const firstSeq = Number(name.slice(0, 16));
      const parsed = parseSegment(buf, firstSeq, this.lastAppendedSeq);
      if (parsed.validBytes < buf.length) {
        if (i < segmentNames.length - 1)
          throw new ShoalError(
            'IO',
            `outbox segment ${path} is damaged at offset ${parsed.validBytes} (${parsed.problem}), and it is not the last segment`,
          );
        truncateFile(path, parsed.validBytes);
      }
      if (parsed.entries.length === 0) {
        unlinkSync(path); // torn at creation; next-seq keeps its numbers
        continue;
      }
      const segment: Segment = {
        path,
        bytes: parsed.validBytes,
        unconfirmed: parsed.entries.length,
        fd: -1,
        isOnDisk: true,
        isDeleted: false,
      };
      this.segments.push(segment);
      for (const e of parsed.entries) this.owners.set(e.seq, segment);
      entries.push(...parsed.entries);
      this.lastAppendedSeq = parsed.entries[parsed.entries.length - 1]?.seq ?? this.lastAppendedSeq;
    }
    this.nextSeq = Math.max(this.readNextSeq(), this.lastAppendedSeq + 1);
    this.reserve(this.nextSeq + SEQ_RESERVATION);
    return entries;
  }

  private rotate(firstSeq: number): Segment {
    const previous = this.current;
    const path = join(this.dir, `${String(firstSeq).padStart(16, '0')}.outbox`);
    const segment: Segment = { path, bytes: 0, unconfirmed: 0, fd: -1, isOnDisk: false, isDeleted: false };
    this.segments.push(segment);
    this.current = segment;
    if (previous !== null && previous.unconfirmed === 0) this.retire(previous);
    return segment;
  }

  /** Deletes a fully confirmed segment, in order with the writes (its pending records are skipped). */
  private retire(segment: Segment): void {
    segment.isDeleted = true;
    this.segments = this.segments.filter((s) => s !== segment);
    // A failure is kept in `this.failure`, and the next call on the outbox throws it.
    this.enqueue(() => this.deleteFile(segment)).catch(() => undefined);
  }

  private async writePending(): Promise<void> {
    const runs: { segment: Segment; records: Buffer[] }[] = [];
    for (const { segment, record } of this.pending) {
      const last = runs[runs.length - 1];
      if (last?.segment === segment) last.records.push(record);
      else runs.push({ segment, records: [record] });
    }
    this.pending = [];
    // Each segment is durable before the next receives data: only the last one can be torn.
    for (const { segment, records } of runs) {
      if (segment.isDeleted) continue; // all confirmed: nothing to keep
      if (segment.fd < 0) segment.fd = openSync(segment.path, 'a');
      const isNewFile = !segment.isOnDisk;
      segment.isOnDisk = true;
      writeAll(segment.fd, Buffer.concat(records));
      await fdatasyncAsync(segment.fd);
      if (isNewFile) syncDirectory(this.dir);
    }
    for (const s of this.segments) if (s !== this.current) this.closeFd(s);
  }

  private deleteFile(segment: Segment): void {
    segment.isDeleted = true;
    this.closeFd(segment);
    if (!segment.isOnDisk) return;
    try {
      unlinkSync(segment.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  private closeFd(segment: Segment): void {
    if (segment.fd >= 0) closeSync(segment.fd);
    segment.fd = -1;
  }

  private reserve(limit: number): void {
    try {
      this.writeNextSeq(limit);
    } catch (err) {
      this.failure ??= new ShoalError('IO', `cannot write ${join(this.dir, NEXT_SEQ)}`, { cause: err });
      throw this.failure;
    }
    this.reservedLimit = limit;
  }

  private writeNextSeq(value: number): void {
    const temp = join(this.dir, NEXT_SEQ_TEMP);
    const fd = openSync(temp, 'w');
    try {
      writeAll(fd, Buffer.from(`${value}\n`));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, join(this.dir, NEXT_SEQ));
    syncDirectory(this.dir);
  }

  private readNextSeq(): number {
    let text: string;
    try {
      text = readFileSync(join(this.dir, NEXT_SEQ), 'latin1');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 1;
      throw err;
    }
    const value = /^\d{1,16}\n$/.test(text) ? Number(text.trim()) : NaN;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new ShoalError('IO', `${join(this.dir, NEXT_SEQ)} is damaged: ${JSON.stringify(text.slice(0, 40))}`);
    return value;
  }

  private enqueue(task: () => Promise<void> | void): Promise<void> {
    const run = this.tail.then(async () => {
      if (this.failure !== null) throw this.failure;
      try {
        await task();
      } catch (err) {
        this.failure ??= err instanceof ShoalError ? err : new ShoalError('IO', `writing the outbox in ${this.dir} failed`, { cause: err });
        throw this.failure;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private check(method: string): void {
    if (this.failure !== null) throw this.failure;
    if (this.state === 'open' && this.closing === null) return;
    throw new Error(
      `Outbox.${method}(): ${this.dir} is ${this.state === 'open' ? 'closing' : this.state === 'closed' ? 'closed' : 'not open; call and await open() first'}`,
    );
  }
}

/** The entries of a segment up to its first bad record, and where that record starts. */
function parseSegment(buf: Buffer, firstSeq: number, afterSeq: number): { entries: OutboxEntry[]; validBytes: number; problem: string } {
  const entries: OutboxEntry[] = [];
  let at = 0;
  let previous = afterSeq;
  const stop = (problem: string) => ({ entries, validBytes: at, problem });
  while (at < buf.length) {
    const framed = readFramed(buf, at, FIXED_BODY_BYTES);
    if (framed.kind !== 'record') return stop(framed.problem);
    const { body } = framed;
    const seq = body.readDoubleLE(0);
    if (!Number.isSafeInteger(seq) || seq <= previous || (entries.length === 0 && seq !== firstSeq)) return stop(`unexpected seq ${seq}`);
    const bytes = new Uint8Array(body.buffer, body.byteOffset + FIXED_BODY_BYTES, body.length - FIXED_BODY_BYTES);
    entries.push({ seq, to: body.readUInt32LE(8), bytes });
    previous = seq;
    at += FRAME_BYTES + body.length;
  }
  return stop('');
}

function truncateFile(path: string, length: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, buf: Uint8Array): void {
  let at = 0;
  while (at < buf.length) at += writeSync(fd, buf, at, buf.length - at);
}

function fdatasyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err === null ? resolve() : reject(err))));
}
