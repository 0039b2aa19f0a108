/**
 * gzip members (RFC 1952) as the WARC store writes and reads them: every WARC record is its own member
 * (WARC/1.1 Annex D), so a reader can start at any record's offset and a torn write damages one
 * member only.
 *
 * - {@link gzipMember} builds a member from the caller's buffers without copying a large body into
 *   one buffer first: each large piece is deflated on its own and the segments are joined with sync
 *   flushes into one deflate stream; a range that is compressed already is stored, not deflated.
 * - {@link readGzipMember} parses one member's header, inflates it and checks its CRC-32 and length
 *   trailer; {@link scanMembers} walks the complete members of a file through a bounded window.
 * - {@link repairWarcTail} cuts a file after its last complete member, which is how `WarcWriter`
 *   recovers from a `kill -9` or a power loss.
 *
 * Kept apart from `warc-writer.ts` because none of this needs the writer's queue or files: it is the
 * byte format, used by the writer on the way out and by crash recovery on the way back in.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync } from 'node:fs';
import zlib from 'node:zlib';
import { readAt } from '../tail-repair.js';

/** gzip header: magic, deflate, no flags, no mtime, no extra flags, OS unknown (RFC 1952 §2.3). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** Pieces at least this large are compressed on their own instead of being copied into one buffer. */
const OWN_SEGMENT_BYTES = 256 * 1024;

/** A gzip member as pieces to write (no copy of the compressed data), and its length. */
export interface GzipMember {
  readonly pieces: readonly Buffer[];
  readonly length: number;
}

/** Bytes `from` (inclusive) to `to` (exclusive) of a record. */
export interface ByteRange {
  readonly from: number;
  readonly to: number;
}

/** A stored range shorter than this is deflated with the rest: a separate call would cost more than it saves. */
const MIN_STORED_BYTES = 1024;

/**
 * The output buffer for deflating `n` bytes (zlib's own 16 KiB for a small input): room for the
 * worst case (stored blocks: 5 bytes per 16 KiB block, and a flush's 5), so that a large body comes
 * out in one buffer of its own, mapped apart and given back whole, instead of hundreds of 16 KiB
 * pieces of the malloc heap to be joined (src/fetch/received-bytes.ts says why that matters). Only
 * the pages written become resident.
 */
function deflateRoom(n: number): number {
  const own = zlib.constants.Z_DEFAULT_CHUNK;
  return n <= own ? own : n + (n >>> 11) + 64;
}

/** One deflate call's input: its bytes and its level. */
interface Segment {
  readonly bytes: Buffer;
  readonly level: number;
}

/**
 * One gzip member holding the concatenation of `pieces`. zlib's one-shot API takes one buffer; rather
 * than copying a large body into one, each large piece is deflated on its own and every segment but
 * the last ends with a sync flush, so the segments concatenate into one valid deflate stream (the way
 * pigz joins its blocks). Small pieces are joined first: one deflate call is much cheaper than several.
 *
 * `stored`, when given, is a range of the bytes that is compressed already (a body with a content
 * coding, an image): it goes in stored deflate blocks (level 0, a copy) instead of being deflated
 * again, which costs several times as much and gains nothing. Readers see an ordinary member.
 */
export function gzipMember(pieces: readonly Buffer[], level = 6, stored: ByteRange | null = null): GzipMember {
  const isStored = stored !== null && stored.to - stored.from >= MIN_STORED_BYTES && level > 0;
  const segments: Segment[] = [];
  let run: Buffer[] = [];
  const endRun = (): void => {
    if (run.length > 0) segments.push({ bytes: run.length === 1 ? (run[0] as Buffer) : Buffer.concat(run), level });
    run = [];
  };
  const add = (p: Buffer, isPlain: boolean): void => {
    if (p.length === 0) return;
    if (isPlain && p.length < OWN_SEGMENT_BYTES) {
      run.push(p);
      return;
    }
    endRun();
    segments.push({ bytes: p, level: isPlain ? level : 0 });
  };
  let crc = 0;
  let size = 0;
  for (const p of pieces) {
    crc = zlib.crc32(p, crc);
    const at = size;
    size += p.length;
    if (!isStored || size <= stored.from || at >= stored.to) {
      add(p, true);
      continue;
    }
    // The piece overlaps the stored range: the part before it, the part in it, the part after it.
    const from = Math.max(0, stored.from - at);
    const to = Math.min(p.length, stored.to - at);
    add(p.subarray(0, from), true);
    add(p.subarray(from, to), false);
    add(p.subarray(to), true);
  }
  endRun();
  if (segments.length === 0) segments.push({ bytes: Buffer.alloc(0), level });
  const out: Buffer[] = [GZIP_HEADER];
  let length = GZIP_HEADER.length + 8;
  segments.forEach((seg, i) => {
    const isLast = i === segments.length - 1;
    const z = zlib.deflateRawSync(seg.bytes, {
      level: seg.level,
      finishFlush: isLast ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
      chunkSize: deflateRoom(seg.bytes.length),
    });
    out.push(z);
    length += z.length;
  });
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4); // ISIZE is the length modulo 2^32
  out.push(trailer);
  return { pieces: out, length };
}

