/**
 * The fetcher (SPEC §2 item 8): one HTTP GET or HEAD of one URL, with the result as data.
 *
 * **Contract.**
 * - `fetch` never rejects for anything the Web or the network does. Every call resolves to exactly
 *   one {@link FetchOutcome}: a page, a 304, a redirect, an HTTP error, or the way the attempt
 *   failed (DNS, address refused, connect, timeout and its phase, reset, size limit, transfer rate,
 *   encoding, protocol). It rejects only for caller bugs (a URL that is not absolute http or https).
 * - Time limits: besides its timeouts (connect, first byte, silence within the body, whole call),
 *   an implementation may set a lowest transfer rate for bodies: a body that arrives too slowly (a
 *   server dripping a byte a second stays clear of every silence limit; a body that stalls for a
 *   whole window counts too) is cut and resolves `too-slow` with what was received and the limits,
 *   well before the whole-call limit.
 * - Redirects are never followed: a 3xx is returned with its `Location` resolved against the
 *   request URL, and the crawler queues the target as a link (so robots.txt, scope, politeness and
 *   the URL-seen test apply to it like to any other link).
 * - Connections are kept alive and reused per origin (scheme, host, port). Implementations bound
 *   the connections per origin and drop idle ones.
 * - Addresses are checked after name resolution, on the address actually connected to, so a name
 *   that resolves to a refused address (SPEC §8) yields `address-denied` and no connection.
 * - What is recorded: the request exactly as written on the wire, the response status line and
 *   header block, the body as received (still compressed) and decoded, the IP connected to and the
 *   durations of each phase: everything a WARC writer and the crawl log need.
 * - Cancellation: an `AbortSignal` given to `fetch` ends that call with an `aborted` outcome and
 *   abandons its connection. `close()` is idempotent, aborts every call in flight (they resolve
 *   `aborted`, reason `closed`), closes every connection; a `fetch` after `close()` resolves
 *   `aborted` at once.
 *
 * **Sources.** SPEC §2 item 8 and §8; Mercator (seed 001) on the fetcher as a protocol module;
 * RFC 9110 (semantics: conditional requests §13, Retry-After §10.2.3, content codings §8.4).
 */
import type { AddressKind } from './address-guard.js';

/** Methods the fetcher sends. */
export const FetchMethod = { get: 'GET', head: 'HEAD' } as const;
export type FetchMethod = (typeof FetchMethod)[keyof typeof FetchMethod];

/** One request. */
export interface FetchRequest {
  /** Absolute http or https URL, already normalized (SPEC §2 item 2). */
  readonly url: string;
  /** Default `GET`. */
  readonly method?: FetchMethod;
  /** ETag of the copy already held: sent as `If-None-Match` (re-crawls). */
  readonly etag?: string;
  /** Last-Modified of the copy already held: sent as `If-Modified-Since` (re-crawls). */
  readonly lastModified?: string;
  /** The page the URL was found on, sent as `Referer`. */
  readonly referer?: string;
}

/** Durations of one call, in ms. */
export interface FetchTimings {
  /**
   * How long name resolution took when this request opened a new connection; 0 when it reused a
   * kept-alive connection (no lookup was needed) or went through a proxy (which resolves names).
   */
  readonly dnsMs: number;
  /** How long the TCP (and TLS) set-up took; present only when this request opened the connection it was sent on. */
  readonly connectMs?: number;
  /** From the start of the call to the first byte of the response; absent when none came. */
  readonly firstByteMs?: number;
  /** From the start of the call to the outcome. */
  readonly totalMs: number;
}

/** The response status line and headers, as received. */
export interface ResponseHead {
  readonly status: number;
  /**
   * Reason phrase as received; the standard phrase of the status when the client library did not
   * pass it on (through a forward proxy).
   */
  readonly statusText: string;
  /** Headers by lowercase name; repeated headers joined with `, ` in the order received. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Status line and header block, ending with the empty line, for the WARC response record: the
   * header names and values exactly as received (order, case and repeats kept), written as
   * `Name: value` lines. The client library does not expose the HTTP version or the whitespace
   * around colons, so the line starts `HTTP/1.1` and each header has one space after its colon.
   */
  readonly raw: Buffer;
}

