/**
 * The persistent frontier's journal on disk: numbered *segment* files of checksummed records, in
 * `state/frontier/` of the crawl directory. What a URL needs only when it is leased (the URL, where
 * it was found, its depth, ...) lives here and nowhere else; memory keeps the slot columns
 * (`src/frontier/slot-table.ts`) and each slot's record location.
 *
 *     segment file   = header (16 bytes: "SHOALFRL", version u32, segment number u32), then records
 *     record         = bodyLength u32 · crc32(body) u32 · body      (little-endian; `store/tail-repair.ts`)
 *     body, ADD      = 1 · flags u8 · attempt u16 · seq f64 · priority f64 · depth u32 · hi u32 · lo u32
 *                      · host (u16 length + UTF-8) · url (u16 + UTF-8) · [ip (u8 + ASCII)] · [fromUrl (u16 + UTF-8)]
 *     body, DONE     = 2 · hi u32 · lo u32 · seq f64                   the URL added with this seq is done
 *     body, RETRY    = 3 · hi u32 · lo u32 · seq f64 · attempt u16     ... goes back with this attempt
 *     body, PRIORITY = 4 · hi u32 · lo u32 · priority f64              the live URL (hi, lo) has this priority now
 *
 * flags: bit 0 isSitemap, bit 1 has ip, bit 2 has fromUrl. A location is `segment × 2^32 + offset`.
 * A PRIORITY record names no seq: it applies to the URL's live add at the point of the log where it
 * stands (the owner writes one only for a URL it holds). Layout version 2 added it; version 1
 * segments are read as before, and a log whose newest segment is version 1 gets a new segment at
 * `open`, so a version 1 file never holds a record its version does not know.
 *
 * **Writing.** ADD records go to a staging buffer that is written to the active segment when full
 * (`writeSync`: records reach the kernel whole and in call order) and at every flush. DONE and RETRY
 * records (and PRIORITY ones) are *held* in memory until `flush()`, which writes the staged adds, then the held
 * records, then fdatasyncs: a completion becomes durable only at the checkpoint that also made the
 * crawl's WARC records and logs durable (the node flushes those first), so a `kill -9` between two
 * checkpoints can never make a page's completion final without its records. The seq in DONE and
 * RETRY names the add they refer to, so a URL completed and added again between two flushes stays.
 *
 * **Reading.** A record is read back by location with `readSync` (pread), from the page cache
 * rather than a memory map, so the bytes do not count in the process's resident memory; a record
 * still in the staging buffer is read from there.
 *
 * **Recovery.** `scan` reads every segment in order and calls back per record. The last segment
 * may end in a torn or half-written record (a crash during a write or before an fsync): it is cut
 * at the first record whose length or checksum does not hold, and what follows is ignored. Any
 * other damage is an error (`FRONTIER_CORRUPT`), because those segments were fsynced.
 *
 * **Segments.** A new segment starts at a flush once the active one holds `segmentBytes`; the owner
 * copies the live records out of the oldest segment, a bounded slice per flush, and deletes it once
 * done (`persistent-frontier.ts`, compaction). The directory is fsynced after a segment is created
 * (before any record goes into it, so a flush never makes records durable in a file whose name
 * could vanish), after one is deleted (so deletions survive a power loss in the order they were
 * made: a deleted segment that came back while a later one stayed deleted would bring back ADDs
 * whose DONEs went with the later one), and at `open` (for whatever the previous process created
 * or deleted and did not sync).
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
import { FRAME_BYTES, frameRecord, readFramed, type FramedRead } from '../store/tail-repair.js';

const MAGIC = Buffer.from('SHOALFRL', 'latin1');
/** Version of the segment layout this code writes; it reads this one and every older one. */
const FRONTIER_LOG_VERSION = 2;
/** The version that added PRIORITY records. */
const PRIORITY_RECORD_VERSION = 2;
const HEADER_BYTES = 16;
const SEGMENT_RE = /^log-(\d{6,})\.seg$/;
const TWO_32 = 2 ** 32;
/** Longest strings a record holds (u16 lengths), and so its longest body. */
const MAX_STRING_BYTES = 0xffff;
const MAX_BODY_BYTES = 32 + 3 * (2 + MAX_STRING_BYTES) + 1 + 255;

