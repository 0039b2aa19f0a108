/**
 * The byte keys of the frontier store. LMDB keeps keys in plain byte order, so each key is laid out
 * so that byte order is the order the frontier needs:
 *
 *     rank      = priority (8 bytes, descending) · seq (8 bytes, big-endian)
 *     URL key   = host (UTF-8) · 0x00 · rank        one host's URLs: best first, then FIFO
 *     host key  = rank · host (UTF-8)               waiting hosts: the one holding the best URL first
 *
 * The priority is the IEEE-754 double made byte-sortable (flip the sign bit of a positive number,
 * every bit of a negative one: the usual trick, as in ordered-binary and FoundationDB's tuple layer),
 * then inverted so that higher priorities sort first; −0 is stored as +0, because the memory frontier
 * treats them as equal. The 0x00 after the host ends it: no host name contains that byte and every
 * other byte is larger, so `host · 0x00 … host · 0x01` holds exactly one host's URLs (a host that is
 * a prefix of another, `a.test` and `a.test2`, stays apart).
 */

/** Bytes of a rank: the priority, then the add order. */
export const RANK_BYTES = 16;

const TWO_TO_32 = 2 ** 32;

/**
 * The rank of a URL: byte order is the frontier's order (higher priority first, then lower seq).
 * @throws RangeError on a non-finite priority or a seq that is not a safe integer >= 0.
 */
export function rankOf(priority: number, seq: number): Buffer {
  const rank = Buffer.allocUnsafe(RANK_BYTES);
  writeRank(rank, 0, priority, seq);
  return rank;
}

/**
 * The store key of a URL of `host` with this priority and seq.
 * @throws RangeError on an empty host, a host containing a NUL character, or a bad priority or seq.
 */
export function urlKey(host: string, priority: number, seq: number): Buffer {
  const hostBytes = hostBytesOf(host);
  const key = Buffer.allocUnsafe(hostBytes.length + 1 + RANK_BYTES);
  hostBytes.copy(key, 0);
  key[hostBytes.length] = 0;
  writeRank(key, hostBytes.length + 1, priority, seq);
  return key;
}

/** First key of `host`'s range of URL keys (inclusive). */
export function hostStart(host: string): Buffer {
  return Buffer.concat([hostBytesOf(host), Buffer.of(0)]);
}

/** End of `host`'s range of URL keys (exclusive). */
export function hostEnd(host: string): Buffer {
  return Buffer.concat([hostBytesOf(host), Buffer.of(1)]);
}

/** The smallest key greater than `key`: where a range that must skip `key` starts. */
export function keyAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.of(0)]);
}

/** A URL key taken apart. */
export interface UrlKeyParts {
  readonly host: string;
  readonly priority: number;
  readonly seq: number;
}

/** Takes a URL key apart; the inverse of {@link urlKey}. */
export function decodeUrlKey(key: Buffer): UrlKeyParts {
  const end = key.length - RANK_BYTES - 1;
  if (end < 1 || key[end] !== 0) throw new Error(`frontier store: not a URL key: ${key.toString('hex')}`);
  return { host: key.toString('utf8', 0, end), priority: readPriority(key, end + 1), seq: readSeq(key, end + 1 + 8) };
}

/** The host part of a URL key. */
export function hostOfUrlKey(key: Buffer): string {
  return key.toString('utf8', 0, key.length - RANK_BYTES - 1);
}

/** The rank part of a URL key (a copy). */
export function rankOfUrlKey(key: Buffer): Buffer {
  return Buffer.from(key.subarray(key.length - RANK_BYTES));
}

/** The key of `host` in the index of waiting hosts, ranked by its best URL. */
export function hostIndexKey(rank: Buffer, host: string): Buffer {
  return Buffer.concat([rank, hostBytesOf(host)]);
}

/** The host of a key of the index of waiting hosts. */
export function hostOfIndexKey(key: Buffer): string {
  return key.toString('utf8', RANK_BYTES);
}

/** The key of `host` in tables keyed by host name. */
export function hostBytesOf(host: string): Buffer {
  if (host.length === 0 || host.includes('\u0000')) throw new RangeError(`frontier store: a host must be non-empty and free of NUL, got ${JSON.stringify(host)}`);
  return Buffer.from(host, 'utf8');
}

function writeRank(out: Buffer, offset: number, priority: number, seq: number): void {
  if (!Number.isFinite(priority)) throw new RangeError(`frontier store: priority must be finite, got ${priority}`);
  if (!(Number.isSafeInteger(seq) && seq >= 0)) throw new RangeError(`frontier store: seq must be a safe integer >= 0, got ${seq}`);
  out.writeDoubleBE(priority === 0 ? 0 : priority, offset);
  // Ascending byte order first, then every bit inverted for descending.
  if ((out[offset] as number) & 0x80) invert(out, offset);
  else out[offset] = (out[offset] as number) ^ 0x80;
  invert(out, offset);
  out.writeUInt32BE(Math.floor(seq / TWO_TO_32), offset + 8);
  out.writeUInt32BE(seq % TWO_TO_32, offset + 12);
}

function readPriority(key: Buffer, offset: number): number {
  const bytes = Buffer.from(key.subarray(offset, offset + 8));
  invert(bytes, 0);
  if ((bytes[0] as number) & 0x80) bytes[0] = (bytes[0] as number) ^ 0x80;
  else invert(bytes, 0);
  return bytes.readDoubleBE(0);
}

function readSeq(key: Buffer, offset: number): number {
  return key.readUInt32BE(offset) * TWO_TO_32 + key.readUInt32BE(offset + 4);
}

function invert(bytes: Buffer, offset: number): void {
  for (let i = offset; i < offset + 8; i++) bytes[i] = ~(bytes[i] as number) & 0xff;
}
