/**
 * One WARC/1.1 record (ISO 28500:2017) as bytes: the version line, named fields, a blank line, the
 * block, and two CRLFs. Builders exist for the five kinds shoal writes (`warcinfo`, `request`,
 * `response`, `metadata`, `revisit`); {@link encodeRecord} turns a record into the pieces a gzip
 * member is made of. The inverse ({@link parseWarcHead}, {@link parseHttpHead}, {@link readHttpHead})
 * reads what the writer stored, so the index can be rebuilt after a crash, and the archive replayed,
 * without any other WARC library.
 *
 * Bodies can be megabytes: a record keeps its block as the caller's buffers (never copied), and the
 * digests are computed over those pieces.
 *
 * Sources: WARC/1.1 §5 (named fields), §6 (record types), Annex D (gzip per record); the revisit
 * profile `identical-payload-digest` of §6.7.2.
 */
import { createHash, hash, randomUUID } from 'node:crypto';
import { sha1Text } from '../../core/digest-text.js';

/** The record types shoal writes (WARC/1.1 §6). */
export const WarcType = {
  warcinfo: 'warcinfo',
  request: 'request',
  response: 'response',
  metadata: 'metadata',
  revisit: 'revisit',
} as const;
export type WarcType = (typeof WarcType)[keyof typeof WarcType];

/** `WARC-Profile` of a revisit whose payload is byte-identical to an earlier capture. */
export const IDENTICAL_PAYLOAD_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

/** `WARC-Profile` of a revisit the server answered 304 Not Modified to (WARC/1.1 §6.7.3). */
export const SERVER_NOT_MODIFIED_PROFILE = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';
/** Content types of the blocks shoal writes. */
export const ContentType = {
  httpRequest: 'application/http;msgtype=request',
  httpResponse: 'application/http;msgtype=response',
  warcFields: 'application/warc-fields',
} as const;

/** One named field, `[name, value]`, in the order it is written. */
export type WarcField = readonly [name: string, value: string];

/** What the index needs from an HTTP message head. */
export interface HttpSummary {
  /** Status code, or null for a request or an unreadable status line. */
  readonly status: number | null;
  /** Media type of the payload without parameters, lower case (`text/html`), or null. */
  readonly mime: string | null;
}

/** A record ready to be encoded. Immutable; the block buffers belong to the caller and are not copied. */
export interface WarcRecord {
  readonly type: WarcType;
  /** `WARC-Record-ID`, `<urn:uuid:…>`. */
  readonly id: string;
  /** `WARC-Date` as written (ISO 8601 UTC with milliseconds). */
  readonly date: string;
  readonly targetUri: string | null;
  /** Named fields after type, id and date, except `WARC-Warcinfo-ID`, `Content-Type` and `Content-Length`. */
  readonly fields: readonly WarcField[];
  readonly contentType: string | null;
  /** The block, in pieces. */
  readonly block: readonly Buffer[];
  /** Bytes in the block (`Content-Length`). */
  readonly blockLength: number;
  /** `WARC-Payload-Digest`, or null when the record has none. */
  readonly payloadDigest: string | null;
  /** Status and media type of the HTTP head in the block (`response`, `revisit` with a head), else null. */
  readonly http: HttpSummary | null;
  /**
   * Bytes at the end of the block that are compressed already (a response body with a content coding,
   * or of a compressed media type such as JPEG or ZIP): the writer stores them in the gzip member
   * rather than deflating them again. 0 for none.
   */
  readonly storedPayloadBytes: number;
}

/** Fields every builder takes. */
export interface RecordBase {
  /** When the capture happened (`WARC-Date`), as a Date or ms since the epoch. */
  readonly date: Date | number;
  /** Record id to use instead of a fresh `<urn:uuid:…>` (tests, re-writing a record). */
  readonly id?: string;
}

/** A captured HTTP message: the head as it went over the wire, and the body. */
export interface HttpMessageInput extends RecordBase {
  readonly targetUri: string;
  /** Start line and header lines; a missing final blank line is added. A string is encoded with {@link encodeHttpText}. */
  readonly httpHead: Buffer | string;
  /** Entity body after transfer decoding (chunked framing removed, content encoding kept). Default empty. */
  readonly body?: Buffer;
  /** `WARC-IP-Address`: the address the message went to or came from. */
  readonly ipAddress?: string;
  /** `WARC-Concurrent-To`: ids of records of the same capture event. */
  readonly concurrentTo?: readonly string[];
}

