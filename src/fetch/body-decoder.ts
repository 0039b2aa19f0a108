/**
 * Content decoding for the undici fetcher: which content codings a response carries, whether we
 * can undo them, and a streaming decoder that undoes them with node:zlib as bytes arrive.
 *
 * Why a decoder of our own: undici's size limit counts the bytes received, which for a compressed
 * body lets a small gzip bomb expand without bound. This decoder counts the decoded bytes (and the
 * output of every intermediate stage of a stacked coding) against a cap and stops at it. It knows
 * nothing of the call it serves: the fetcher feeds it raw chunks and is told, through callbacks,
 * when the cap is passed or the stream is corrupt.
 */
import type { Transform } from 'node:stream';
import {
  brotliDecompressSync,
  constants as zc,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';

/** Codings we undo; more than a few stacked codings is an attack, not a server. */
const SUPPORTED_CODINGS: ReadonlySet<string> = new Set(['gzip', 'deflate', 'br']);
const MAX_CODINGS = 3;
/**
 * Bodies up to this many bytes as received are decoded in one call when they end; larger ones are
 * decoded as they arrive. One call per body costs a fraction of a stream's per-chunk callbacks (a
 * crawl spends most of its decoding time there otherwise), and the cap bounds it: its output stops
 * at the limit like the stream's.
 */
const ONE_CALL_MAX_RAW_BYTES = 1024 * 1024;

/**
 * The content codings of a `Content-Encoding` value, in the order they were applied, lower-cased,
 * without `identity` and with `x-gzip` read as `gzip`. An absent header gives no codings.
 */
export function parseContentCodings(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
    .map((c) => (c === 'x-gzip' ? 'gzip' : c));
}

/** Whether {@link BodyDecoder} can undo these codings: all supported, and not too many stacked. */
export function canDecode(codings: readonly string[]): boolean {
  return codings.length <= MAX_CODINGS && codings.every((c) => SUPPORTED_CODINGS.has(c));
}

/**
 * Whether a "deflate" body starts with a zlib header. It should (RFC 9110 §8.4.1.2), but some
 * servers send raw deflate: a zlib header has compression method 8 in its low nibble, a window of
 * at most 32 KiB in its high nibble, and its first two bytes form a multiple of 31.
 */
function isZlibHeader(first: Buffer): boolean {
  const cmf = first[0] ?? 0;
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7) return false;
  return first.length < 2 || (cmf * 256 + (first[1] as number)) % 31 === 0;
}

/** What one call per coding made of a body: its output, or why there is none. */
export type OneCallResult =
  | { readonly kind: 'decoded'; readonly body: Buffer }
  /** A stage's output passed `maxBytes`. */
  | { readonly kind: 'over' }
  | { readonly kind: 'corrupt' };

/** A stream's output buffers: large enough to be mapped on their own (received-bytes.ts says why). */
const STREAM_CHUNK_BYTES = 256 * 1024;
/** The shortest gzip member: a 10-byte header, an empty deflate block and the 8-byte trailer. */
const MIN_GZIP_BYTES = 20;

/**
 * The output buffer for one call undoing `coding` on `data`. A gzip member ends with its decoded
 * length (ISIZE, modulo 2^32): with room for exactly that, the output is one buffer, with no
 * chunks to join, and a large body gets a buffer of its own rather than hundreds of 16 KiB pieces
 * of the malloc heap. Other codings get room for a guess of 4 times their input. A wrong guess (a
 * lying or cut-off trailer, several members) costs more buffers, or address space never written:
 * the room is capped at the limit, and only the pages written become resident.
 */
function outputChunkSize(coding: string, data: Buffer, maxBytes: number, isLenient: boolean): number {
  const guess = coding === 'gzip' && !isLenient && data.length >= MIN_GZIP_BYTES ? data.readUInt32LE(data.length - 4) : 4 * data.length;
  // One byte more than the output: with none to spare, zlib would allocate another buffer to find the end.
  // zlib's own output buffer size (16 KiB) is the smallest a one-call decode uses.
  return Math.max(zc.Z_DEFAULT_CHUNK, Math.min(guess, maxBytes) + 64);
}

