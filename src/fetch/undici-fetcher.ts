/**
 * The {@link Fetcher} on undici's low-level `dispatch` API.
 *
 * How one call goes: undici keeps one pool per origin (`connections` sockets, no pipelining,
 * keep-alive). A pool that needs a socket calls our connector (checked-connector.ts), which resolves
 * the host through the crawl's {@link Resolver}, checks the address and only then connects, by IP,
 * to that address: the check applies to the address actually connected to, so a name that
 * resolves differently later (DNS rebinding) cannot slip past it. Our dispatch handler reads the
 * response head from the raw header pairs (response-head.ts), counts raw bytes against
 * `maxBodyBytes`, undoes the content codings itself with node:zlib (body-decoder.ts),
 * counting decoded bytes against `maxDecodedBytes` (undici's own size limit counts compressed
 * bytes, which lets a gzip bomb through), cuts a body that arrives slower than
 * `minBytesPerSecond` (transfer-rate.ts), and turns every error into an outcome. Redirects are
 * returned, never followed. Each call has one timer: the whole-call deadline, or the end of the
 * body's current rate window when that comes first.
 *
 * HTTPS: the connector replaces only `hostname` (the address dialled) and sets `servername` to the
 * name, which Node sends as SNI and checks the certificate against (an IP-literal URL: no SNI, the
 * IP is checked). Trust: Node's roots plus `caCertificates`. A failed check is a `connect-error` with
 * the TLS code (`CERT_HAS_EXPIRED`, ...). Through a proxy the same TLS runs inside a CONNECT tunnel.
 *
 * The request bytes for the WARC request record are the exact header string undici writes, taken
 * from its `undici:client:sendHeaders` diagnostics channel (published synchronously right after our
 * handler learns its request got a socket, which is how the two are matched); the same message
 * names the socket, which gives the IP connected to and whether the connection is new.
 */
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, Pool, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { Resolver } from '../dns/resolver.js';
import type { AddressPolicy } from './address-guard.js';
import { CheckedConnector, ConnectFailure, secureContextOf, type SocketInfo } from './checked-connector.js';
import { BodyDecoder, canDecode, parseContentCodings } from './body-decoder.js';
import {
  AbortReason, SizeLimit, TimeoutPhase, parseRetryAfter, type FetchOutcome, type FetchRequest, type FetchTimings,
  type Fetcher, type ResponseHead,
} from './fetcher.js';
import { headerPairs, parseContentType, rebuildRequest, resolveLocation, responseHead } from './response-head.js';
import { DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS, RateWindow, type ShortWindow } from './transfer-rate.js';