/** A response; the payload digest may be given when the caller has already computed it (dedup). */
export interface ResponseInput extends HttpMessageInput {
  /** `sha1:BASE32` of the body; computed when absent. */
  readonly payloadDigest?: string;
}

/** A revisit (identical-payload-digest profile unless `profile` says otherwise): the new head only, no body. */
export interface RevisitInput extends RecordBase {
  /** `WARC-Profile`; default {@link IDENTICAL_PAYLOAD_PROFILE}. */
  readonly profile?: typeof IDENTICAL_PAYLOAD_PROFILE | typeof SERVER_NOT_MODIFIED_PROFILE;
  readonly targetUri: string;
  /** Digest of the identical payload (`sha1:BASE32`), as in the original record. */
  readonly payloadDigest: string;
  /** Target URI of the original capture. */
  readonly refersToTargetUri: string;
  /** `WARC-Date` of the original capture. */
  readonly refersToDate: Date | number | string;
  /** `WARC-Refers-To`: the original record's id, when known. */
  readonly refersTo?: string;
  /** Head of the new response (status line and headers); omitted: an empty block. */
  readonly httpHead?: Buffer | string;
  readonly ipAddress?: string;
  readonly concurrentTo?: readonly string[];
}

/** Metadata about a capture: `application/warc-fields` lines (outlinks, fetch time, fingerprints). */
export interface MetadataInput extends RecordBase {
  readonly targetUri: string;
  /** Lines of the block, in order; a name may repeat (one `outlink` per link). */
  readonly fields: readonly WarcField[];
  /** Usually the response this record describes. */
  readonly concurrentTo?: readonly string[];
  /** `WARC-Refers-To`: the record described, when it is not concurrent. */
  readonly refersTo?: string;
}

/** The record at the start of every file: who wrote it and how. */
export interface WarcinfoInput extends RecordBase {
  /** `WARC-Filename`: the file this record opens. */
  readonly filename: string;
  /** Block lines (`software`, `format`, `conformsTo`, `isPartOf`, `operator`, ...). */
  readonly fields: readonly WarcField[];
}

const CRLF = '\r\n';
/** The two CRLFs after every block. */
export const RECORD_TRAILER: Buffer = Buffer.from('\r\n\r\n', 'latin1');
const EMPTY = Buffer.alloc(0);
/** RFC 9110 token characters: what a field name may contain. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A fresh record id, `<urn:uuid:…>`. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * `WARC-Date` text: ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.123Z`). WARC/1.1 §5.4
 * allows fractions of a second; milliseconds are what the clock gives, and two captures of one URL
 * within the same second stay ordered.
 */
export function formatWarcDate(date: Date | number): string {
  return (typeof date === 'number' ? new Date(date) : date).toISOString();
}

/**
 * A target URI as written: unchanged when it is printable ASCII; otherwise (an IRI such as
 * `http://bücher.example/straße`) its ASCII URI form, punycode host and percent-encoded UTF-8, which
 * is what RFC 3986 and WARC-Target-URI call a URI. Readers differ on how they decode non-ASCII header
 * bytes (warcio.js reads latin1, Python warcio UTF-8); the ASCII form reads the same everywhere.
 */
export function uriForm(uri: string): string {
  if (/^[\x21-\x7e]*$/.test(uri)) return uri;
  try {
    return new URL(uri).href;
  } catch {
    return uri; // not a URL at all: written as given (sanitized)
  }
}

