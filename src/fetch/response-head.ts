/**
 * The wire-level records of an undici fetch: the response head (status line and header block as
 * received, plus the parsed header map), the parts of it the outcome carries (content type and
 * charset, the resolved `Location`), and the request bytes when undici's own copy was missed.
 *
 * Why a file of its own: these are pure functions of what undici hands the dispatch handler; they
 * need none of the call's state, so they sit apart from the fetcher's state machine and can be read
 * (and changed) without it. The WARC writer needs the bytes exactly as sent and received, which is
 * why the head is rebuilt from undici's raw header buffers rather than its parsed header object.
 */
import { STATUS_CODES } from 'node:http';
import type { ResponseHead } from './fetcher.js';

/**
 * The response's header pairs as a flat `[name, value, ...]` list: undici's raw buffers when it
 * gives them (`rawHeaders`), else rebuilt from its parsed header object.
 */
export function headerPairs(raw: unknown, headers: Record<string, string | string[] | undefined>): readonly (Buffer | string)[] {
  return Array.isArray(raw)
    ? (raw as (Buffer | string)[])
    : Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, v ?? '']));
}

/**
 * Builds the response head from undici's raw `[name, value, ...]` buffers, keeping them as received.
 * A missing reason phrase is filled in from Node's status phrases; repeated headers are joined with
 * `, ` in the parsed map (names lower-cased) and kept separate in the raw block.
 */
export function responseHead(status: number, statusText: string | undefined, raw: readonly (Buffer | string)[]): ResponseHead {
  const reason = statusText === undefined || statusText === '' ? (STATUS_CODES[status] ?? '') : statusText;
  const parts: Buffer[] = [Buffer.from(`HTTP/1.1 ${status} ${reason}\r\n`, 'latin1')];
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = Buffer.isBuffer(raw[i]) ? (raw[i] as Buffer) : Buffer.from(raw[i] as string, 'latin1');
    const value = Buffer.isBuffer(raw[i + 1]) ? (raw[i + 1] as Buffer) : Buffer.from(raw[i + 1] as string, 'latin1');
    parts.push(name, Buffer.from(': '), value, Buffer.from('\r\n'));
    const key = name.toString('latin1').toLowerCase();
    const text = value.toString('latin1');
    const previous = headers[key];
    headers[key] = previous === undefined ? text : `${previous}, ${text}`;
  }
  parts.push(Buffer.from('\r\n'));
  return { status, statusText: reason, headers, raw: Buffer.concat(parts) };
}

/** The parts of a `Content-Type` value a crawler uses: the media type and charset, lower-cased. */
export function parseContentType(value: string | undefined): { type: string | null; charset: string | null } {
  if (value === undefined) return { type: null, charset: null };
  const [essence = '', ...params] = value.split(';');
  let charset: string | null = null;
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(p);
    if (m !== null && m[1] !== '') charset = (m[1] as string).toLowerCase();
  }
  const type = essence.trim().toLowerCase();
  return { type: type === '' ? null : type, charset };
}

/**
 * `Location` resolved against the request URL, or null when absent or unparseable. Servers write
 * raw UTF-8 there; the URL parser escapes it.
 */
export function resolveLocation(value: string | undefined, base: string): string | null {
  if (value === undefined) return null;
  const bytes = Buffer.from(value, 'latin1');
  const utf8 = bytes.toString('utf8');
  const text = Buffer.from(utf8, 'utf8').equals(bytes) ? utf8 : value;
  try {
    return new URL(text.trim(), base).href;
  } catch {
    return null;
  }
}

/**
 * The request bytes rebuilt from what we asked undici to send, for when its `sendHeaders` message
 * was missed: request line (absolute form for plain http through a proxy), the `host` and
 * `connection` headers undici adds, then ours.
 */
export function rebuildRequest(method: string, target: URL, isProxied: boolean, headers: Readonly<Record<string, string>>): Buffer {
  const line = isProxied && target.protocol === 'http:' ? target.href : `${target.pathname}${target.search}`;
  const lines = [`${method} ${line} HTTP/1.1`, `host: ${target.host}`, 'connection: keep-alive'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}