/** Fields of every outcome. */
interface OutcomeBase {
  /** The requested URL. */
  readonly url: string;
  /**
   * The server's address: the one connected to (the proxy's when one is used), the refused one for
   * `address-denied`, the unreachable one for `connect-error`; null when none is known.
   */
  readonly ip: string | null;
  readonly timings: FetchTimings;
}

/** Fields of every outcome that got a response head. */
interface WithResponse extends OutcomeBase {
  /**
   * The request as shoal wrote it on the wire (request line, headers, empty line; latin1), for the
   * WARC request record.
   */
  readonly request: Buffer;
  readonly response: ResponseHead;
}

/** Fields of outcomes that may or may not have got as far as a request or a response. */
interface MaybeResponse extends OutcomeBase {
  /** The request as written, or null when it was never written (no connection). */
  readonly request: Buffer | null;
  /** The response head, or null when none arrived. */
  readonly response: ResponseHead | null;
}

/**
 * A 2xx response with its body. The crawl that receives it takes its bodies' memory: once the page
 * is written, memory of 256 KiB or more is given back at once (`core/release-memory.ts`), and every
 * view of it then reads as empty. A fetcher hands out bodies it keeps no use for (a fetcher of a
 * crawl's `components` that serves pages from a cache copies them out).
 */
export interface FetchOk extends WithResponse {
  readonly kind: 'ok';
  /** The body after content decoding (empty for HEAD and bodiless statuses). */
  readonly body: Buffer;
  /** The body as received, still content-encoded (for the WARC response record). */
  readonly rawBody: Buffer;
  /** Media type from `Content-Type`, lowercase, without parameters; null when absent. */
  readonly contentType: string | null;
  /** `charset` parameter of `Content-Type`, lowercase; null when absent. BOM and `<meta>` are the parser's. */
  readonly charset: string | null;
  /** Content codings that were undone, in the order applied by the server (`[]` for identity). */
  readonly contentEncodings: readonly string[];
}

/** A 304 to a conditional request: the held copy is current. */
export interface FetchNotModified extends WithResponse {
  readonly kind: 'not-modified';
}

/** A 3xx other than 304, not followed. */
export interface FetchRedirect extends WithResponse {
  readonly kind: 'redirect';
  /** `Location` resolved against the request URL; null when missing or not a URL. */
  readonly location: string | null;
  /** The response body as received, up to the error-body cap. */
  readonly rawBody: Buffer;
}

/** A 4xx or 5xx. */
export interface FetchHttpError extends WithResponse {
  readonly kind: 'http-error';
  /** Decoded body, kept up to the error-body cap (empty when it could not be decoded). */
  readonly body: Buffer;
  /** The body as received, up to the error-body cap. */
  readonly rawBody: Buffer;
  /** Whether the body was longer than the cap (the rest was not read). */
  readonly isBodyTruncated: boolean;
  /** `Retry-After` (seconds or an HTTP-date) as a delay from the response, in ms; null when absent or invalid. */
  readonly retryAfterMs: number | null;
}

/** The host name did not resolve. */
export interface FetchDnsError extends OutcomeBase {
  readonly kind: 'dns-error';
  readonly host: string;
  /** Resolver code, e.g. `ENOTFOUND`, `ENOHOSTSMAP`. */
  readonly code: string;
  readonly message: string;
}

/** The name resolved to an address the crawl may not contact (SPEC §8); nothing was sent. */
export interface FetchAddressDenied extends OutcomeBase {
  readonly kind: 'address-denied';
  readonly host: string;
  /** The refused address (as `ip`, although no connection was made). */
  readonly ip: string;
  readonly reason: AddressKind;
}