/** A header value with every run of CR and LF replaced by one space: a value can never end the header. */
export function sanitizeFieldValue(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/**
 * Header text as bytes: latin1 when every character fits in one byte (Node's HTTP parsers decode
 * header bytes as latin1, so this restores the bytes on the wire), UTF-8 otherwise.
 */
export function encodeHttpText(text: string): Buffer {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return Buffer.from(text, 'utf8');
  return Buffer.from(text, 'latin1');
}

/**
 * `sha1:` + RFC 4648 base32 of the SHA-1 of the concatenated pieces: the form of `WARC-Block-Digest`
 * and `WARC-Payload-Digest` that Heritrix, wget, warcio and pywb write (and the same as
 * `payloadDigest` in `dedup/content-digest.ts`, which takes one buffer).
 */
export function sha1Digest(pieces: readonly Uint8Array[]): string {
  if (pieces.length === 1) return sha1Text(hash('sha1', pieces[0] as Uint8Array, 'buffer'));
  const h = createHash('sha1');
  for (const p of pieces) h.update(p);
  return sha1Text(h.digest());
}

/** An HTTP head from a start line and header lines; values are sanitized like WARC fields. */
export function formatHttpHead(startLine: string, headers: Iterable<readonly [string, string]>): Buffer {
  // Line by line, so that one value beyond latin1 does not change how the others are encoded.
  const lines = [encodeHttpText(sanitizeFieldValue(startLine) + CRLF)];
  for (const [name, value] of headers) lines.push(encodeHttpText(`${sanitizeFieldValue(name)}: ${sanitizeFieldValue(value)}${CRLF}`));
  lines.push(RECORD_TRAILER.subarray(2));
  return Buffer.concat(lines);
}

function headBytes(head: Buffer | string): Buffer {
  const b = typeof head === 'string' ? encodeHttpText(head) : head;
  const n = b.length;
  // The block must be a complete HTTP message: a head without its blank line would swallow the body.
  // A head that ends in a blank line (CRLF or, from a sloppy server, bare LF) is kept as received.
  if (n >= 2 && b[n - 1] === 10 && (b[n - 2] === 10 || (n >= 3 && b[n - 2] === 13 && b[n - 3] === 10))) return b;
  if (n >= 1 && b[n - 1] === 10) return Buffer.concat([b, RECORD_TRAILER.subarray(2)]);
  return Buffer.concat([b, RECORD_TRAILER]);
}

/**
 * Status code and payload media type of an HTTP head (which may be followed by the body).
 * Tolerates bare-LF line ends; unknown parts are null.
 */
export function parseHttpHead(head: Buffer): HttpSummary {
  const { status, mime } = readHttpHead(head);
  return { status, mime };
}

/** An HTTP message head read back, with what it takes to read the body after it. */
export interface HttpHead extends HttpSummary {
  /** The first `Content-Type` value as written, or null. */
  readonly contentType: string | null;
  /** Every `Content-Encoding` value in order, joined with `, `; null when there is none. */
  readonly contentEncoding: string | null;
  /** The first `Location` value as written (a redirect's target, unresolved), or null. */
  readonly location: string | null;
  /** Where the body starts (just past the blank line that ends the head); −1 when the head does not end. */
  readonly bodyOffset: number;
}

/**
 * {@link parseHttpHead}, the raw `Content-Type` and `Content-Encoding` values, and where the body
 * starts: for readers of a stored response (the index, a replay of the archive).
 */
export function readHttpHead(message: Buffer): HttpHead {
  let end = message.indexOf('\r\n\r\n');
  let gap = 4;
  if (end < 0) {
    end = message.indexOf('\n\n');
    gap = 2;
  }
  const text = message.toString('latin1', 0, end < 0 ? Math.min(message.length, 65536) : end);
  const lines = text.split(/\r?\n/);
  const status = /^HTTP\/\d(?:\.\d)?[ \t]+(\d{3})(?:[ \t]|$)/.exec(lines[0] ?? '');
  let contentType: string | null = null;
  let contentEncoding: string | null = null;
  let location: string | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-type' && contentType === null) contentType = value;
    else if (name === 'content-encoding') contentEncoding = contentEncoding === null ? value : `${contentEncoding}, ${value}`;
    else if (name === 'location' && location === null) location = value;
  }
  return {
    status: status === null ? null : Number(status[1]),
    mime: contentType === null ? null : (contentType.split(';', 1)[0] ?? '').trim().toLowerCase() || null,
    contentType,
    contentEncoding,
    location,
    bodyOffset: end < 0 ? -1 : end + gap,
  };
}

/** Whether a `Content-Encoding` value names a content coding (anything but identity). */
function isEncodedBy(contentEncoding: string | null): boolean {
  return contentEncoding !== null && contentEncoding.split(',').some((c) => !/^\s*(identity)?\s*$/i.test(c));
}

/** Media types whose bytes are compressed already: deflating them again costs much and gains nothing. */
const COMPRESSED_MEDIA = new RegExp(
  '^(?:image/(?:jpeg|pjpeg|png|gif|webp|avif|heic|heif|jp2|jxl)|video/.+|audio/(?:mpeg|mp3|mp4|aac|ogg|opus|webm|flac)|' +
    'font/woff2?|application/(?:zip|gzip|x-gzip|x-bzip2|x-xz|zstd|x-7z-compressed|vnd\\.rar|x-rar-compressed|java-archive|' +
    'epub\\+zip|ogg|vnd\\.openxmlformats-officedocument\\..+|vnd\\.oasis\\.opendocument\\..+))$',
);

