/**
 * Bytes for the messages between nodes (SPEC §4.5): what the outbox stores and what NATS carries.
 *
 * Layout: `[u8 format version = 1][u8 flags][payload]`. The payload is MessagePack written by
 * msgpackr without its record extension (`useRecords: false`), so any MessagePack reader can read
 * it. Flag bit 0 says the payload is deflated (raw deflate, level 1: speed over ratio, the CPU is
 * the crawler's). Forwarded pages are always deflated (SPEC: forwarded pages are compressed); other
 * messages only when their payload exceeds {@link DEFLATE_THRESHOLD_BYTES}.
 *
 * Decoding is the trust boundary of a node: bytes come from another machine. {@link decodeMessage}
 * therefore checks every field by hand (no schema library on this hot path), rebuilds the message
 * from the fields it knows (unknown fields are dropped, so a newer sender that adds an optional field
 * does not break an older receiver; anything incompatible bumps the version byte), caps the inflated
 * size (a message must not be a zip bomb), and turns every failure into one `ShoalError` with code
 * `EXCHANGE_MESSAGE_INVALID` saying what is wrong. A link summary's `shares` and `outDegrees` are
 * such optional fields: a receiver that predates them drops them and orders without them.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import { ShoalError } from '../core/errors.js';
import type { ControlMessage, ExchangeMessage, ExchangedUrl, ForwardedPageMessage, SimHashBatchMessage } from './messages.js';

/** The format version written in the first byte. */
export const CODEC_VERSION = 1;
/** Flag bit 0: the payload is raw-deflated. */
const FLAG_DEFLATED = 0b1;
/** Payloads above this many bytes are deflated (pages always are). */
export const DEFLATE_THRESHOLD_BYTES = 1024;
/** Largest payload accepted after inflating, in bytes: 64 MiB. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** Longest URL accepted, in characters: far above any crawl's `maxLength`, low enough to bound memory. */
const MAX_URL_CHARS = 64 * 1024;
/** A normalized http(s) URL: no whitespace or control characters (normalization percent-encodes them). */
const URL_PATTERN = /^https?:\/\/[^\x00-\x20\x7f]+$/;

const packr = new Packr({ useRecords: false });
// int64 as number: a too-large integer then fails the safe-integer checks below instead of being a bigint.
const unpackr = new Unpackr({ useRecords: false, int64AsType: 'number' });
// Byte fields of a payload that was not inflated would be views into the caller's buffer, which a
// transport may reuse: copy them.
const copyingUnpackr = new Unpackr({ useRecords: false, int64AsType: 'number', copyBuffers: true });

/** Encodes a message; the result belongs to the caller. The message is trusted to match its type. */
export function encodeMessage(m: ExchangeMessage): Uint8Array {
  const payload = packr.pack(canonical(m));
  const isDeflated = m.kind === 'page' || payload.length > DEFLATE_THRESHOLD_BYTES;
  const body = isDeflated ? deflateRawSync(payload, { level: 1 }) : payload;
  const out = new Uint8Array(2 + body.length);
  out[0] = CODEC_VERSION;
  out[1] = isDeflated ? FLAG_DEFLATED : 0;
  out.set(body, 2);
  return out;
}

/**
 * Decodes and validates a message. Throws `ShoalError('EXCHANGE_MESSAGE_INVALID')` for anything that
 * is not a well-formed message of this version; never returns a malformed one. Byte fields of the
 * result are views into a buffer private to the result.
 */
