/**
 * One WARC record read as a stream from its offset: the record header at once, then its block
 * piece by piece, so a replay can send a large body without holding it. Works for a gzip member
 * (any writer's: the header may carry a name, extra field or header CRC) and for an uncompressed
 * record alike. `warc-reader.ts` reads a whole record into memory instead, which crash recovery
 * wants; this is for bodies that go straight out to a socket.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parseWarcHead, type ParsedWarcHead } from './warc-record.js';

/** The most bytes a record header, or an HTTP head inside a block, may take. */
const MAX_HEAD_BYTES = 1024 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);

/** Where a record lies. */
export interface RecordAt {
  readonly path: string;
  readonly offset: number;
  /** Bytes of the member (or plain record) in the file, when known: nothing past it is read. */
  readonly length?: number;
  readonly isGzip: boolean;
}

/** A record being read: its header, and its block through {@link BlockReader}. */
export interface RecordStream {
  readonly head: ParsedWarcHead;
  readonly block: BlockReader;
  /** Stops reading and releases the file (idempotent). */
  close(): void;
}

/** Reads a record's block from the front: a head up to a delimiter, then the rest. */
export class BlockReader {
  private pending: Buffer;
  constructor(
    private readonly source: AsyncIterator<Buffer>,
    first: Buffer,
    /** Block bytes not yet returned, `pending` included. */
    private remaining: number,
  ) {
    this.pending = first.subarray(0, remaining);
  }

  /** Block bytes not yet read. */
  get bytesLeft(): number {
    return this.remaining;
  }

  /**
   * The bytes up to and including the first blank line (CRLF CRLF, or a bare LF LF), which ends an
   * HTTP head; null when the block ends or `MAX_HEAD_BYTES` pass without one (nothing is consumed).
   */
  async readHead(): Promise<Buffer | null> {
    for (;;) {
      const crlf = this.pending.indexOf('\r\n\r\n');
      const lf = this.pending.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
      if (end >= 0) return this.take(end);
      if (this.pending.length >= this.remaining || this.pending.length >= MAX_HEAD_BYTES) return null;
      if (!(await this.more())) return null;
    }
  }

  /** The rest of the block in one buffer. */
  async readAll(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const c of this.rest()) parts.push(c);
    return Buffer.concat(parts);
  }

  /** The rest of the block, piece by piece. */
  async *rest(): AsyncGenerator<Buffer> {
    while (this.remaining > 0) {
      if (this.pending.length === 0 && !(await this.more())) throw new Error('the record ends before its Content-Length');
      yield this.take(this.pending.length);
    }
  }

  private take(n: number): Buffer {
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    this.remaining -= n;
    return out;
  }

  private async more(): Promise<boolean> {
    const next = await this.source.next();
    if (next.done === true) return false;
    const want = this.remaining - this.pending.length;
    const c = next.value.length > want ? next.value.subarray(0, want) : next.value;
    this.pending = this.pending.length === 0 ? c : Buffer.concat([this.pending, c]);
    return true;
  }
}

/**
 * Opens the record at `at`: reads and parses its header, leaves the block to read. Throws when the
 * bytes there are not a WARC record (a stale index, a foreign file).
 */
export async function openRecord(at: RecordAt): Promise<RecordStream> {
  const file = createReadStream(at.path, {
    start: at.offset,
    ...(at.length === undefined ? {} : { end: at.offset + at.length - 1 }),
    highWaterMark: 64 * 1024,
  });
  const stream: Readable = at.isGzip ? file.pipe(createGunzip()) : file;
  const close = (): void => {
    file.destroy();
    if (stream !== file) stream.destroy();
  };
  file.on('error', (err) => stream.destroy(err));
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    let buf: Buffer = EMPTY;
    let end = -1;
    while (end < 0) {
      const next = await source.next();
      if (next.done === true) break;
      buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
      end = buf.indexOf('\r\n\r\n');
      if (end < 0 && buf.length > MAX_HEAD_BYTES) break;
    }
    const head = end < 0 ? null : parseWarcHead(buf);
    if (head === null) throw new Error(`no WARC record at byte ${at.offset} of ${at.path}`);
    const blockBytes = Number(head.fields.get('content-length') ?? Number.NaN);
    if (!Number.isSafeInteger(blockBytes) || blockBytes < 0) throw new Error(`no valid Content-Length in the record at byte ${at.offset}`);
    return { head, block: new BlockReader(source, buf.subarray(head.headerLength), blockBytes), close };
  } catch (err) {
    close();
    throw err;
  }
}