/** Record kinds. */
const LogRecordKind = { add: 1, done: 2, retry: 3, priority: 4 } as const;

/** What an ADD record holds. */
export interface AddRecord {
  readonly hi: number;
  readonly lo: number;
  readonly seq: number;
  readonly priority: number;
  readonly attempt: number;
  readonly depth: number;
  readonly host: string;
  readonly url: string;
  readonly ip: string | null;
  readonly fromUrl: string | null;
  readonly isSitemap: boolean;
}

/** One record met by {@link FrontierLog.scan}. */
export type ScannedRecord =
  | { readonly kind: 'add'; readonly record: AddRecord; readonly location: number; readonly bytes: number }
  | { readonly kind: 'done'; readonly hi: number; readonly lo: number; readonly seq: number }
  | { readonly kind: 'retry'; readonly hi: number; readonly lo: number; readonly seq: number; readonly attempt: number }
  | { readonly kind: 'priority'; readonly hi: number; readonly lo: number; readonly priority: number };

/** Segment number and offset of a location. */
export function splitLocation(location: number): { readonly segment: number; readonly offset: number } {
  return { segment: Math.floor(location / TWO_32), offset: location % TWO_32 };
}

function segmentName(n: number): string {
  return `log-${String(n).padStart(6, '0')}.seg`;
}

/** The segment files of a log, oldest first. */
function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = SEGMENT_RE.exec(name);
      return m === null ? [] : [Number(m[1])];
    })
    .sort((a, b) => a - b);
}

/** Encodes an ADD body into `out` at `at`; returns the end. `out` must have room (see {@link addBodyBound}). */
function encodeAdd(r: AddRecord, out: Buffer, at: number): number {
  const flags = (r.isSitemap ? 1 : 0) | (r.ip === null ? 0 : 2) | (r.fromUrl === null ? 0 : 4);
  out[at] = LogRecordKind.add;
  out[at + 1] = flags;
  out.writeUInt16LE(Math.min(r.attempt, 0xffff), at + 2);
  out.writeDoubleLE(r.seq, at + 4);
  out.writeDoubleLE(r.priority, at + 12);
  out.writeUInt32LE(r.depth >>> 0, at + 20);
  out.writeUInt32LE(r.hi >>> 0, at + 24);
  out.writeUInt32LE(r.lo >>> 0, at + 28);
  let p = at + 32;
  p = writeString(out, p, r.host, 2);
  p = writeString(out, p, r.url, 2);
  if (r.ip !== null) p = writeString(out, p, r.ip, 1);
  if (r.fromUrl !== null) p = writeString(out, p, r.fromUrl, 2);
  return p;
}

function writeString(out: Buffer, at: number, s: string, lengthBytes: 1 | 2): number {
  const n = out.write(s, at + lengthBytes, 'utf8');
  if (lengthBytes === 1) out[at] = n;
  else out.writeUInt16LE(n, at);
  return at + lengthBytes + n;
}

/** The largest an ADD body can be (UTF-8 takes at most 3 bytes per UTF-16 unit). */
function addBodyBound(r: AddRecord): number {
  return 32 + 2 + 3 * r.host.length + 2 + 3 * r.url.length + 1 + 3 * (r.ip?.length ?? 0) + 2 + 3 * (r.fromUrl?.length ?? 0);
}

/** The size in bytes of an ADD record (frame included) for these strings: what `appendAdd` writes. */
export function addRecordBytes(host: string, url: string, ip: string | null, fromUrl: string | null): number {
  return (
    FRAME_BYTES +
    32 +
    2 +
    Buffer.byteLength(host) +
    2 +
    Buffer.byteLength(url) +
    (ip === null ? 0 : 1 + Buffer.byteLength(ip)) +
    (fromUrl === null ? 0 : 2 + Buffer.byteLength(fromUrl))
  );
}

/** Whether `s` is too long for a u16-length string field (measured only when it could be). */
function isTooLong(s: string | null): boolean {
  return s !== null && s.length * 3 > MAX_STRING_BYTES && Buffer.byteLength(s) > MAX_STRING_BYTES;
}

