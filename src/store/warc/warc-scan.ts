/**
 * Walking the records of any WARC file, shoal's or another crawler's (wget, Heritrix, pywb, warcio):
 * WARC/1.0 or 1.1, each record its own gzip member (WARC/1.1 Annex D) or the file uncompressed.
 * For each record it yields where it lies in the file and its header, never its block, so a replay
 * can index a many-gigabyte file while holding one read window and one record header in memory.
 *
 * An uncompressed record is skipped by its `Content-Length`. A gzip member has no length field: the
 * only way past it is to inflate it. A member that fits a 1 MiB window (nearly every record) is
 * inflated at once; a larger one streams through `zlib.InflateRaw`, whose `bytesWritten` says where
 * its deflate data ended (what `readGzipMember` reads from the one-shot call). The CRC-32 and length
 * in each member's trailer are checked either way.
 *
 * A whole file gzipped as one stream (`gzip x.warc`) has no record offsets to serve from: it is
 * refused with a message that says so, rather than read in full.
 */
import { open, type FileHandle } from 'node:fs/promises';
import zlib from 'node:zlib';
import { parseWarcHead, type ParsedWarcHead } from './warc-record.js';

/** One record found in a file. */
export interface ScannedRecord {
  /** Where the record starts: its gzip member, or its `WARC/` line in an uncompressed file. */
  readonly offset: number;
  /** Bytes it takes in the file: the whole member, or header, block and trailing line ends. */
  readonly length: number;
  readonly head: ParsedWarcHead;
}

/** How a scan ended. */
export interface ScanEnd {
  /** Where the last whole record ends: the file size, unless its tail is torn or not WARC. */
  readonly endOffset: number;
  readonly fileBytes: number;
  /** Why the scan stopped before the end of the file, or null. */
  readonly problem: string | null;
}

/** Thrown when a file cannot be read as records at offsets. */
export class WarcFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WarcFormatError';
  }
}

const WINDOW_BYTES = 1024 * 1024;
/** Largest record header read; a header past this is not a WARC header. */
const MAX_HEADER_BYTES = 256 * 1024;
/** Output of the one-shot inflate: a member that inflates to more is streamed instead. */
const MAX_ONE_SHOT_BYTES = 8 * 1024 * 1024;

/** Whether a file starts with the gzip magic bytes. */
export async function isGzipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(2);
    await fh.read(b, 0, 2, 0);
    return b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** A read window over a file: bytes from a position, read again only when the position leaves it. */
class FileWindow {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
  ) {}

  /** The bytes from `pos` on: at least `min` of them, unless the file ends first. */
  async at(pos: number, min: number): Promise<Buffer> {
    const want = Math.min(min, this.size - pos);
    if (pos >= this.start && pos + want <= this.start + this.buf.length) return this.buf.subarray(pos - this.start);
    const n = Math.min(Math.max(min, WINDOW_BYTES), this.size - pos);
    const b = Buffer.allocUnsafe(Math.max(0, n));
    let got = 0;
    while (got < n) {
      const { bytesRead } = await this.fh.read(b, got, n - got, pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.buf = b.subarray(0, got);
    this.start = pos;
    return this.buf;
  }
}

/**
 * The records of a WARC file, in file order; the generator's return value says where and why it
 * stopped. Throws {@link WarcFormatError} when the file does not start with a WARC record.
 */
export async function* scanWarc(path: string): AsyncGenerator<ScannedRecord, ScanEnd> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const win = new FileWindow(fh, size);
    const first = await win.at(0, 2);
    const isGzip = first[0] === 0x1f && first[1] === 0x8b;
    let pos = 0;
    let n = 0;
    while (pos < size) {
      const r = isGzip ? await nextMember(win, pos) : await nextPlain(win, pos);
      if (r.kind === 'end') break;
      if (r.kind === 'bad') {
        if (n === 0) throw new WarcFormatError(`${path}: not a WARC file (${r.reason})`);
        return { endOffset: pos, fileBytes: size, problem: `${r.reason} at byte ${pos}` };
      }
      yield { offset: pos + r.lead, length: r.length - r.lead, head: r.head };
      pos += r.length;
      n++;
    }
    if (n === 0) throw new WarcFormatError(`${path}: not a WARC file (no records)`);
    return { endOffset: pos, fileBytes: size, problem: null };
  } finally {
    await fh.close();
  }
}

