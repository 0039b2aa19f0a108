/**
 * WARC replay: the hosts of one or more WARC files served as virtual hosts of the test web, so a
 * real crawl (shoal's, wget's, Heritrix's, one made with pywb) can be replayed and crawled again
 * offline. Each response is sent as it was recorded: status line, headers (`Content-Encoding`
 * included, the body still encoded) and body; a revisit is answered with its own head and its
 * original's payload; a redirect is a recorded response like any other; a URL the files do not hold
 * answers 404.
 *
 * The framing is the server's own: the recorded `Content-Length`, `Transfer-Encoding` and the other
 * hop-by-hop headers are dropped and the body is sent with its true length. Writers differ on the
 * body after a `Transfer-Encoding: chunked` head: wget keeps the chunks, shoal and warcio store it
 * de-chunked; a chunked-framed body is de-chunked, any other sent as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConfigError } from '../core/errors.js';
import { openRecord, type RecordStream } from '../store/warc/record-stream.js';
import { WarcFormatError } from '../store/warc/warc-scan.js';
import { captureKey, WarcIndex, type WarcCapture } from './warc-index.js';

/** A host of the WARC files, on its loopback address. */
export interface WarcHost {
  readonly name: string;
  readonly ip: string;
}

/** What a WARC replay serves: the index of its files and its hosts. */
export interface WarcReplay {
  readonly index: WarcIndex;
  readonly hosts: readonly WarcHost[];
}

/** Headers that describe one connection or the message's framing, never the resource (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);

/**
 * Indexes the WARC files and gives each of their hosts an address of the pool, round-robin from
 * `firstAddress` (after the replay folders). A host already served (a synthetic host, a replay
 * folder) is a configuration error, as is a file that cannot be read as WARC.
 */