/**
 * The whole of `data` decoded in one call per coding, each stage's output capped at `maxBytes`. The
 * codings must pass {@link canDecode}.
 */
export function decodeOnce(codings: readonly string[], data: Buffer, maxBytes: number, isLenient: boolean): OneCallResult {
  let out = data;
  try {
    for (let i = codings.length - 1; i >= 0 && out.length > 0; i--) {
      // the last coding applied is undone first
      const coding = codings[i] as string;
      const chunkSize = outputChunkSize(coding, out, maxBytes, isLenient);
      if (coding === 'br') {
        out = brotliDecompressSync(out, {
          maxOutputLength: maxBytes,
          chunkSize,
          ...(isLenient ? { finishFlush: zc.BROTLI_OPERATION_FLUSH } : {}),
        });
        continue;
      }
      const options = { maxOutputLength: maxBytes, chunkSize, ...(isLenient ? { finishFlush: zc.Z_SYNC_FLUSH } : {}) };
      if (coding === 'gzip') out = gunzipSync(out, options);
      else out = isZlibHeader(out) ? inflateSync(out, options) : inflateRawSync(out, options);
    }
  } catch (err) {
    return (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? { kind: 'over' } : { kind: 'corrupt' };
  }
  return { kind: 'decoded', body: out };
}

/**
 * {@link decodeOnce}'s output, or null when that is not the whole story: a stage's output passed
 * `maxBytes`, or the data is corrupt.
 */
export function decodeInOneCall(codings: readonly string[], data: Buffer, maxBytes: number, isLenient: boolean): Buffer | null {
  const r = decodeOnce(codings, data, maxBytes, isLenient);
  return r.kind === 'decoded' ? r.body : null;
}

/**
 * How {@link BodyDecoder} treats a body:
 * - `whole` (a page): a cut-off or corrupt stream is an error, and a body over the limit is refused
 *   whole: none of its output is kept;
 * - `prefix` (an error body, cut at a small cap): what a cut-off stream held is kept, and over the
 *   limit the first `maxBytes`.
 */
export type DecodeMode = 'whole' | 'prefix';

/**
 * Undoes content codings, keeping at most `maxBytes` of output (and of every intermediate stage, so
 * stacked codings cannot balloon either). Over the limit it stops and calls `onOver`; a corrupt
 * stream calls `onError`. The codings must pass {@link canDecode}. See {@link DecodeMode}.
 *
 * A body is held as received and decoded in one call when it ends, unless it grows past
 * {@link ONE_CALL_MAX_RAW_BYTES}: from there it is decoded as bytes arrive, so that a large bomb is
 * stopped while it downloads. When the one call meets a corrupt stream, or the limit in `prefix`
 * mode, the held bytes go through the stream instead, which then reports as it would have (and
 * keeps the prefix). A `whole` body over the limit in one call is refused there: a small gzip bomb
 * is decoded once, up to the limit, and nothing of it is held.
 */
export class BodyDecoder {
  /** Bytes held for one call; null once decoding as a stream. */
  private held: Buffer[] | null = [];
  private heldBytes = 0;
  private readonly stages: (Transform | null)[];
  private readonly stageBytes: number[];
  private readonly out: Buffer[] = [];
  private outBytes = 0;
  private isStopped = false;
  private finished: ((body: Buffer) => void) | null = null;

  constructor(
    private readonly codings: readonly string[],
    private readonly maxBytes: number,
    private readonly mode: DecodeMode,
    private readonly onOver: () => void,
    private readonly onError: (err: Error) => void,
  ) {
    this.stages = codings.map(() => null);
    this.stageBytes = codings.map(() => 0);
  }

  /** Feeds the next chunk of the body as received. */
  write(chunk: Buffer): void {
    if (this.held === null) {
      this.feed(0, chunk);
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes > ONE_CALL_MAX_RAW_BYTES) this.stream();
  }

  /**
   * Ends the input; resolves with the output: over the limit, the first `maxBytes` in `prefix` mode
   * and nothing in `whole` mode.
   */
  finish(): Promise<Buffer> {
    if (this.held !== null && !this.isStopped) {
      const data = this.held.length === 1 ? (this.held[0] as Buffer) : Buffer.concat(this.held);
      const r =
        data.length === 0
          ? ({ kind: 'decoded', body: data } as const)
          : decodeOnce(this.codings, data, this.maxBytes, this.mode === 'prefix');
      if (r.kind === 'decoded') {
        this.held = null;
        return Promise.resolve(r.body);
      }
      if (r.kind === 'over' && this.mode === 'whole') {
        this.held = null;
        this.over();
        return Promise.resolve(Buffer.alloc(0));
      }
      this.stream();
    }
    return new Promise((resolve) => {
      this.finished = resolve;
      if (this.isStopped) this.settle();
      else this.end(0);
    });
  }

  /** Goes on as a stream, starting with the bytes held so far. */
  private stream(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const chunk of held) this.feed(0, chunk);
  }

  /** Stops decoding; a pending {@link finish} resolves with what was decoded so far. */
  destroy(): void {
    this.isStopped = true;
    for (const s of this.stages) s?.destroy();
    this.settle();
  }

  private feed(i: number, chunk: Buffer): void {
    if (this.isStopped) return;
    if (i === this.codings.length) {
      const room = this.maxBytes - this.outBytes;
      this.outBytes += chunk.length;
      if (this.outBytes <= this.maxBytes) {
        this.out.push(chunk);
        return;
      }
      if (this.mode === 'prefix' && room > 0) this.out.push(chunk.subarray(0, room));
      this.over();
      return;
    }
    (this.stages[i] ?? this.open(i, chunk)).write(chunk);
  }

  private end(i: number): void {
    if (i === this.codings.length) {
      this.settle();
      return;
    }
    const stage = this.stages[i];
    // A stage that never got input (empty body) produces nothing: end the next one directly.
    if (stage === null || stage === undefined) this.end(i + 1);
    else stage.end();
  }

  private open(i: number, first: Buffer): Transform {
    const coding = this.codings[this.codings.length - 1 - i] as string; // the last coding applied is undone first
    // `prefix` keeps what a cut-off stream held (error bodies cut at their cap).
    const isLenient = this.mode === 'prefix';
    const flush = { chunkSize: STREAM_CHUNK_BYTES, ...(isLenient ? { finishFlush: zc.Z_SYNC_FLUSH } : {}) };
    let stage: Transform;
    if (coding === 'br')
      stage = createBrotliDecompress({ chunkSize: STREAM_CHUNK_BYTES, ...(isLenient ? { finishFlush: zc.BROTLI_OPERATION_FLUSH } : {}) });
    else if (coding === 'gzip') stage = createGunzip(flush);
    else stage = isZlibHeader(first) ? createInflate(flush) : createInflateRaw(flush);
    stage.on('data', (c: Buffer) => {
      this.stageBytes[i] = (this.stageBytes[i] ?? 0) + c.length;
      if (i < this.codings.length - 1 && (this.stageBytes[i] as number) > this.maxBytes) this.over();
      else this.feed(i + 1, c);
    });
    stage.on('end', () => this.end(i + 1));
    stage.on('error', (err: Error) => this.stop(() => this.onError(err)));
    this.stages[i] = stage;
    return stage;
  }

  /** The limit is passed: a `whole` body lets go of its output at once (a bomb's megabytes). */
  private over(): void {
    if (this.mode === 'whole') this.out.length = 0;
    this.stop(this.onOver);
  }

  private stop(then: () => void): void {
    if (this.isStopped) return;
    this.isStopped = true;
    for (const s of this.stages) s?.destroy();
    then();
    this.settle();
  }

  private settle(): void {
    const done = this.finished;
    this.finished = null;
    done?.(Buffer.concat(this.out));
  }
}