export function decodeMessage(bytes: Uint8Array): ExchangeMessage {
  if (!(bytes instanceof Uint8Array)) invalid('not a byte array');
  if (bytes.length < 3) invalid(`${bytes.length} bytes is too short for a message`);
  if (bytes[0] !== CODEC_VERSION) invalid(`unknown format version ${bytes[0]}`);
  const flags = bytes[1] ?? 0;
  if ((flags & ~FLAG_DEFLATED) !== 0) invalid(`unknown flags 0x${flags.toString(16)}`);
  const isDeflated = (flags & FLAG_DEFLATED) !== 0;
  let payload: Uint8Array = bytes.subarray(2);
  if (isDeflated) {
    try {
      payload = inflateRawSync(payload, { maxOutputLength: MAX_INFLATED_BYTES });
    } catch (err) {
      throw new ShoalError(
        'EXCHANGE_MESSAGE_INVALID',
        `payload does not inflate to at most ${MAX_INFLATED_BYTES} bytes: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
  let value: unknown;
  try {
    value = (isDeflated ? unpackr : copyingUnpackr).unpack(payload);
  } catch (err) {
    throw new ShoalError('EXCHANGE_MESSAGE_INVALID', `payload is not MessagePack: ${(err as Error).message}`, { cause: err });
  }
  return readMessage(value);
}

function invalid(what: string): never {
  throw new ShoalError('EXCHANGE_MESSAGE_INVALID', what);
}

/** A plain object of known fields, without `undefined` (msgpackr would write an extension for it). */
function canonical(m: ExchangeMessage): Record<string, unknown> {
  switch (m.kind) {
    case 'urls':
      return { kind: m.kind, from: m.from, seq: m.seq, urls: m.urls.map(canonicalUrl) };
    case 'page': {
      // Fields in a fixed order: the deflated size then does not depend on how the sender built the object.
      const out: Record<string, unknown> = {
        kind: m.kind,
        from: m.from,
        seq: m.seq,
        url: m.url,
        depth: m.depth,
        fromUrl: m.fromUrl,
        fetchedAtMs: m.fetchedAtMs,
        durationMs: m.durationMs,
        ip: m.ip,
        request: m.request,
        status: m.status,
        statusText: m.statusText,
        headers: m.headers,
        responseHead: m.responseHead,
        rawBody: m.rawBody,
        contentEncodings: m.contentEncodings,
        contentType: m.contentType,
        charset: m.charset,
      };
      if (m.body !== undefined) out.body = m.body;
      return out;
    }
    case 'links': {
      const out: Record<string, unknown> = { kind: m.kind, from: m.from, seq: m.seq, counts: m.counts };
      if (m.shares !== undefined) out.shares = m.shares;
      if (m.outDegrees !== undefined) out.outDegrees = m.outDegrees;
      if (m.partition !== undefined) out.partition = m.partition;
      return out;
    }
    case 'simhashes':
      return { kind: m.kind, from: m.from, seq: m.seq, urls: m.urls, simhashes: m.simhashes };
    case 'control':
      return { kind: m.kind, from: m.from, seq: m.seq, control: m.control };
  }
}

function canonicalUrl(u: ExchangedUrl): Record<string, unknown> {
  const out: Record<string, unknown> = { url: u.url, depth: u.depth, fromUrl: u.fromUrl };
  if (u.anchorText !== undefined) out.anchorText = u.anchorText;
  if (u.priorityHint !== undefined) out.priorityHint = u.priorityHint;
  return out;
}

type Fields = Readonly<Record<string, unknown>>;

function isFields(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function fields(v: unknown, path: string): Fields {
  if (!isFields(v)) invalid(`${path} is not a map`);
  return v;
}

function str(o: Fields, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') invalid(`${path}.${key} is not a string`);
  return v;
}

function nullableStr(o: Fields, key: string, path: string): string | null {
  return o[key] === null ? null : str(o, key, path);
}

function int(o: Fields, key: string, path: string, min = 0): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) invalid(`${path}.${key} is not an integer >= ${min}`);
  return v;
}

function finite(o: Fields, key: string, path: string, min = -Infinity): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) invalid(`${path}.${key} is not a finite number >= ${min}`);
  return v;
}

function urlValue(v: unknown, path: string): string {
  if (typeof v !== 'string' || v.length > MAX_URL_CHARS || !URL_PATTERN.test(v)) invalid(`${path} is not an http(s) URL`);
  return v;
}

function nullableUrl(o: Fields, key: string, path: string): string | null {
  return o[key] === null ? null : urlValue(o[key], `${path}.${key}`);
}

function bytesField(o: Fields, key: string, path: string): Uint8Array {
  const v = o[key];
  if (!(v instanceof Uint8Array)) invalid(`${path}.${key} is not binary`);
  // A plain Uint8Array view (msgpackr returns Buffers): the type the sender had, without a copy.
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function array(o: Fields, key: string, path: string): readonly unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) invalid(`${path}.${key} is not an array`);
  return v;
}

function readMessage(value: unknown): ExchangeMessage {
  const o = fields(value, 'message');
  const from = str(o, 'from', 'message');
  if (from === '') invalid('message.from is empty');
  const seq = int(o, 'seq', 'message', 1);
  switch (o.kind) {
    case 'urls':
      return { kind: 'urls', from, seq, urls: array(o, 'urls', 'message').map((u, i) => readUrl(u, `message.urls[${i}]`)) };
    case 'page':
      return readPage(o, from, seq);
    case 'links': {
      const counts = array(o, 'counts', 'message').map((pair, i): readonly [string, number] => {
        const path = `message.counts[${i}]`;
        if (!Array.isArray(pair) || pair.length !== 2) invalid(`${path} is not a [url, count] pair`);
        const n: unknown = pair[1];
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) invalid(`${path}[1] is not an integer >= 0`);
        return [urlValue(pair[0], `${path}[0]`), n];
      });
      const shares = o.shares === undefined ? undefined : readShares(o.shares, counts.length);
      const outDegrees = o.outDegrees === undefined ? undefined : readOutDegrees(o.outDegrees, counts.length);
      return {
        kind: 'links',
        from,
        seq,
        counts,
        ...(shares === undefined ? {} : { shares }),
        ...(outDegrees === undefined ? {} : { outDegrees }),
        ...(o.partition === undefined ? {} : { partition: int(o, 'partition', 'message', 0) }),
      };
    }
    case 'simhashes':
      return readSimHashes(o, from, seq);
    case 'control':
      return { kind: 'control', from, seq, control: readControl(fields(o.control, 'message.control')) };
    default:
      return invalid(`unknown message kind ${JSON.stringify(typeof o.kind === 'string' ? o.kind.slice(0, 40) : typeof o.kind)}`);
  }
}

/** A link summary's shares: finite numbers >= 0, one per count. */
function readShares(value: unknown, length: number): readonly number[] {
  if (!Array.isArray(value) || value.length !== length) invalid(`message.shares is not an array of ${length} numbers`);
  return value.map((x: unknown, i): number => {
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) invalid(`message.shares[${i}] is not a finite number >= 0`);
    return x;
  });
}

/** A link summary's out-degrees: integers >= 0, one per count. */
function readOutDegrees(value: unknown, length: number): readonly number[] {
  if (!Array.isArray(value) || value.length !== length) invalid(`message.outDegrees is not an array of ${length} integers`);
  return value.map((x: unknown, i): number => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) invalid(`message.outDegrees[${i}] is not an integer >= 0`);
    return x;
  });
}

/** A SimHash batch: one URL per 8 bytes of fingerprints, none of them 0 (an empty page's, never shared). */
function readSimHashes(o: Fields, from: string, seq: number): SimHashBatchMessage {
  const urls = array(o, 'urls', 'message').map((u, i) => urlValue(u, `message.urls[${i}]`));
  const simhashes = bytesField(o, 'simhashes', 'message');
  if (simhashes.length !== 8 * urls.length)
    invalid(`message.simhashes holds ${simhashes.length} bytes, not 8 for each of ${urls.length} URLs`);
  const view = new DataView(simhashes.buffer, simhashes.byteOffset, simhashes.byteLength);
  for (let i = 0; i < urls.length; i++) {
    if (view.getUint32(8 * i) === 0 && view.getUint32(8 * i + 4) === 0) invalid(`message.simhashes[${i}] is 0`);
  }
  return { kind: 'simhashes', from, seq, urls, simhashes };
}

function readUrl(value: unknown, path: string): ExchangedUrl {
  const o = fields(value, path);
  const u: { -readonly [K in keyof ExchangedUrl]: ExchangedUrl[K] } = {
    url: urlValue(o.url, `${path}.url`),
    depth: int(o, 'depth', path),
    fromUrl: nullableUrl(o, 'fromUrl', path),
  };
  if (o.anchorText !== undefined) u.anchorText = str(o, 'anchorText', path);
  if (o.priorityHint !== undefined) u.priorityHint = finite(o, 'priorityHint', path);
  return u;
}

function readPage(o: Fields, from: string, seq: number): ForwardedPageMessage {
  const p = 'message';
  const headers = fields(o.headers, `${p}.headers`);
  const headerCopy: Record<string, string> = {};
  // Own data properties only (defineProperty: a header named __proto__ stays a header).
  for (const name of Object.keys(headers)) {
    Object.defineProperty(headerCopy, name, {
      value: str(headers, name, `${p}.headers`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const contentEncodings = array(o, 'contentEncodings', p).map((e, i) => {
    if (typeof e !== 'string') invalid(`${p}.contentEncodings[${i}] is not a string`);
    return e;
  });
  const page: ForwardedPageMessage = {
    kind: 'page',
    from,
    seq,
    url: urlValue(o.url, `${p}.url`),
    depth: int(o, 'depth', p),
    fromUrl: nullableUrl(o, 'fromUrl', p),
    fetchedAtMs: finite(o, 'fetchedAtMs', p, 0),
    durationMs: finite(o, 'durationMs', p, 0),
    ip: nullableStr(o, 'ip', p),
    request: bytesField(o, 'request', p),
    status: int(o, 'status', p),
    statusText: str(o, 'statusText', p),
    headers: headerCopy,
    responseHead: bytesField(o, 'responseHead', p),
    rawBody: bytesField(o, 'rawBody', p),
    contentEncodings,
    contentType: nullableStr(o, 'contentType', p),
    charset: nullableStr(o, 'charset', p),
  };
  return o.body === undefined ? page : { ...page, body: bytesField(o, 'body', p) };
}

function readControl(c: Fields): ControlMessage['control'] {
  const p = 'message.control';
  switch (c.kind) {
    case 'stats':
      return {
        kind: 'stats',
        pages: int(c, 'pages', p),
        bytes: int(c, 'bytes', p),
        frontier: int(c, 'frontier', p),
        atMs: finite(c, 'atMs', p, 0),
      };
    case 'stop':
      return { kind: 'stop', reason: str(c, 'reason', p) };
    default:
      return invalid(`unknown control kind ${JSON.stringify(typeof c.kind === 'string' ? c.kind.slice(0, 40) : typeof c.kind)}`);
  }
}