export async function openWarcReplay(
  paths: readonly string[],
  addresses: readonly string[],
  firstAddress: number,
  taken: (name: string) => boolean,
): Promise<WarcReplay | null> {
  if (paths.length === 0) return null;
  let index: WarcIndex;
  try {
    index = await WarcIndex.open(paths);
  } catch (err) {
    if (!(err instanceof WarcFormatError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
    const i = paths.findIndex((p) => (err as Error).message.includes(p));
    throw new ConfigError([{ path: `warc.${Math.max(0, i)}`, message: (err as Error).message }], { code: 'REPLAY_ROOT', cause: err });
  }
  const names = index.hosts;
  const clash = names.filter(taken);
  if (clash.length > 0) {
    const shown = clash.slice(0, 5).join(', ') + (clash.length > 5 ? `, … (${clash.length} in all)` : '');
    throw new ConfigError(
      [
        {
          path: 'warc',
          message: `hosts already served by the synthetic web or a replay folder: ${shown}; serve the WARC alone (hosts: 0)`,
        },
      ],
      { code: 'REPLAY_ROOT' },
    );
  }
  const hosts = names.map((name, i) => ({ name, ip: addresses[(firstAddress + i) % addresses.length] as string }));
  return { index, hosts };
}

/** A recorded HTTP response head: status, reason and header lines in order. */
interface RecordedHead {
  readonly status: number;
  readonly reason: string;
  readonly headers: readonly (readonly [string, string])[];
}

/** Reads a status line and headers (obs-fold continuation lines joined); null when it is not an HTTP response head. */
export function parseResponseHead(head: Buffer): RecordedHead | null {
  const lines = head.toString('latin1').split(/\r?\n/);
  const m = /^HTTP\/\d(?:\.\d)?[ \t]+(\d{3})(?:[ \t]+(.*))?$/.exec(lines[0] ?? '');
  if (m === null) return null;
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const last = headers.at(-1);
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      last[1] = `${last[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { status: Number(m[1]), reason: (m[2] ?? '').trim(), headers };
}

/** A chunked-framed body with its framing removed; null when `body` is not chunked framing (RFC 9112 §7.1). */
export function dechunk(body: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let p = 0;
  for (;;) {
    const eol = body.indexOf('\n', p);
    if (eol < 0 || eol - p > 1024) return null;
    const line = body.toString('latin1', p, eol).replace(/\r$/, '');
    const m = /^([0-9a-fA-F]{1,15})[ \t]*(?:;.*)?$/.exec(line);
    if (m === null) return null;
    const size = parseInt(m[1] as string, 16);
    p = eol + 1;
    if (size === 0) return Buffer.concat(parts); // trailer fields, if any, are dropped
    if (p + size > body.length) return null;
    parts.push(body.subarray(p, p + size));
    p += size;
    if (body[p] === 13) p++;
    if (body[p] !== 10) return null;
    p++;
  }
}

/** What one record gives a response: its head, and the reader of its body. */
interface Source {
  readonly record: RecordStream;
  readonly head: RecordedHead | null;
}

/** Opens a capture's record and reads its HTTP head; null for a record that cannot answer (another type, no HTTP head). */
async function openCapture(replay: WarcReplay, c: WarcCapture): Promise<Source | null> {
  const record = await openRecord(replay.index.locate(c));
  const type = record.head.fields.get('warc-type');
  if (type === 'resource') {
    const contentType = record.head.fields.get('content-type');
    return { record, head: { status: 200, reason: 'OK', headers: contentType === undefined ? [] : [['Content-Type', contentType]] } };
  }
  if (type === 'response' || type === 'revisit') {
    const raw = record.block.bytesLeft > 0 ? await record.block.readHead() : null;
    const head = raw === null ? null : parseResponseHead(raw);
    if (head !== null || type === 'revisit') return { record, head };
  }
  record.close();
  return null;
}

/**
 * The record and head that answer a URL: its newest usable capture; a revisit takes its original's
 * body (and its original's head too when it recorded none, or a 304 of a conditional request).
 */
async function sourceOf(replay: WarcReplay, key: string): Promise<{ head: RecordedHead; body: RecordStream; close(): void } | null> {
  for (const c of replay.index.captures(key)) {
    const own = await openCapture(replay, c);
    if (own === null) continue;
    if (!c.isRevisit) return { head: own.head as RecordedHead, body: own.record, close: () => own.record.close() };
    const f = own.record.head.fields;
    const original = replay.index.original(
      f.get('warc-refers-to-target-uri') ?? null,
      f.get('warc-refers-to-date') ?? null,
      f.get('warc-payload-digest') ?? null,
    );
    const from = original === null ? null : await openCapture(replay, original);
    if (from === null || from.head === null) {
      own.record.close();
      from?.record.close();
      continue;
    }
    const head = own.head === null || own.head.status === 304 ? from.head : own.head;
    return {
      head,
      body: from.record,
      close: () => {
        own.record.close();
        from.record.close();
      },
    };
  }
  return null;
}

/** Serves one request from the WARC files. */
export async function serveWarc(
  replay: WarcReplay,
  host: WarcHost,
  rawTarget: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ status: number; bytes: number }> {
  const plain = (status: number, msg: string): { status: number; bytes: number } => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(msg) });
    res.end(req.method === 'HEAD' ? undefined : msg);
    return { status, bytes: Buffer.byteLength(msg) };
  };
  const key = captureKey(`http://${host.name}${rawTarget.startsWith('/') ? rawTarget : `/${rawTarget}`}`);
  if (key === null) return plain(400, 'bad request target\n');
  let source: Awaited<ReturnType<typeof sourceOf>>;
  try {
    source = await sourceOf(replay, key);
  } catch (err) {
    return plain(500, `cannot read the capture: ${(err as Error).message}\n`);
  }
  if (source === null) return plain(404, 'not in the WARC files\n');
  try {
    return await send(source.head, source.body, req, res);
  } catch {
    // A record that ends before its Content-Length: the head may be out already, so cut the connection.
    res.destroy();
    return { status: 0, bytes: 0 };
  } finally {
    source.close();
  }
}

async function send(
  head: RecordedHead,
  record: RecordStream,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ status: number; bytes: number }> {
  const connectionTokens = new Set(
    head.headers
      .filter(([n]) => n.toLowerCase() === 'connection')
      .flatMap(([, v]) => v.split(','))
      .map((t) => t.trim().toLowerCase()),
  );
  const isChunked = head.headers.some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v));
  const headers: string[] = [];
  for (const [name, value] of head.headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionTokens.has(lower) || !isValidHeader(name, value)) continue;
    headers.push(name, value);
  }
  const status = head.status >= 200 && head.status <= 999 ? head.status : 502;
  const reason = /^[\t\x20-\x7e\x80-\xff]*$/.test(head.reason) && head.reason !== '' ? head.reason : (STATUS_CODES[status] ?? '');
  const hasBody = status !== 204 && status !== 304;
  let body: Buffer | null = null;
  if (isChunked) {
    // A body to inspect whole: chunked framing is only known to be framing once it parses to the end.
    const raw = await record.block.readAll();
    body = dechunk(raw) ?? raw;
  }
  const length = body?.length ?? record.block.bytesLeft;
  if (hasBody) headers.push('Content-Length', String(length));
  res.writeHead(status, reason, headers);
  if (req.method === 'HEAD' || !hasBody) {
    res.end();
    return { status, bytes: 0 };
  }
  if (body !== null) {
    res.end(body);
    return { status, bytes: body.length };
  }
  try {
    await pipeline(Readable.from(record.block.rest()), res);
  } catch {
    res.destroy();
  }
  return { status, bytes: length };
}

function isValidHeader(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
