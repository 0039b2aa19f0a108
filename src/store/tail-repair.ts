/**
 * Where a torn or damaged tail of an append-only file ends its valid part: the byte-level scan of
 * `AppendFile.start()`, apart from the writer because it needs none of its state.
 *
 * Line files are cut after the last `\n` and before the first line the validator rejects; files of
 * fixed-size records are cut after the last whole record and before the first rejected one. Only the
 * last `scanBytes` are validated (see `AppendFileOptions.repairScanBytes`); for line files the scan
 * starts at the beginning of the line that holds its first byte, found by searching backward.
 */
import { readSync } from 'node:fs';

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
  fd: number, framing: RecordFraming, isValid: ((record: Buffer) => boolean) | undefined, dataStart: number, size: number, scanBytes: number,
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