/** Options of {@link UndiciFetcher}. */
export interface UndiciFetcherOptions {
  /** `User-Agent`, with a contact URL, e.g. `shoalbot/1.0 (+https://example.org/bot)`. Required. */
  readonly userAgent: string;
  /** Name resolution (hosts map, cache, DNS). Required. */
  readonly resolver: Resolver;
  /** Which addresses besides public ones may be contacted. Required. */
  readonly addressPolicy: AddressPolicy;
  /**
   * Forward proxy URL (`http://host:port`); plain-http targets go in absolute form, https ones
   * through CONNECT. The proxy resolves names and chooses addresses, so the resolver and the
   * address guard do not apply to proxied requests, and outcomes record the proxy's IP. Default none.
   */
  readonly proxyUrl?: string | null;
  /**
   * Extra CAs trusted for https (also in a proxy's tunnel), PEM, added to Node's bundled roots
   * (`tls.rootCertificates`); `NODE_EXTRA_CA_CERTS` then no longer applies (list those here too).
   * Unreadable PEM is a {@link ConfigError}. Default none: Node's default store.
   */
  readonly caCertificates?: string | readonly string[];
  /** Connections kept per origin. Default 1. */
  readonly connectionsPerOrigin?: number;
  /** How long an idle connection is kept, in ms (less if the server says so). Default 4,000. */
  readonly keepAliveMs?: number;
  /** Limit on TCP (and TLS) set-up, in ms. Default 10,000. */
  readonly connectTimeoutMs?: number;
  /** Limit from writing the request to the complete response head, in ms. Default 30,000. */
  readonly firstByteTimeoutMs?: number;
  /** Limit on the gap between two body chunks, in ms. Default 30,000. */
  readonly bodyTimeoutMs?: number;
  /** Limit on the whole call, waiting for a connection included, in ms. Default 120,000. */
  readonly totalTimeoutMs?: number;
  /**
   * Lowest transfer rate of a body, in bytes per second: a body that receives fewer than
   * `minBytesPerSecond` × `minRateWindowMs` / 1000 bytes in one window (windows back to back from
   * the complete head) ends `too-slow`. 0 turns the rule off. Default 1,000
   * ({@link DEFAULT_MIN_BYTES_PER_SECOND} says why).
   */
  readonly minBytesPerSecond?: number;
  /** The window of `minBytesPerSecond`, in ms. Default 10,000 ({@link DEFAULT_MIN_RATE_WINDOW_MS} says why). */
  readonly minRateWindowMs?: number;
  /** Largest body as received (compressed), in bytes. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Largest body after content decoding, in bytes. Default 20 MiB. */
  readonly maxDecodedBytes?: number;
  /** How much of a redirect or error body is kept, in bytes. Default 64 KiB. */
  readonly maxErrorBodyBytes?: number;
  /** `Accept` header. Default `text/html,application/xhtml+xml,application/xml;q=0.9,*\/*;q=0.8`. */
  readonly accept?: string;
  /** Wall clock in ms, for `Retry-After` dates (injected in tests). Default `Date.now`. */
  readonly now?: () => number;
}

const MiB = 1024 * 1024;
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** Node's timers take at most a signed 32-bit delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Library codes of a connection that failed after the request was written. */
const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE']);

// One process-wide subscription to undici's "request written" message; the call whose handler
// was told "you have a socket" just before claims it (see onRequestStart).
type Capture = (request: { readonly method?: string; readonly path?: string }, headers: string, socket: Socket) => void;
const sendHeadersChannel = channel('undici:client:sendHeaders');
let pendingCapture: Capture | null = null;
let subscribers = 0;
function onSendHeaders(message: unknown): void {
  const capture = pendingCapture;
  pendingCapture = null;
  const m = message as { request: { method?: string; path?: string }; headers: string; socket: Socket };
  capture?.(m.request, m.headers, m.socket);
}

/** What a response is turning into. */
type Mode = 'page' | 'small' | 'raw-only' | 'none';

/** What a call needs from its fetcher. */
interface CallEnv {
  readonly limits: Limits;
  readonly isProxied: boolean;
  socketInfo(socket: object): SocketInfo | undefined;
  forget(call: Call): void;
}

/** One call: the dispatch handler and its state. */
class Call implements Dispatcher.DispatchHandler {
  readonly started = performance.now();
  readonly promise: Promise<FetchOutcome>;
  private resolveOutcome!: (o: FetchOutcome) => void;
  private isSettled = false;
  /** Set once the response ended or was cut by us: later errors are the consequence, not news. */
  private isFinishing = false;
  private controller: Dispatcher.DispatchController | null = null;
  /** The call's one timer: the deadline, or the end of the body's rate window (see {@link arm}). */
  private timer: NodeJS.Timeout | null = null;
  /** `performance.now()` by which the whole call must be over. */
  private readonly deadline: number;
  /** The body's rate windows, from the complete head on; null without a body or with the rule off. */
  private rate: RateWindow | null = null;
  private headAt = 0;
  private requestBytes: Buffer | null = null;
  private ip: string | null = null;
  private dnsMs = 0;
  private connectMs: number | undefined;
  private firstByteMs: number | undefined;
  private head: ResponseHead | null = null;
  private mode: Mode = 'none';
  private readonly raw: Buffer[] = [];
  private rawBytes = 0;
  private rawCap = 0;
  private isTruncated = false;
  private codings: readonly string[] = [];
  private decoder: BodyDecoder | null = null;