const STRING_FIELDS = ['url', 'host', 'fromUrl'] as const;

/** Why an ADD record cannot be written (a string longer than its length field allows), or null when it can. */
export function addRecordProblem(r: AddRecord): string | null {
  for (const name of STRING_FIELDS) {
    const value = r[name];
    if (isTooLong(value)) return `frontier: ${name} longer than ${MAX_STRING_BYTES} bytes: ${String(value).slice(0, 80)}...`;
  }
  if (r.ip !== null && r.ip.length > 255) return `frontier: ip longer than 255 characters: ${r.ip.slice(0, 80)}`;
  return null;
}

/** Decodes an ADD body; throws RangeError when it is malformed. */
function decodeAdd(body: Buffer): AddRecord {
  if (body.length < 36 || body[0] !== LogRecordKind.add) throw new RangeError('not an ADD record');
  const flags = body[1] as number;
  let p = 32;
  const read = (lengthBytes: 1 | 2): string => {
    const n = lengthBytes === 1 ? (body[p] as number) : body.readUInt16LE(p);
    const start = p + lengthBytes;
    if (start + n > body.length) throw new RangeError('string runs past the record');
    p = start + n;
    return body.toString('utf8', start, start + n);
  };
  const host = read(2);
  const url = read(2);
  const ip = (flags & 2) !== 0 ? read(1) : null;
  const fromUrl = (flags & 4) !== 0 ? read(2) : null;
  return {
    hi: body.readUInt32LE(24),
    lo: body.readUInt32LE(28),
    seq: body.readDoubleLE(4),
    priority: body.readDoubleLE(12),
    attempt: body.readUInt16LE(2),
    depth: body.readUInt32LE(20),
    host,
    url,
    ip,
    fromUrl,
    isSitemap: (flags & 1) !== 0,
  };
}

/** Options of {@link FrontierLog}. */
export interface FrontierLogOptions {
  /** Bytes of staged ADD records written out at once. Default 256 KiB. */
  readonly stageBytes?: number;
}

/** The journal of one persistent frontier; see the file comment. One process owns the directory. */
export class FrontierLog {
  private segments: number[] = [];
  private readonly fds = new Map<number, number>();
  /** Sizes of the segments before the active one (they never change), and their sum. */
  private readonly closedBytes = new Map<number, number>();
  private closedTotal = 0;
  /** The segment being appended to, the bytes it holds on disk, and how many of those are known durable. */
  private active = 0;
  private activeBytes = 0;
  private syncedBytes = 0;
  private stage: Buffer;
  private staged = 0;
  private held: Buffer = Buffer.alloc(64 * 1024);
  private heldBytes = 0;
  private readonly readBuffer = Buffer.alloc(4096);
  private isClosed = false;

  private constructor(
    private readonly dir: string,
    stageBytes: number,
  ) {
    this.stage = Buffer.alloc(stageBytes);
  }

  /**
   * Opens (or creates) the log in `dir`: cuts a torn tail off the last segment and calls `onRecord`
   * for every record, oldest first. The caller rebuilds its state from them.
   * @throws ShoalError `FRONTIER_CORRUPT` for damage before the tail, `IO` on a storage error.
   */
  static open(dir: string, onRecord: (r: ScannedRecord) => void, options: FrontierLogOptions = {}): FrontierLog {
    const log = new FrontierLog(dir, options.stageBytes ?? 256 * 1024);
    io(() => mkdirSync(dir, { recursive: true }), `creating ${dir}`);
    log.segments = io(() => listSegments(dir), `listing ${dir}`);
    let lastVersion = FRONTIER_LOG_VERSION;
    for (let i = 0; i < log.segments.length; i++) {
      const n = log.segments[i] as number;
      const isLast = i === log.segments.length - 1;
      const { end, version } = log.scanSegment(n, isLast, onRecord);
      lastVersion = version;
      if (isLast && version >= PRIORITY_RECORD_VERSION) {
        // What the scan read may sit in the page cache only: the first flush syncs it (syncedBytes 0).
        log.active = n;
        log.activeBytes = end;
      } else {
        log.closedBytes.set(n, end);
        log.closedTotal += end;
      }
    }
    if (log.segments.length === 0) log.startSegment(1);
    else if (lastVersion < PRIORITY_RECORD_VERSION) log.startSegment((log.segments.at(-1) as number) + 1);
    else io(() => syncDirectory(dir), `syncing ${dir}`);
    return log;
  }