/** Result of reading the gzip member at an offset of a buffer. */
export type MemberRead =
  | { readonly kind: 'ok'; readonly length: number; readonly data: Buffer }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Reads and checks (CRC-32 and length) the gzip member starting at `at` in `buf`. `incomplete`: the
 * bytes end before the member does; `invalid`: these bytes are not a gzip member.
 */
export function readGzipMember(buf: Buffer, at = 0): MemberRead {
  const magic = [0x1f, 0x8b, 8];
  for (let i = 0; i < 3 && at + i < buf.length; i++) if (buf[at + i] !== magic[i]) return { kind: 'invalid', reason: 'no gzip header' };
  if (buf.length - at < 10) return { kind: 'incomplete' };
  const flags = buf[at + 3] ?? 0;
  if ((flags & 0xe0) !== 0) return { kind: 'invalid', reason: 'reserved gzip flags set' };
  let p = at + 10;
  if ((flags & 4) !== 0) p += 2 + (p + 2 <= buf.length ? buf.readUInt16LE(p) : 0); // FEXTRA
  for (const flag of [8, 16]) {
    // FNAME, FCOMMENT: zero-terminated
    if ((flags & flag) === 0) continue;
    const zero = p < buf.length ? buf.indexOf(0, p) : -1;
    if (zero < 0) return { kind: 'incomplete' };
    p = zero + 1;
  }
  if ((flags & 2) !== 0) p += 2; // FHCRC
  if (p >= buf.length) return { kind: 'incomplete' };
  let data: Buffer;
  let consumed: number;
  try {
    // inflateRaw stops at the end of the deflate stream; bytesWritten says how much input it used.
    const r = zlib.inflateRawSync(buf.subarray(p), { info: true }) as unknown as { buffer: Buffer; engine: zlib.InflateRaw };
    data = r.buffer;
    consumed = r.engine.bytesWritten;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') return { kind: 'incomplete' };
    return { kind: 'invalid', reason: (err as Error).message };
  }
  const t = p + consumed;
  if (t + 8 > buf.length) return { kind: 'incomplete' };
  if (buf.readUInt32LE(t) !== zlib.crc32(data) >>> 0) return { kind: 'invalid', reason: 'CRC-32 mismatch' };
  if (buf.readUInt32LE(t + 4) !== data.length % 2 ** 32) return { kind: 'invalid', reason: 'length mismatch' };
  return { kind: 'ok', length: t + 8 - at, data };
}

/** One complete member found in a file. */
export interface StoredMember {
  readonly offset: number;
  readonly length: number;
  /** The uncompressed record. */
  readonly data: Buffer;
}

const SCAN_WINDOW_BYTES = 4 * 1024 * 1024;

/**
 * The complete, valid members of an open file from `from` (a member boundary) up to `to`, in order;
 * stops at the first member that is torn or invalid. Reads through a window that grows to hold a
 * large member, so memory stays near the largest record.
 */
export function* scanMembers(fd: number, from: number, to: number): Generator<StoredMember, number> {
  let offset = from;
  let bufStart = from;
  let buf = readAt(fd, from, Math.min(SCAN_WINDOW_BYTES, to - from));
  while (offset < to) {
    const r = readGzipMember(buf, offset - bufStart);
    if (r.kind === 'ok') {
      yield { offset, length: r.length, data: r.data };
      offset += r.length;
      continue;
    }
    const bufEnd = bufStart + buf.length;
    if (r.kind === 'invalid' || bufEnd >= to) break;
    // The member runs past the window: read again from its start, at least twice as much.
    buf = readAt(fd, offset, Math.min(to - offset, Math.max(SCAN_WINDOW_BYTES, 2 * (bufEnd - offset))));
    bufStart = offset;
  }
  return offset;
}

/**
 * Cuts a WARC file after its last complete gzip member. Every member from the start is inflated and
 * its CRC-32 and length checked; the file is trusted up to the first member that is torn (a write cut
 * short by `kill -9` or a power loss) or does not decode, and everything from there is removed. Costs
 * one pass over the file.
 */
export function repairWarcTail(path: string): { keptBytes: number; droppedBytes: number } {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const it = scanMembers(fd, 0, size);
    let step = it.next();
    while (step.done !== true) step = it.next();
    const kept = step.value;
    if (kept < size) {
      ftruncateSync(fd, kept);
      fsyncSync(fd);
    }
    return { keptBytes: kept, droppedBytes: size - kept };
  } finally {
    closeSync(fd);
  }
}