/** No connection could be set up (refused, unreachable, reset or TLS failure during set-up). */
export interface FetchConnectError extends OutcomeBase {
  readonly kind: 'connect-error';
  /** System or TLS code, e.g. `ECONNREFUSED`. */
  readonly code: string;
  readonly message: string;
}

/** Which limit ran out. */
export const TimeoutPhase = { connect: 'connect', firstByte: 'first-byte', body: 'body', total: 'total' } as const;
export type TimeoutPhase = (typeof TimeoutPhase)[keyof typeof TimeoutPhase];

/** A time limit ran out. */
export interface FetchTimeout extends MaybeResponse {
  readonly kind: 'timeout';
  readonly phase: TimeoutPhase;
}

/** The connection was reset or closed after the request was written, before the response ended. */
export interface FetchReset extends MaybeResponse {
  readonly kind: 'reset';
  readonly code: string;
  readonly message: string;
}

/** Which body size was over its limit. */
export const SizeLimit = {
  /** Bytes as received (`maxBodyBytes`). */
  raw: 'raw',
  /** Bytes after content decoding (`maxDecodedBytes`): how gzip bombs end. */
  decoded: 'decoded',
} as const;
export type SizeLimit = (typeof SizeLimit)[keyof typeof SizeLimit];

/** The body was larger than allowed; reading stopped there. */
export interface FetchTooLarge extends WithResponse {
  readonly kind: 'too-large';
  readonly limit: SizeLimit;
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
}

/**
 * The body arrived slower than the lowest transfer rate: fewer than `minBytesPerSecond` ×
 * `minRateWindowMs` / 1000 bytes in one window of `minRateWindowMs` (windows follow one another
 * from the complete response head), a body that stalled for a whole window included. Reading
 * stopped there and the connection was dropped; what was received is not kept (as for a `timeout`
 * in the body).
 */
export interface FetchTooSlow extends WithResponse {
  readonly kind: 'too-slow';
  /** Body bytes received in all before the cut, as received (still content-encoded). */
  readonly bodyBytes: number;
  /** From the complete response head to the cut, ms. */
  readonly bodyMs: number;
  /** Body bytes received in the window that fell short. */
  readonly windowBytes: number;
  /** How long that window lasted, as measured, ms: `minRateWindowMs`, or a little more when the timer ran late. */
  readonly windowMs: number;
  /** The rate limit that was not met, bytes per second. */
  readonly minBytesPerSecond: number;
  /** The window it is measured over, ms. */
  readonly minRateWindowMs: number;
}

/** The response used a content coding shoal cannot undo. */
export interface FetchUnsupportedEncoding extends WithResponse {
  readonly kind: 'unsupported-encoding';
  /** The `Content-Encoding` value. */
  readonly encoding: string;
  /** The body as received. */
  readonly rawBody: Buffer;
}

/** The server broke HTTP: unparsable response, bad length, corrupt compressed body, odd status. */
export interface FetchProtocolError extends MaybeResponse {
  readonly kind: 'protocol-error';
  /** Parser or library code (`HPE_INVALID_CONSTANT`, `UND_ERR_HEADERS_OVERFLOW`), or `EBADCODING`, `EBADSTATUS`. */
  readonly code: string;
  readonly message: string;
}

/** Why a call was abandoned by shoal itself. */
export const AbortReason = { signal: 'signal', closed: 'closed' } as const;
export type AbortReason = (typeof AbortReason)[keyof typeof AbortReason];

/** The caller cancelled the call, or the fetcher was closed. Not a property of the URL. */
export interface FetchAborted extends OutcomeBase {
  readonly kind: 'aborted';
  readonly reason: AbortReason;
}

/** The result of one fetch; `kind` is the label of the crawl's counters (CONVENTIONS §6). */
export type FetchOutcome =
  | FetchOk
  | FetchNotModified
  | FetchRedirect
  | FetchHttpError
  | FetchDnsError
  | FetchAddressDenied
  | FetchConnectError
  | FetchTimeout
  | FetchReset
  | FetchTooLarge
  | FetchTooSlow
  | FetchUnsupportedEncoding
  | FetchProtocolError
  | FetchAborted;