  /** Segment numbers, oldest first (the last is the active one). */
  get segmentNumbers(): readonly number[] {
    return this.segments;
  }

  /** Bytes of every segment, staged records included. */
  totalBytes(): number {
    return this.closedTotal + this.activeBytes + this.staged;
  }

  /**
   * Appends an ADD record; returns its location and size in bytes.
   * @throws RangeError, before writing anything, when {@link addRecordProblem} names a problem.
   */
  appendAdd(r: AddRecord): { readonly location: number; readonly bytes: number } {
    this.check();
    const problem = addRecordProblem(r);
    if (problem !== null) throw new RangeError(problem);
    const bound = FRAME_BYTES + addBodyBound(r);
    if (this.staged + bound > this.stage.length) {
      this.writeStage();
      if (bound > this.stage.length) this.stage = Buffer.alloc(bound * 2);
    }
    const start = this.staged;
    const end = encodeAdd(r, this.stage, start + FRAME_BYTES);
    frameRecord(this.stage, start, end);
    this.staged = end;
    return { location: this.active * TWO_32 + this.activeBytes + start, bytes: end - start };
  }

  /** Holds a DONE record until the next flush. */
  holdDone(hi: number, lo: number, seq: number): void {
    this.hold(LogRecordKind.done, hi, lo, seq, null);
  }

  /** Holds a RETRY record until the next flush. */
  holdRetry(hi: number, lo: number, seq: number, attempt: number): void {
    this.hold(LogRecordKind.retry, hi, lo, seq, attempt);
  }

  /** Holds a PRIORITY record (17-byte body) until the next flush: the live URL (hi, lo) has `priority` from here on. */
  holdPriority(hi: number, lo: number, priority: number): void {
    this.check();
    const at = this.reserveHeld(FRAME_BYTES + 17);
    const b = this.held;
    b[at + FRAME_BYTES] = LogRecordKind.priority;
    b.writeUInt32LE(hi >>> 0, at + FRAME_BYTES + 1);
    b.writeUInt32LE(lo >>> 0, at + FRAME_BYTES + 5);
    b.writeDoubleLE(priority, at + FRAME_BYTES + 9);
    frameRecord(b, at, at + FRAME_BYTES + 17);
  }

  /** Frames a DONE (17-byte body) or RETRY (19 bytes, with the attempt) record into the held buffer. */
  private hold(kind: number, hi: number, lo: number, seq: number, attempt: number | null): void {
    this.check();
    const body = attempt === null ? 17 : 19;
    const at = this.reserveHeld(FRAME_BYTES + body);
    const b = this.held;
    b[at + FRAME_BYTES] = kind;
    b.writeUInt32LE(hi >>> 0, at + FRAME_BYTES + 1);
    b.writeUInt32LE(lo >>> 0, at + FRAME_BYTES + 5);
    b.writeDoubleLE(seq, at + FRAME_BYTES + 9);
    if (attempt !== null) b.writeUInt16LE(Math.min(attempt, 0xffff), at + FRAME_BYTES + 17);
    frameRecord(b, at, at + FRAME_BYTES + body);
  }

  /**
   * Reads the ADD record at `location`; `bytes` is its size, frame included (what `appendAdd` answered).
   * @throws ShoalError `FRONTIER_CORRUPT` when it does not decode.
   */
  readAdd(location: number): { readonly record: AddRecord; readonly bytes: number } {
    this.check();
    const { segment, offset } = splitLocation(location);
    if (segment === this.active && offset >= this.activeBytes) {
      const at = offset - this.activeBytes;
      return this.decodeAdd(readLogRecord(this.stage.subarray(at, this.staged), 0), location);
    }
    const fd = this.fd(segment);
    const n = io(() => readSync(fd, this.readBuffer, 0, this.readBuffer.length, offset), `reading segment ${segment}`);
    let framed = readLogRecord(this.readBuffer.subarray(0, n), 0);
    if (framed.kind === 'short' && framed.bytes > n) {
      // Longer than one read: read it whole.
      const whole = Buffer.alloc(framed.bytes);
      const got = io(() => readSync(fd, whole, 0, whole.length, offset), `reading segment ${segment}`);
      framed = readLogRecord(whole.subarray(0, got), 0);
    }
    return this.decodeAdd(framed, location);
  }