type Step =
  | {
      readonly kind: 'ok';
      readonly length: number;
      readonly head: ParsedWarcHead;
      /** Line ends before the record, counted in `length`. */
      readonly lead: number;
    }
  | { readonly kind: 'end' }
  | { readonly kind: 'bad'; readonly reason: string };

/** The uncompressed record at `pos`; line ends between records (one writer's extra CRLF) are skipped. */
async function nextPlain(win: FileWindow, pos: number): Promise<Step> {
  let buf = await win.at(pos, 64 * 1024);
  let skip = 0;
  while (skip < buf.length && (buf[skip] === 13 || buf[skip] === 10)) skip++;
  if (skip === buf.length) return { kind: 'end' };
  buf = buf.subarray(skip);
  let end = buf.indexOf('\r\n\r\n');
  if (end < 0 && buf.length < win.size - pos - skip) {
    buf = await win.at(pos + skip, MAX_HEADER_BYTES);
    end = buf.indexOf('\r\n\r\n');
  }
  const head = end < 0 ? null : parseWarcHead(buf);
  if (head === null) return { kind: 'bad', reason: 'no WARC record header' };
  const blockBytes = blockLength(head);
  if (blockBytes === null) return { kind: 'bad', reason: 'no valid Content-Length in the record header' };
  let length = skip + head.headerLength + blockBytes;
  if (pos + length > win.size) return { kind: 'bad', reason: 'the last record is cut short' };
  const tail = await win.at(pos + length, 4);
  let t = 0;
  while (t < 4 && t < tail.length && (tail[t] === 13 || tail[t] === 10)) t++;
  length += t;
  return { kind: 'ok', length, head, lead: skip };
}