  constructor(
    private readonly env: CallEnv, private readonly request: FetchRequest, private readonly target: URL,
    private readonly method: 'GET' | 'HEAD', private readonly headers: Readonly<Record<string, string>>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.promise = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
    this.deadline = this.started + env.limits.totalTimeoutMs;
    this.arm(this.started);
    signal?.addEventListener('abort', this.onAbort);
  }

  private readonly onAbort = (): void => this.abandon(AbortReason.signal);

  /** Sets the timer to the end of the current rate window, or to the deadline when that comes first (or no window runs). */
  private arm(now: number): void {
    const untilDeadline = this.deadline - now;
    const rate = this.rate;
    if (rate === null || this.isFinishing || untilDeadline <= rate.windowMs) {
      this.timer = setTimeout(this.onDeadline, Math.min(Math.max(untilDeadline, 0), MAX_TIMER_MS));
    } else {
      this.timer = setTimeout(this.onWindowEnd, rate.windowMs);
    }
  }

  private readonly onDeadline = (): void => this.fail({ kind: 'timeout', phase: TimeoutPhase.total });

  private readonly onWindowEnd = (): void => {
    const now = performance.now();
    // A body that has ended is being decoded: only the deadline is left to watch.
    const short = this.isFinishing || this.rate === null ? null : this.rate.close(now, this.rawBytes);
    if (short === null) this.arm(now);
    else this.tooSlow(short, now);
  };