function checkName(name: string): string {
  if (!TOKEN.test(name)) throw new RangeError(`not a valid WARC field name: ${JSON.stringify(name)}`);
  return name;
}

/** An `application/warc-fields` block: `name: value` lines. */
export function warcFieldsBlock(fields: readonly WarcField[]): Buffer {
  let text = '';
  for (const [name, value] of fields) text += `${checkName(name)}: ${sanitizeFieldValue(value)}${CRLF}`;
  return Buffer.from(text, 'utf8');
}

function base(input: RecordBase, targetUri: string | null): { fields: WarcField[]; id: string; date: string } {
  const fields: WarcField[] = [];
  if (targetUri !== null) fields.push(['WARC-Target-URI', targetUri]);
  return { fields, id: input.id ?? newRecordId(), date: formatWarcDate(input.date) };
}

function concurrent(fields: WarcField[], ids: readonly string[] | undefined): void {
  for (const id of ids ?? []) fields.push(['WARC-Concurrent-To', id]);
}

function finish(
  type: WarcType,
  head: { fields: WarcField[]; id: string; date: string },
  targetUri: string | null,
  contentType: string | null,
  block: readonly Buffer[],
  payloadDigest: string | null,
  http: HttpSummary | null,
  storedPayloadBytes = 0,
): WarcRecord {
  let blockLength = 0;
  for (const b of block) blockLength += b.length;
  if (payloadDigest !== null) head.fields.push(['WARC-Payload-Digest', payloadDigest]);
  head.fields.push(['WARC-Block-Digest', sha1Digest(block)]);
  return {
    type,
    id: head.id,
    date: head.date,
    targetUri,
    fields: head.fields,
    contentType,
    block,
    blockLength,
    payloadDigest,
    http,
    storedPayloadBytes,
  };
}

/** A `warcinfo` record (WARC/1.1 §6.2). */
export function warcinfoRecord(input: WarcinfoInput): WarcRecord {
  const head = base(input, null);
  head.fields.push(['WARC-Filename', input.filename]);
  return finish(WarcType.warcinfo, head, null, ContentType.warcFields, [warcFieldsBlock(input.fields)], null, null);
}

/** A `request` record: the HTTP request as sent. A payload digest is written when there is a body. */
export function requestRecord(input: HttpMessageInput): WarcRecord {
  const uri = uriForm(input.targetUri);
  const head = base(input, uri);
  if (input.ipAddress !== undefined) head.fields.push(['WARC-IP-Address', input.ipAddress]);
  concurrent(head.fields, input.concurrentTo);
  const body = input.body ?? EMPTY;
  const block = body.length > 0 ? [headBytes(input.httpHead), body] : [headBytes(input.httpHead)];
  return finish(WarcType.request, head, uri, ContentType.httpRequest, block, body.length > 0 ? sha1Digest([body]) : null, null);
}

/** A `response` record: status line, headers and body as received. */
export function responseRecord(input: ResponseInput): WarcRecord {
  const uri = uriForm(input.targetUri);
  const head = base(input, uri);
  if (input.ipAddress !== undefined) head.fields.push(['WARC-IP-Address', input.ipAddress]);
  concurrent(head.fields, input.concurrentTo);
  const httpHead = headBytes(input.httpHead);
  const body = input.body ?? EMPTY;
  const digest = input.payloadDigest ?? sha1Digest([body]);
  const { status, mime, contentEncoding } = readHttpHead(httpHead);
  const isCompressed = isEncodedBy(contentEncoding) || (mime !== null && COMPRESSED_MEDIA.test(mime));
  return finish(
    WarcType.response,
    head,
    uri,
    ContentType.httpResponse,
    [httpHead, body],
    digest,
    { status, mime },
    isCompressed ? body.length : 0,
  );
}

/** A `metadata` record with an `application/warc-fields` block. */
export function metadataRecord(input: MetadataInput): WarcRecord {
  const uri = uriForm(input.targetUri);
  const head = base(input, uri);
  concurrent(head.fields, input.concurrentTo);
  if (input.refersTo !== undefined) head.fields.push(['WARC-Refers-To', input.refersTo]);
  return finish(WarcType.metadata, head, uri, ContentType.warcFields, [warcFieldsBlock(input.fields)], null, null);
}