/** Every outcome kind. */
export type FetchOutcomeKind = FetchOutcome['kind'];

/** Fetches URLs; see the contract above. */
export interface Fetcher {
  /** Fetches one URL; resolves to exactly one outcome (see the contract). */
  fetch(request: FetchRequest, signal?: AbortSignal): Promise<FetchOutcome>;
  /** Aborts calls in flight and closes every connection (idempotent). */
  close(): Promise<void>;
}

/** DNS failures that may pass (a server that did not answer), unlike a name that does not exist. */
const TRANSIENT_DNS_CODES: ReadonlySet<string> = new Set(['ETIMEOUT', 'ESERVFAIL', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT']);
/** TLS certificate verdicts: the same certificate gets the same verdict on the next attempt. */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/**
 * Whether trying the same request again later may give a better outcome: server errors (5xx), 429
 * Too Many Requests and 408 Request Timeout (both say "later", unlike other 4xx, which say the
 * request itself is wrong), timeouts, resets, connection failures and DNS failures of a server
 * rather than of the name. Redirects, other 4xx, refused addresses, TLS certificates refused, size
 * and encoding problems and protocol errors repeat identically, and an aborted call was the
 * caller's decision. A body cut as `too-slow` is not retried either: the server did answer, and a
 * response that trickles (a tarpit, an endless stream) mostly trickles again, at the cost of
 * another whole window and its host's politeness gap per attempt.
 */
export function isRetryable(outcome: FetchOutcome): boolean {
  switch (outcome.kind) {
    case 'http-error': {
      const s = outcome.response.status;
      return s >= 500 || s === 429 || s === 408;
    }
    case 'timeout':
    case 'reset':
      return true;
    case 'connect-error':
      return !CERTIFICATE_CODES.has(outcome.code);
    case 'dns-error':
      return TRANSIENT_DNS_CODES.has(outcome.code);
    default:
      return false;
  }
}

/** Options of {@link retryDelayMs}. */
export interface RetryDelayOptions {
  /** Delay before the first retry, before jitter, in ms. Default 1,000. */
  readonly baseDelayMs?: number;
  /** Upper bound of any delay, Retry-After included, in ms. Default 600,000 (10 min). */
  readonly maxDelayMs?: number;
  /** A uniform random number in [0, 1), drawn by the caller (keeps this function pure and testable). */
  readonly random: number;
}

/**
 * How long to wait before the next attempt, in ms: exponential backoff with "equal jitter",
 * `e = min(max, base · 2^(attempt − 1))`, delay `e/2 + random · e/2`, so attempts spread out
 * without ever retrying at once; a server's `Retry-After` is honoured as a lower bound. Every
 * delay is capped at `maxDelayMs`. `attempt` counts the attempts already made (1 after the first
 * failure). Pure: the same arguments give the same delay.
 */
export function retryDelayMs(outcome: FetchOutcome, attempt: number, options: RetryDelayOptions): number {
  const base = options.baseDelayMs ?? 1_000;
  const max = options.maxDelayMs ?? 600_000;
  const random = Math.min(Math.max(options.random, 0), 1);
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // 2^exponent overflows to Infinity for huge attempts; min() then gives the cap, as wanted.
  const ceiling = Math.min(max, base * 2 ** exponent);
  const backoff = ceiling / 2 + (random * ceiling) / 2;
  const retryAfter = outcome.kind === 'http-error' ? (outcome.retryAfterMs ?? 0) : 0;
  return Math.round(Math.min(max, Math.max(backoff, retryAfter)));
}

/**
 * Parses a `Retry-After` value (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date taken
 * relative to `nowMs`. Returns ms (0 for a date in the past), or null when absent or invalid.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the date formats HTTP allows start with a day name; Date.parse accepts far more.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return null;
  return Math.max(0, at - nowMs);
}