  /** Ends the call with an `aborted` outcome (caller's signal, or the fetcher closing). */
  abandon(reason: AbortReason): void {
    this.settle({ kind: 'aborted', url: this.request.url, ip: this.ip, timings: this.timings(), reason });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.isSettled) {
      // Timed out or aborted while waiting for a connection: do not send it at all.
      controller.abort(new Error('abandoned'));
      return;
    }
    const path = `${this.target.pathname}${this.target.search}`;
    pendingCapture = (req, headers, socket) => {
      // Another undici user in the process could publish in between; only our own request counts.
      if (req.method !== this.method || req.path?.endsWith(path) !== true) return;
      this.requestBytes = Buffer.from(`${headers}\r\n`, 'latin1');
      const info = this.env.socketInfo(socket);
      this.ip = info?.ip ?? socket.remoteAddress?.replace(/^::ffff:/, '') ?? null;
      if (info !== undefined && !info.isClaimed) {
        info.isClaimed = true;
        this.dnsMs = info.dnsMs;
        this.connectMs = info.connectMs;
      }
    };
  }

  // Deprecated in undici's handler API, but still the only signal of the first response byte.
  onResponseStarted(): void {
    this.firstByteMs = performance.now() - this.started;
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>, statusText?: string): void {
    if (this.isSettled || status < 200) return; // 1xx: informational, the real head follows
    const head = responseHead(status, statusText, headerPairs(controller.rawHeaders, headers));
    this.head = head;
    this.firstByteMs ??= performance.now() - this.started;
    const limits = this.env.limits;
    if (status >= 600) {
      this.fail({ kind: 'protocol-error', code: 'EBADSTATUS', message: `status ${status} is not HTTP` });
      return;
    }
    const hasBody = this.method !== 'HEAD' && status !== 204 && status !== 304;
    if (!hasBody) return;
    if (limits.minBytesPerSecond > 0) {
      const now = performance.now();
      this.headAt = now;
      this.rate = new RateWindow(limits.minBytesPerSecond, limits.minRateWindowMs, now);
      if (this.timer !== null) clearTimeout(this.timer);
      this.arm(now);
    }
    const isPage = status < 300;
    this.mode = isPage ? 'page' : 'small';
    this.rawCap = isPage ? limits.maxBodyBytes : Math.min(limits.maxBodyBytes, limits.maxErrorBodyBytes);
    const length = Number(head.headers['content-length']);
    if (isPage && Number.isFinite(length) && length > limits.maxBodyBytes) {
      this.tooLarge(SizeLimit.raw, limits.maxBodyBytes);
      return;
    }
    const codings = parseContentCodings(head.headers['content-encoding']);
    if (!canDecode(codings)) {
      this.mode = isPage ? 'raw-only' : 'small';
      this.codings = codings;
      return;
    }
    this.codings = codings;
    if (codings.length === 0) return; // identity: the body as received is the decoded body
    const cap = isPage ? limits.maxDecodedBytes : limits.maxErrorBodyBytes;
    this.decoder = new BodyDecoder(codings, cap, isPage ? 'whole' : 'prefix', () => {
      if (isPage) this.tooLarge(SizeLimit.decoded, cap);
      else this.truncate();
    }, (err) => {
      if (isPage) this.fail({ kind: 'protocol-error', code: 'EBADCODING', message: `content decoding failed: ${err.message}` });
      else this.decoder = null; // an undecodable error body is still recorded raw
    });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.isSettled || this.isFinishing || this.mode === 'none') return;
    const room = this.rawCap - this.rawBytes;
    if (chunk.length > room) {
      if (this.mode !== 'small') {
        this.tooLarge(SizeLimit.raw, this.rawCap);
        return;
      }
      if (room > 0) this.take(chunk.subarray(0, room));
      this.truncate();
      return;
    }
    this.take(chunk);
  }

  onResponseEnd(): void {
    if (this.isSettled || this.isFinishing) return;
    this.isFinishing = true;
    void this.complete();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.isSettled || this.isFinishing) return;
    const e = err as Error & { code?: string };
    if (err instanceof ConnectFailure) {
      const p = err.problem;
      this.dnsMs = p.dnsMs;
      if (p.kind === 'dns-error') this.fail({ kind: 'dns-error', host: p.host, code: p.code, message: p.message });
      else if (p.kind === 'address-denied') this.settle({ kind: 'address-denied', url: this.request.url, host: p.host, ip: p.ip, reason: p.reason, timings: this.timings() });
      else {
        this.ip = p.ip;
        if (p.code === 'UND_ERR_CONNECT_TIMEOUT') this.fail({ kind: 'timeout', phase: TimeoutPhase.connect });
        else this.fail({ kind: 'connect-error', code: p.code, message: p.message });
      }
      return;
    }
    const code = e.code ?? 'EUNKNOWN';
    if (code === 'UND_ERR_HEADERS_TIMEOUT') this.fail({ kind: 'timeout', phase: TimeoutPhase.firstByte });
    else if (code === 'UND_ERR_BODY_TIMEOUT') this.fail({ kind: 'timeout', phase: TimeoutPhase.body });
    else if (code === 'UND_ERR_CONNECT_TIMEOUT') this.fail({ kind: 'timeout', phase: TimeoutPhase.connect });
    else if (code === 'UND_ERR_INVALID_ARG') this.fail({ kind: 'protocol-error', code, message: `request refused by the client library: ${err.message}` });
    else if (this.requestBytes === null && this.controller === null) this.fail({ kind: 'connect-error', code, message: err.message });
    else if (RESET_CODES.has(code)) this.fail({ kind: 'reset', code, message: err.message });
    else this.fail({ kind: 'protocol-error', code, message: err.message });
  }

  private take(chunk: Buffer): void {
    this.raw.push(chunk);
    this.rawBytes += chunk.length;
    if (this.decoder !== null) this.decoder.write(chunk);
    else if (this.mode === 'page' && this.rawBytes > this.env.limits.maxDecodedBytes) {
      // Without a coding the bytes received are the decoded bytes: the decoded limit applies too.
      this.tooLarge(SizeLimit.decoded, this.env.limits.maxDecodedBytes);
    }
  }

  /** An error body reached its cap: keep what we have, drop the connection, finish. */
  private truncate(): void {
    if (this.isFinishing) return;
    this.isTruncated = true;
    this.isFinishing = true;
    this.controller?.abort(new Error('error body cap reached'));
    void this.complete();
  }

  private async complete(): Promise<void> {
    const head = this.head;
    if (head === null) {
      this.fail({ kind: 'protocol-error', code: 'ENOHEAD', message: 'the response ended without a head' });
      return;
    }
    const rawBody = this.raw.length === 1 ? this.raw[0] as Buffer : Buffer.concat(this.raw);
    const body = this.decoder === null ? null : await this.decoder.finish();
    if (this.isSettled) return; // the decoder failed or overflowed meanwhile
    const base = { url: this.request.url, ip: this.ip, request: this.wireRequest(), response: head };
    const status = head.status;
    if (status < 300) {
      if (this.mode === 'raw-only') {
        this.settle({ kind: 'unsupported-encoding', ...base, encoding: head.headers['content-encoding'] ?? '', rawBody, timings: this.timings() });
        return;
      }
      const { type, charset } = parseContentType(head.headers['content-type']);
      this.settle({
        kind: 'ok', ...base, body: body ?? rawBody, rawBody, contentType: type, charset,
        contentEncodings: this.codings, timings: this.timings(),
      });
    } else if (status === 304) {
      this.settle({ kind: 'not-modified', ...base, timings: this.timings() });
    } else if (status < 400) {
      this.settle({ kind: 'redirect', ...base, location: resolveLocation(head.headers['location'], this.request.url), rawBody, timings: this.timings() });
    } else {
      this.settle({
        kind: 'http-error', ...base, body: body ?? (this.codings.length === 0 ? rawBody : Buffer.alloc(0)), rawBody,
        isBodyTruncated: this.isTruncated, retryAfterMs: parseRetryAfter(head.headers['retry-after'], this.env.limits.now()),
        timings: this.timings(),
      });
    }
  }

  private tooLarge(limit: SizeLimit, limitBytes: number): void {
    const head = this.head;
    if (head === null) return;
    this.settle({ kind: 'too-large', url: this.request.url, ip: this.ip, request: this.wireRequest(), response: head, limit, limitBytes, timings: this.timings() });
  }

  /** The body fell short of the lowest rate in one window: cut it. */
  private tooSlow(window: ShortWindow, now: number): void {
    const head = this.head;
    if (head === null) return;
    const limits = this.env.limits;
    this.settle({
      kind: 'too-slow', url: this.request.url, ip: this.ip, request: this.wireRequest(), response: head, bodyBytes: this.rawBytes,
      bodyMs: round(now - this.headAt), windowBytes: window.windowBytes, windowMs: round(window.windowMs),
      minBytesPerSecond: limits.minBytesPerSecond, minRateWindowMs: limits.minRateWindowMs, timings: this.timings(),
    });
  }

  /** Settles with a failure, carrying whatever request and response got through. */
  private fail(o:
    | { kind: 'timeout'; phase: TimeoutPhase }
    | { kind: 'reset' | 'protocol-error'; code: string; message: string }
    | { kind: 'connect-error'; code: string; message: string }
    | { kind: 'dns-error'; host: string; code: string; message: string }): void {
    const common = { url: this.request.url, ip: this.ip, timings: this.timings() };
    if (o.kind === 'dns-error' || o.kind === 'connect-error') {
      this.settle({ ...o, ...common });
      return;
    }
    const wire = { request: this.head === null ? this.requestBytes : this.wireRequest(), response: this.head };
    if (o.kind === 'timeout') this.settle({ ...o, ...common, ...wire });
    else this.settle({ kind: o.kind, code: o.code, message: o.message, ...common, ...wire });
  }

  /** The request as written; rebuilt from what we asked undici to send if its message was missed. */
  private wireRequest(): Buffer {
    return this.requestBytes ?? rebuildRequest(this.method, this.target, this.env.isProxied, this.headers);
  }

  private timings(): FetchTimings {
    const t: { dnsMs: number; connectMs?: number; firstByteMs?: number; totalMs: number } = {
      dnsMs: round(this.dnsMs), totalMs: round(performance.now() - this.started),
    };
    if (this.connectMs !== undefined) t.connectMs = round(this.connectMs);
    if (this.firstByteMs !== undefined) t.firstByteMs = round(this.firstByteMs);
    return t;
  }

  private settle(outcome: FetchOutcome): void {
    if (this.isSettled) return;
    this.isSettled = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.decoder?.destroy();
    this.env.forget(this);
    this.resolveOutcome(outcome);
    // Whatever is still running for this call is now waste: drop its connection.
    if (!this.isFinishing || this.isTruncated) this.controller?.abort(new Error(`fetch ended: ${outcome.kind}`));
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function positive(issues: ConfigIssue[], path: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) issues.push({ path, message: `must be a positive number, got ${String(value)}` });
  return v;
}