/**
 * A `revisit` record of the identical-payload-digest profile (WARC/1.1 §6.7.2), or of the
 * server-not-modified one (§6.7.3, a 304 to a conditional request): the new response's head (if
 * given) and no body; the payload is the one of the record it refers to.
 */
export function revisitRecord(input: RevisitInput): WarcRecord {
  const uri = uriForm(input.targetUri);
  const head = base(input, uri);
  if (input.ipAddress !== undefined) head.fields.push(['WARC-IP-Address', input.ipAddress]);
  concurrent(head.fields, input.concurrentTo);
  if (input.refersTo !== undefined) head.fields.push(['WARC-Refers-To', input.refersTo]);
  head.fields.push(['WARC-Refers-To-Target-URI', uriForm(input.refersToTargetUri)]);
  const refDate = typeof input.refersToDate === 'string' ? input.refersToDate : formatWarcDate(input.refersToDate);
  head.fields.push(['WARC-Refers-To-Date', refDate]);
  head.fields.push(['WARC-Profile', input.profile ?? IDENTICAL_PAYLOAD_PROFILE]);
  if (input.httpHead === undefined) return finish(WarcType.revisit, head, uri, null, [], input.payloadDigest, null);
  const httpHead = headBytes(input.httpHead);
  return finish(WarcType.revisit, head, uri, ContentType.httpResponse, [httpHead], input.payloadDigest, parseHttpHead(httpHead));
}

/**
 * The header of `record` as bytes: version line, named fields, blank line. `warcinfoId` is the
 * `WARC-Warcinfo-ID` of the file the record goes into (the writer knows it; the builder does not).
 */
export function encodeHeader(record: WarcRecord, warcinfoId: string | null = null): Buffer {
  let text =
    `WARC/1.1${CRLF}WARC-Type: ${record.type}${CRLF}WARC-Record-ID: ${sanitizeFieldValue(record.id)}${CRLF}` +
    `WARC-Date: ${record.date}${CRLF}`;
  for (const [name, value] of record.fields) text += `${name}: ${sanitizeFieldValue(value)}${CRLF}`;
  if (warcinfoId !== null) text += `WARC-Warcinfo-ID: ${sanitizeFieldValue(warcinfoId)}${CRLF}`;
  if (record.contentType !== null) text += `Content-Type: ${record.contentType}${CRLF}`;
  text += `Content-Length: ${record.blockLength}${CRLF}${CRLF}`;
  return Buffer.from(text, 'utf8');
}

/** The whole record as pieces (header, block pieces, trailer), ready to be compressed; nothing is copied. */
export function encodeRecord(record: WarcRecord, warcinfoId: string | null = null): Buffer[] {
  return [encodeHeader(record, warcinfoId), ...record.block, RECORD_TRAILER];
}

/** Where {@link WarcRecord.storedPayloadBytes} lie in a record encoded in `rawBytes` bytes (they end the block), or null. */
export function storedRange(record: WarcRecord, rawBytes: number): { from: number; to: number } | null {
  if (record.storedPayloadBytes === 0) return null;
  const to = rawBytes - RECORD_TRAILER.length;
  return { from: to - record.storedPayloadBytes, to };
}

/** A record's header as read back: field names in lower case (repeated fields joined by `, `). */
export interface ParsedWarcHead {
  readonly version: string;
  readonly fields: ReadonlyMap<string, string>;
  /** Bytes of the header including its blank line: the block starts here. */
  readonly headerLength: number;
}

/** Reads the header of an uncompressed record; null when `data` does not start with a WARC header. */
export function parseWarcHead(data: Buffer): ParsedWarcHead | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0 || data.toString('latin1', 0, 5) !== 'WARC/') return null;
  const lines = data.toString('utf8', 0, end).split(CRLF);
  const fields = new Map<string, string>();
  let last: string | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== null) {
      fields.set(last, `${fields.get(last) ?? ''} ${line.trim()}`); // continuation line (§4)
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prev = fields.get(last);
    fields.set(last, prev === undefined ? value : `${prev}, ${value}`);
  }
  return { version: lines[0] ?? '', fields, headerLength: end + 4 };
}
