/**
 * Unsolicited `100 Continue` interim responses, hidden from undici.
 *
 * A client must parse any number of 1xx responses before the final one, even unasked (RFC 9110
 * §15.2). undici passes 1xx codes other than 100 to the dispatch handler, which skips them
 * (`fetch-call.ts`), but destroys the connection on a 100 it did not ask for (`bad response`), and
 * shoal never sends `Expect: 100-continue`. Servers and proxies do send them: each such page would
 * fail as a reset, be retried, and back its host off, every time.
 *
 * So the connector wraps each socket it opens: after a request is written, the bytes that arrive
 * first are checked, and complete `HTTP/1.x 100` heads at the start of a response are dropped
 * before undici's parser reads them (it reads with `socket.read()`). Everything else passes as it
 * came, and once the final response has begun nothing more is looked at until the next request.
 * A 100 head longer than {@link MAX_INTERIM_HEAD_BYTES} is passed on: undici then fails it as
 * before. The WARC response record is built from the final response's head, as replay expects.
 */
import type { Duplex } from 'node:stream';

/** Longest interim head dropped (a status line and a few fields). */
export const MAX_INTERIM_HEAD_BYTES = 8 * 1024;

/** `HTTP/1.` then a digit, a space and `100`, then a space or the end of the status line. */
const PREFIX = Buffer.from('HTTP/1.', 'latin1');
const STATUS_LINE_BYTES = 13;
const SPACE = 0x20;
const CR = 0x0d;
const LF = 0x0a;

/** Whether byte `c` may stand at offset `i` of a `100` status line. */
function fitsStatusLine(i: number, c: number): boolean {
  if (i < PREFIX.length) return c === PREFIX[i];
  if (i === 7) return c >= 0x30 && c <= 0x39; // the minor version
  if (i === 8) return c === SPACE;
  if (i === 9) return c === 0x31; // 1
  if (i < 12) return c === 0x30; // 0, 0
  return c === SPACE || c === CR || c === LF;
}

/**
 * How a response that starts with `data` begins: with a complete `100` interim head (its length in
 * bytes, the blank line included), `more` when the bytes so far could still be one, `none` when
 * they cannot.
 */
export function interimHeadLength(data: Uint8Array): number | 'more' | 'none' {
  const n = Math.min(data.length, STATUS_LINE_BYTES);
  for (let i = 0; i < n; i++) if (!fitsStatusLine(i, data[i] as number)) return 'none';
  if (data.length < STATUS_LINE_BYTES) return 'more';
  // The head ends at the first empty line (CRLF CRLF, or bare LFs as lenient parsers accept).
  for (let i = STATUS_LINE_BYTES - 1; i < data.length; i++) {
    if (data[i] !== LF) continue;
    if (data[i + 1] === LF) return i + 2;
    if (data[i + 1] === CR && data[i + 2] === LF) return i + 3;
  }
  return 'more';
}

/** Makes `socket` drop unsolicited `100` interim responses before its reader sees them (see the file comment). */
export function hideContinueResponses(socket: Duplex): void {
  const read = socket.read;
  const write = socket.write;
  let isAtHead = true;
  let held: Buffer | null = null;
  socket.write = function (this: Duplex, ...args: unknown[]): boolean {
    isAtHead = true;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Duplex['write'];
  socket.read = function (this: Duplex, size?: number): unknown {
    const chunk = read.call(this, size) as Buffer | null;
    if (!isAtHead || size === 0) return chunk;
    if (chunk === null) return null;
    let data = held === null ? chunk : Buffer.concat([held, chunk]);
    held = null;
    for (;;) {
      const r = interimHeadLength(data);
      if (r === 'none' || (r === 'more' && data.length > MAX_INTERIM_HEAD_BYTES)) {
        isAtHead = false;
        return data;
      }
      if (r === 'more') {
        held = data;
        return null;
      }
      data = data.subarray(r);
      if (data.length === 0) return null;
    }
  } as Duplex['read'];
}