  /**
   * Makes everything appended and held so far durable: staged adds, then held records, then an
   * fdatasync of the active segment (none when nothing was written since the last one). Then, if
   * the active segment holds `segmentBytes` or more, the next appends go to a new one.
   */
  flush(segmentBytes = Number.POSITIVE_INFINITY): void {
    this.check();
    this.writeStage();
    if (this.heldBytes > 0) {
      this.write(this.held.subarray(0, this.heldBytes));
      this.heldBytes = 0;
      if (this.held.length > 1 << 20) this.held = Buffer.alloc(64 * 1024);
    }
    if (this.activeBytes > this.syncedBytes) {
      const fd = this.fd(this.active);
      io(() => fdatasyncSync(fd), `syncing segment ${this.active}`);
      this.syncedBytes = this.activeBytes;
    }
    if (this.activeBytes >= segmentBytes) {
      this.closedBytes.set(this.active, this.activeBytes);
      this.closedTotal += this.activeBytes;
      this.startSegment(this.active + 1);
    }
  }

  /**
   * Reads the records of segment `n` from `offset`, at most about `maxBytes` of them, and calls
   * back for each ADD. @returns the offset after the last record read (the segment's end when done).
   */
  scanAdds(n: number, offset: number, maxBytes: number, onAdd: (record: AddRecord, location: number) => void): number {
    this.check();
    const fd = this.fd(n);
    const size = this.segmentEnd(n);
    const from = Math.max(offset, HEADER_BYTES);
    const stop = Math.min(size, from + maxBytes);
    // Read bytes only, and given back once the scan ends: a scan long enough to outlive minor
    // collections would leave it to a full one (`core/release-memory.ts`).
    const buffer = Buffer.allocUnsafeSlow(Math.min(stop - from, maxBytes) + MAX_BODY_BYTES + FRAME_BYTES);
    try {
      return this.scanBuffer(n, fd, buffer, from, stop, onAdd);
    } finally {
      releaseMemory(buffer);
    }
  }

  /** {@link scanAdds}'s reads of segment `n` (open as `fd`) from `from` to `stop`, into `buffer`. */
  private scanBuffer(
    n: number,
    fd: number,
    buffer: Buffer,
    from: number,
    stop: number,
    onAdd: (record: AddRecord, location: number) => void,
  ): number {
    let at = from;
    while (at < stop) {
      const got = io(() => readSync(fd, buffer, 0, buffer.length, at), `reading segment ${n}`);
      const read = buffer.subarray(0, got);
      let p = 0;
      while (at + p < stop) {
        const framed = readLogRecord(read, p);
        if (framed.kind === 'short' && p > 0) break; // the rest comes with the next read
        if (framed.kind !== 'record')
          throw new ShoalError('FRONTIER_CORRUPT', `frontier log ${this.dir}: segment ${n} offset ${at + p}: ${framed.problem}`);
        if (framed.body[0] === LogRecordKind.add) onAdd(decodeAdd(framed.body), n * TWO_32 + at + p);
        p += FRAME_BYTES + framed.body.length;
      }
      at += p;
    }
    return at;
  }

  /** Bytes of segment `n` on disk (staged records not included). */
  segmentEnd(n: number): number {
    this.check();
    if (n === this.active) return this.activeBytes;
    const bytes = this.closedBytes.get(n);
    if (bytes === undefined) throw new Error(`FrontierLog: no segment ${n}`);
    return bytes;
  }