function blockLength(head: ParsedWarcHead): number | null {
  const n = Number(head.fields.get('content-length') ?? Number.NaN);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** Bytes of the gzip header at the start of `buf`; null when incomplete, a string when invalid. */
function gzipHeaderBytes(buf: Buffer): number | string | null {
  if (buf.length < 10) return buf.length === 0 ? 'empty' : null;
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return 'no gzip member';
  const flags = buf[3] ?? 0;
  if ((flags & 0xe0) !== 0) return 'reserved gzip flags set';
  let p = 10;
  if ((flags & 4) !== 0) {
    if (p + 2 > buf.length) return null;
    p += 2 + buf.readUInt16LE(p);
  }
  for (const flag of [8, 16]) {
    if ((flags & flag) === 0) continue;
    const zero = p < buf.length ? buf.indexOf(0, p) : -1;
    if (zero < 0) return null;
    p = zero + 1;
  }
  if ((flags & 2) !== 0) p += 2;
  return p <= buf.length ? p : null;
}

/** What inflating one member gave: the deflate bytes it used, and the start, CRC-32 and size of its output. */
interface Inflated {
  readonly consumed: number;
  readonly head: Buffer;
  readonly crc: number;
  readonly size: number;
}

/** The gzip member at `pos`, its record's header, and its length in the file. */
async function nextMember(win: FileWindow, pos: number): Promise<Step> {
  let buf = await win.at(pos, 64 * 1024);
  if (buf.length === 0) return { kind: 'end' };
  const hb = gzipHeaderBytes(buf);
  if (typeof hb === 'string') return { kind: 'bad', reason: hb };
  if (hb === null) return { kind: 'bad', reason: 'the last gzip member is cut short' };
  // A member near the end of the window is read again from its start, so the one-shot inflate sees it whole.
  if (buf.length < WINDOW_BYTES / 4 && pos + buf.length < win.size) buf = await win.at(pos, WINDOW_BYTES);
  let inflated = oneShot(buf.subarray(hb));
  if (inflated === 'invalid') return { kind: 'bad', reason: 'a gzip member does not inflate' };
  if (inflated === null) inflated = await streamed(win, pos + hb);
  if (inflated === null) return { kind: 'bad', reason: 'the last gzip member is cut short or does not inflate' };
  const trailerAt = pos + hb + inflated.consumed;
  const trailer = await win.at(trailerAt, 8);
  if (trailer.length < 8) return { kind: 'bad', reason: 'the last gzip member is cut short' };
  if (trailer.readUInt32LE(0) !== inflated.crc >>> 0 || trailer.readUInt32LE(4) !== inflated.size % 2 ** 32) {
    return { kind: 'bad', reason: 'gzip CRC-32 or length mismatch' };
  }
  const head = parseWarcHead(inflated.head);
  if (head === null) return { kind: 'bad', reason: 'a gzip member that does not hold a WARC record header' };
  const blockBytes = blockLength(head);
  if (blockBytes === null) return { kind: 'bad', reason: 'no valid Content-Length in the record header' };
  // Record, CRLF CRLF, and a little slack for writers that add line ends; more than that is a second record.
  if (inflated.size > head.headerLength + blockBytes + 16) {
    throw new WarcFormatError(
      'the file is gzipped as one stream, not one gzip member per record (WARC/1.1 Annex D): ' +
        'records cannot be read at their offsets; decompress it (gunzip) and serve the .warc',
    );
  }
  return { kind: 'ok', length: hb + inflated.consumed + 8, head, lead: 0 };
}

/** Inflates a member held whole in `deflate`; null when it runs past the bytes or inflates past the one-shot limit. */
function oneShot(deflate: Buffer): Inflated | 'invalid' | null {
  try {
    const r = zlib.inflateRawSync(deflate, { info: true, maxOutputLength: MAX_ONE_SHOT_BYTES }) as unknown as {
      buffer: Buffer;
      engine: zlib.InflateRaw;
    };
    return {
      consumed: r.engine.bytesWritten,
      head: r.buffer.subarray(0, MAX_HEADER_BYTES),
      crc: zlib.crc32(r.buffer),
      size: r.buffer.length,
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR' || code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return null;
    return 'invalid';
  }
}

/** Inflates a member through a stream, keeping only the start of its output; null when it is cut short or corrupt. */
async function streamed(win: FileWindow, dataStart: number): Promise<Inflated | null> {
  const inflater = zlib.createInflateRaw();
  const head: Buffer[] = [];
  let headBytes = 0;
  let crc = 0;
  let size = 0;
  let isEnded = false;
  let failure: Error | null = null;
  inflater.on('data', (c: Buffer) => {
    crc = zlib.crc32(c, crc);
    size += c.length;
    if (headBytes < MAX_HEADER_BYTES) {
      head.push(c);
      headBytes += c.length;
    }
  });
  const ended = new Promise<void>((resolve) => {
    inflater.on('end', () => {
      isEnded = true;
      resolve();
    });
    inflater.on('error', (err) => {
      failure = err;
      resolve();
    });
  });
  let written = 0;
  let p = dataStart;
  while (!isEnded && failure === null && p < win.size) {
    const chunk = (await win.at(p, 1)).subarray(0, WINDOW_BYTES);
    p += chunk.length;
    written += chunk.length;
    await new Promise<void>((resolve) => inflater.write(chunk, () => resolve()));
    // The deflate data ended inside this chunk: the inflater took less than it was given.
    if (inflater.bytesWritten < written) break;
  }
  if (failure === null && !isEnded && inflater.bytesWritten >= written) inflater.end();
  await ended;
  if (failure !== null || !isEnded) return null;
  return { consumed: inflater.bytesWritten, head: Buffer.concat(head), crc, size };
}