/** The resolved limits of an {@link UndiciFetcher}. */
interface Limits {
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly totalTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxDecodedBytes: number;
  readonly maxErrorBodyBytes: number;
  /** 0: no rate rule. */
  readonly minBytesPerSecond: number;
  readonly minRateWindowMs: number;
  readonly now: () => number;
}

/** {@link Fetcher} over undici; see the file comment and the {@link Fetcher} contract. */
export class UndiciFetcher implements Fetcher {
  private readonly limits: Limits;
  private readonly env: CallEnv;
  private readonly dispatcher: Dispatcher;
  private readonly connector: CheckedConnector;
  private readonly calls = new Set<Call>();
  private readonly baseHeaders: Readonly<Record<string, string>>;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: UndiciFetcherOptions) {
    const o = options;
    const issues: ConfigIssue[] = [];
    if (typeof o.userAgent !== 'string' || o.userAgent.trim() === '' || /[\r\n]/.test(o.userAgent)) {
      issues.push({ path: 'userAgent', message: 'must be a non-empty single-line string, with a contact URL' });
    }
    if (o.minBytesPerSecond !== undefined && !(Number.isFinite(o.minBytesPerSecond) && o.minBytesPerSecond >= 0)) {
      issues.push({ path: 'minBytesPerSecond', message: `must be a number >= 0 (0: no lowest rate), got ${String(o.minBytesPerSecond)}` });
    }
    const connections = positive(issues, 'connectionsPerOrigin', o.connectionsPerOrigin, 1);
    const keepAliveMs = positive(issues, 'keepAliveMs', o.keepAliveMs, 4_000);
    this.limits = {
      connectTimeoutMs: positive(issues, 'connectTimeoutMs', o.connectTimeoutMs, 10_000),
      firstByteTimeoutMs: positive(issues, 'firstByteTimeoutMs', o.firstByteTimeoutMs, 30_000),
      bodyTimeoutMs: positive(issues, 'bodyTimeoutMs', o.bodyTimeoutMs, 30_000),
      totalTimeoutMs: positive(issues, 'totalTimeoutMs', o.totalTimeoutMs, 120_000),
      maxBodyBytes: positive(issues, 'maxBodyBytes', o.maxBodyBytes, 10 * MiB),
      maxDecodedBytes: positive(issues, 'maxDecodedBytes', o.maxDecodedBytes, 20 * MiB),
      maxErrorBodyBytes: positive(issues, 'maxErrorBodyBytes', o.maxErrorBodyBytes, 64 * 1024),
      minBytesPerSecond: o.minBytesPerSecond ?? DEFAULT_MIN_BYTES_PER_SECOND,
      minRateWindowMs: positive(issues, 'minRateWindowMs', o.minRateWindowMs, DEFAULT_MIN_RATE_WINDOW_MS),
      now: o.now ?? Date.now,
    };
    let proxy: URL | null = null;
    if (o.proxyUrl !== undefined && o.proxyUrl !== null) {
      try {
        proxy = new URL(o.proxyUrl);
        if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') throw new Error('not http');
      } catch {
        issues.push({ path: 'proxyUrl', message: `not an http(s) URL: ${JSON.stringify(o.proxyUrl)}` });
      }
    }
    // No secureContext: tls.connect builds Node's default one.
    const tls: buildConnector.BuildOptions = { timeout: this.limits.connectTimeoutMs, secureContext: secureContextOf(issues, o.caCertificates) };
    if (issues.length > 0) throw new ConfigError(issues);
    this.env = {
      limits: this.limits, isProxied: proxy !== null,
      socketInfo: (socket) => this.connector.socketInfo(socket), forget: (call) => this.calls.delete(call),
    };
    this.baseHeaders = { 'user-agent': o.userAgent, accept: o.accept ?? DEFAULT_ACCEPT, 'accept-encoding': 'gzip, deflate, br' };
    this.connector = new CheckedConnector(buildConnector(tls), o.resolver, o.addressPolicy);
    const pool = {
      connections, pipelining: 1, keepAliveTimeout: keepAliveMs, keepAliveMaxTimeout: keepAliveMs,
      headersTimeout: this.limits.firstByteTimeoutMs, bodyTimeout: this.limits.bodyTimeoutMs,
    };
    if (proxy === null) {
      this.dispatcher = new Agent({ ...pool, connect: (opts, cb) => this.connector.direct(opts, cb) });
    } else {
      const proxyOrigin = proxy.origin;
      // ProxyAgent builds the pool to the proxy through `factory` (one per target origin, for
      // absolute-form requests): give it our limits and a connector that records the socket.
      // requestTls: the TLS to an https target inside a CONNECT tunnel; proxyTls: to an https proxy.
      this.dispatcher = new ProxyAgent({
        uri: proxy.href, proxyTunnel: false, ...pool, requestTls: tls, proxyTls: tls,
        factory: (origin, opts) => new Pool(origin, {
          ...pool,
          connect: new URL(String(origin)).origin === proxyOrigin
            ? (co: buildConnector.Options, cb: buildConnector.Callback) => this.connector.timed(co, cb, null, 0)
            : (opts as Pool.Options).connect, // https targets: ProxyAgent's CONNECT tunnel
        }),
      });
    }
    if (subscribers++ === 0) sendHeadersChannel.subscribe(onSendHeaders);
  }

  /** Connections opened so far (a kept-alive connection serves many fetches). */
  get connectionsOpened(): number {
    return this.connector.opened;
  }

  /** Calls in flight. */
  get inFlight(): number {
    return this.calls.size;
  }

  fetch(request: FetchRequest, signal?: AbortSignal): Promise<FetchOutcome> {
    let target: URL;
    try {
      target = new URL(request.url);
    } catch (err) {
      return Promise.reject(err);
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(new TypeError(`not an http(s) URL: ${request.url}`));
    }
    const method = request.method ?? 'GET';
    const headers = this.requestHeaders(request);
    const call = new Call(this.env, request, target, method, headers, signal);
    if (this.closing !== null) call.abandon(AbortReason.closed);
    else if (signal?.aborted === true) call.abandon(AbortReason.signal);
    else {
      this.calls.add(call);
      this.dispatcher.dispatch({
        origin: target.origin, path: `${target.pathname}${target.search}`, method,
        headers,
        headersTimeout: this.limits.firstByteTimeoutMs, bodyTimeout: this.limits.bodyTimeoutMs,
      }, call);
    }
    return call.promise;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const call of [...this.calls]) call.abandon(AbortReason.closed);
      if (--subscribers === 0) sendHeadersChannel.unsubscribe(onSendHeaders);
      await this.dispatcher.destroy();
    })();
    return this.closing;
  }

  /** The headers shoal adds to a request (undici adds `host` and `connection`). */
  private requestHeaders(request: FetchRequest): Record<string, string> {
    const h: Record<string, string> = { ...this.baseHeaders };
    if (request.etag !== undefined) h['if-none-match'] = request.etag;
    if (request.lastModified !== undefined) h['if-modified-since'] = request.lastModified;
    if (request.referer !== undefined) h['referer'] = request.referer;
    return h;
  }
}
