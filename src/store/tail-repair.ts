/**
 * Where a torn or damaged tail of an append-only file ends its valid part: the byte-level scan of
 * `AppendFile.start()`, apart from the writer because it needs none of its state.
 *
 * Line files are cut after the last `\n` and before the first line the validator rejects; files of
 * fixed-size records are cut after the last whole record and before the first rejected one. Only the
 * last `scanBytes` are validated (see `AppendFileOptions.repairScanBytes`); for line files the scan
 * starts at the beginning of the line that holds its first byte, found by searching backward.
 *
 * Also here, the one definition of *framed* records, for the files that hold them (the persistent
 * frontier's log, the disk seen set's journal, the exchange outbox), each of which ends at the first
 * record whose frame does not hold:
 *
 *     record = bodyLength u32 · crc32(body) u32 · body          (little-endian)
 */
import { readSync } from 'node:fs';
import { crc32 } from 'node:zlib';

/** How a file is cut into records, which is what repair needs to know. */
export type RecordFraming =
  /** Each record ends with `\n` (JSON lines, TSV). */
  | { readonly kind: 'lines' }
  /** Records of `recordBytes` bytes each, after the header. */
  | { readonly kind: 'fixed'; readonly recordBytes: number }
  /** No records: bytes referred to from another file (anchor texts). Nothing is cut on open. */
  | { readonly kind: 'bytes' };

const NEWLINE = 0x0a;
const READ_CHUNK_BYTES = 1024 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);

/** Reads `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) return buf.subarray(0, got);
    got += n;
  }
  return buf;
}

/** Start of the line that holds byte `at` (`dataStart` at the earliest), found by searching backward for a `\n`. */
function lineStartBefore(fd: number, dataStart: number, at: number): number {
  let end = at;
  while (end > dataStart) {
    const from = Math.max(dataStart, end - READ_CHUNK_BYTES);
    const nl = readAt(fd, from, end - from).lastIndexOf(NEWLINE);
    if (nl >= 0) return from + nl + 1;
    end = from;
  }
  return dataStart;
}

/**
 * Length of the longest prefix of the file (open as `fd`, `size` bytes, records from `dataStart`)
 * that ends on a record boundary and in which every record from `scanBytes` before the end on is
 * accepted by `isValid` (every complete record when it is undefined).
 */
export function validPrefixLength(
  fd: number,
  framing: RecordFraming,
  isValid: ((record: Buffer) => boolean) | undefined,
  dataStart: number,
  size: number,
  scanBytes: number,
): number {
  const scanFrom = Math.max(dataStart, size - scanBytes);
  switch (framing.kind) {
    case 'bytes':
      return size;
    case 'fixed': {
      const rec = framing.recordBytes;
      const whole = dataStart + Math.floor((size - dataStart) / rec) * rec;
      if (isValid === undefined) return whole;
      let at = dataStart + Math.floor((scanFrom - dataStart) / rec) * rec;
      const perChunk = Math.max(1, Math.floor(READ_CHUNK_BYTES / rec));
      while (at < whole) {
        const n = Math.min(perChunk, (whole - at) / rec);
        const buf = readAt(fd, at, n * rec);
        for (let i = 0; i < n; i++) if (!isValid(buf.subarray(i * rec, (i + 1) * rec))) return at + i * rec;
        at += n * rec;
      }
      return whole;
    }
    case 'lines': {
      let lineStart = lineStartBefore(fd, dataStart, scanFrom);
      let pending = EMPTY; // bytes of the line that starts at lineStart, read so far
      let pos = lineStart;
      while (pos < size) {
        const chunk = readAt(fd, pos, Math.min(READ_CHUNK_BYTES, size - pos));
        if (chunk.length === 0) break;
        pos += chunk.length;
        const buf = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let from = 0;
        for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, from)) {
          if (isValid !== undefined && !isValid(buf.subarray(from, nl))) return lineStart + from;
          from = nl + 1;
        }
        lineStart += from;
        pending = buf.subarray(from);
      }
      return lineStart; // what follows the last newline is a torn line
    }
  }
}

/** Bytes of a framed record's frame: its body length and the body's CRC-32. */
export const FRAME_BYTES = 8;

/** Fills in the frame of the record at `start` whose body is `buf[start + FRAME_BYTES, end)`. */
export function frameRecord(buf: Buffer, start: number, end: number): void {
  buf.writeUInt32LE(end - start - FRAME_BYTES, start);
  buf.writeUInt32LE(crc32(buf.subarray(start + FRAME_BYTES, end)), start + 4);
}

/** What {@link readFramed} found. */
export type FramedRead =
  | { readonly kind: 'record'; readonly body: Buffer }
  /**
   * The frame, or the body it announces, runs past the end of the buffer: a torn tail, or a record
   * that goes on past a chunk read. `bytes` is the record's whole size as far as it is known
   * (FRAME_BYTES when the frame itself is cut).
   */
  | { readonly kind: 'short'; readonly bytes: number; readonly problem: string }
  /** A length outside the caller's bounds, or a checksum that does not hold. */
  | { readonly kind: 'bad'; readonly problem: string };

/** The framed record at `at` in `buf`, whose body length must lie in [minBody, maxBody]. */
export function readFramed(buf: Buffer, at: number, minBody = 0, maxBody = 0xffffffff): FramedRead {
  if (buf.length - at < FRAME_BYTES) return { kind: 'short', bytes: FRAME_BYTES, problem: 'torn record frame' };
  const length = buf.readUInt32LE(at);
  if (length < minBody || length > maxBody) return { kind: 'bad', problem: `bad record length ${length}` };
  if (buf.length - at - FRAME_BYTES < length)
    return { kind: 'short', bytes: FRAME_BYTES + length, problem: `torn record (length ${length})` };
  const body = buf.subarray(at + FRAME_BYTES, at + FRAME_BYTES + length);
  if (crc32(body) !== buf.readUInt32LE(at + 4)) return { kind: 'bad', problem: 'checksum mismatch' };
  return { kind: 'record', body };
}