  /**
   * Deletes segment `n` (not the active one) and syncs the directory, so the deletion is durable
   * before anything that relies on it. Its live records must be durable elsewhere first.
   */
  deleteSegment(n: number): void {
    this.check();
    if (n === this.active) throw new Error(`FrontierLog: segment ${n} is the active one`);
    const fd = this.fds.get(n);
    if (fd !== undefined) {
      io(() => closeSync(fd), `closing segment ${n}`);
      this.fds.delete(n);
    }
    io(() => unlinkSync(join(this.dir, segmentName(n))), `deleting segment ${n}`);
    io(() => syncDirectory(this.dir), `syncing ${this.dir}`);
    this.segments = this.segments.filter((s) => s !== n);
    this.closedTotal -= this.closedBytes.get(n) ?? 0;
    this.closedBytes.delete(n);
  }

  /** Flushes and closes every file. Idempotent. */
  close(): void {
    if (this.isClosed) return;
    try {
      this.flush();
    } finally {
      this.isClosed = true;
      for (const fd of this.fds.values()) closeSync(fd);
      this.fds.clear();
    }
  }

  /** Closes every file without writing anything (after a failure, or to simulate a crash in tests). */
  abandon(): void {
    this.isClosed = true;
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private check(): void {
    if (this.isClosed) throw new Error('FrontierLog: closed');
  }

  private reserveHeld(bytes: number): number {
    if (this.heldBytes + bytes > this.held.length) {
      const grown = Buffer.alloc(this.held.length * 2);
      this.held.copy(grown, 0, 0, this.heldBytes);
      this.held = grown;
    }
    const at = this.heldBytes;
    this.heldBytes += bytes;
    return at;
  }

  /** The ADD record read at `location`, and its size. @throws ShoalError `FRONTIER_CORRUPT` when it is anything else. */
  private decodeAdd(framed: FramedRead, location: number): { readonly record: AddRecord; readonly bytes: number } {
    try {
      if (framed.kind !== 'record') throw new RangeError(framed.problem);
      return { record: decodeAdd(framed.body), bytes: FRAME_BYTES + framed.body.length };
    } catch (err) {
      const { segment, offset } = splitLocation(location);
      throw new ShoalError('FRONTIER_CORRUPT', `frontier log ${this.dir}: segment ${segment} offset ${offset}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  private writeStage(): void {
    if (this.staged === 0) return;
    this.write(this.stage.subarray(0, this.staged));
    this.staged = 0;
  }

  private write(bytes: Buffer): void {
    const fd = this.fd(this.active);
    let done = 0;
    while (done < bytes.length) {
      const at = this.activeBytes + done;
      done += io(() => writeSync(fd, bytes, done, bytes.length - done, at), `writing segment ${this.active}`);
    }
    this.activeBytes += bytes.length;
  }

  private fd(n: number): number {
    let fd = this.fds.get(n);
    if (fd === undefined) {
      fd = io(() => openSync(join(this.dir, segmentName(n)), 'r+'), `opening segment ${n}`);
      this.fds.set(n, fd);
    }
    return fd;
  }

  /** Creates segment `n`, durable, name included, and makes it the active one. */
  private startSegment(n: number): void {
    const fd = io(() => openSync(join(this.dir, segmentName(n)), 'w+'), `creating segment ${n}`);
    this.fds.set(n, fd);
    this.writeHeader(fd, n);
    io(() => syncDirectory(this.dir), `syncing ${this.dir}`);
    this.segments.push(n);
    this.active = n;
    this.activeBytes = this.syncedBytes = HEADER_BYTES;
  }

  /** Reads segment `n` from start to end; for the last one, cuts a torn tail. @returns its valid length and layout version. */
  private scanSegment(
    n: number,
    isLast: boolean,
    onRecord: (r: ScannedRecord) => void,
  ): { readonly end: number; readonly version: number } {
    const fd = this.fd(n);
    const size = io(() => fstatSync(fd).size, `sizing segment ${n}`);
    const corrupt = (offset: number, what: string): never => {
      throw new ShoalError('FRONTIER_CORRUPT', `frontier log ${this.dir}: segment ${n} offset ${offset}: ${what}`);
    };
    const header = Buffer.alloc(HEADER_BYTES);
    const got = io(() => readSync(fd, header, 0, HEADER_BYTES, 0), `reading segment ${n}`);
    if (got < HEADER_BYTES) {
      if (!isLast) corrupt(0, 'shorter than its header');
      // Torn at creation: start it again.
      io(() => ftruncateSync(fd, 0), `truncating segment ${n}`);
      this.writeHeader(fd, n);
      return { end: HEADER_BYTES, version: FRONTIER_LOG_VERSION };
    }
    if (!header.subarray(0, 8).equals(MAGIC)) corrupt(0, 'not a shoal frontier segment');
    const version = header.readUInt32LE(8);
    if (version < 1 || version > FRONTIER_LOG_VERSION)
      corrupt(8, `layout version ${version}, this shoal reads 1 to ${FRONTIER_LOG_VERSION}`);
    const chunk = Buffer.alloc(1 << 20);
    let at = HEADER_BYTES;
    // Records are never longer than MAX_BODY_BYTES < the chunk: one read from a record's start holds it whole.
    for (let isDone = false; !isDone;) {
      const got = io(() => readSync(fd, chunk, 0, chunk.length, at), `reading segment ${n}`);
      const read = chunk.subarray(0, got);
      let p = 0;
      for (;;) {
        const framed = readLogRecord(read, p);
        // A record cut by the end of the chunk, not of the file: read again from its start.
        if (framed.kind === 'short' && at + p + framed.bytes <= size) break;
        const bytes = framed.kind === 'record' ? FRAME_BYTES + framed.body.length : 0;
        const record = framed.kind === 'record' ? decodeRecord(framed.body, n * TWO_32 + at + p, bytes, version) : null;
        if (record === null) {
          isDone = true;
          break;
        }
        onRecord(record);
        p += bytes;
      }
      if (p === 0) isDone = true;
      at += p;
    }
    if (at < size) {
      if (!isLast) corrupt(at, `${size - at} bytes that are not whole records`);
      io(() => ftruncateSync(fd, at), `truncating segment ${n}`);
      io(() => fdatasyncSync(fd), `syncing segment ${n}`);
    }
    return { end: at, version };
  }

  /** Writes and fdatasyncs the header of segment `n`. */
  private writeHeader(fd: number, n: number): void {
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt32LE(FRONTIER_LOG_VERSION, 8);
    header.writeUInt32LE(n, 12);
    io(() => writeSync(fd, header, 0, HEADER_BYTES, 0), `writing segment ${n}`);
    io(() => fdatasyncSync(fd), `syncing segment ${n}`);
  }
}

/** The framed record at `at` of `bytes`, whose body is 1 to MAX_BODY_BYTES long. */
function readLogRecord(bytes: Buffer, at: number): FramedRead {
  return readFramed(bytes, at, 1, MAX_BODY_BYTES);
}

/** A record's body as data, or null when it does not decode in a segment of `version` (treated as the torn tail). */
function decodeRecord(body: Buffer, location: number, bytes: number, version: number): ScannedRecord | null {
  try {
    switch (body[0]) {
      case LogRecordKind.add:
        return { kind: 'add', record: decodeAdd(body), location, bytes };
      case LogRecordKind.done:
        if (body.length !== 17) return null;
        return { kind: 'done', hi: body.readUInt32LE(1), lo: body.readUInt32LE(5), seq: body.readDoubleLE(9) };
      case LogRecordKind.retry:
        if (body.length !== 19) return null;
        return {
          kind: 'retry',
          hi: body.readUInt32LE(1),
          lo: body.readUInt32LE(5),
          seq: body.readDoubleLE(9),
          attempt: body.readUInt16LE(17),
        };
      case LogRecordKind.priority:
        if (body.length !== 17 || version < PRIORITY_RECORD_VERSION) return null;
        return { kind: 'priority', hi: body.readUInt32LE(1), lo: body.readUInt32LE(5), priority: body.readDoubleLE(9) };
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** Runs a storage call; turns its failure into ShoalError `IO`. */
function io<T>(f: () => T, what: string): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    throw new ShoalError('IO', `frontier log: ${what}: ${(err as Error).message}`, { cause: err });
  }
}
