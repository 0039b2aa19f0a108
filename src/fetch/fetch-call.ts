/**
 * One call of the {@link UndiciFetcher}: the undici dispatch handler and its state. It reads the
 * response head from the raw header pairs (response-head.ts), counts raw bytes against
 * `maxBodyBytes`, undoes the content codings itself with node:zlib (body-decoder.ts), counting
 * decoded bytes against `maxDecodedBytes` (undici's own size limit counts compressed bytes, which
 * lets a gzip bomb through), cuts a body that arrives slower than `minBytesPerSecond`
 * (transfer-rate.ts), and turns every error into an outcome. Redirects are returned, never followed.
 * Each call has one timer: the whole-call deadline, or the end of the body's current rate window
 * when that comes first.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { BodyDecoder, canDecode, parseContentCodings } from './body-decoder.js';
import { ConnectFailure, type SocketInfo } from './checked-connector.js';
import {
  AbortReason,
  SizeLimit,
  TimeoutPhase,
  parseRetryAfter,
  type FetchOutcome,
  type FetchRequest,
  type FetchTimings,
  type ResponseHead,
} from './fetcher.js';
import { expectRequestHeaders } from './request-capture.js';
import { headerPairs, parseContentType, rebuildRequest, resolveLocation, responseHead } from './response-head.js';
import { RateWindow, type ShortWindow } from './transfer-rate.js';
import { ReceivedBytes } from './received-bytes.js';

/** Node's timers take at most a signed 32-bit delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Library codes of a connection that failed after the request was written. */
const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The resolved limits of an {@link UndiciFetcher}. */
export interface Limits {
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

/** What a response is turning into. */
type Mode = 'page' | 'small' | 'raw-only' | 'none';

/** What a call needs from its fetcher. */
export interface CallEnv {
  readonly limits: Limits;
  readonly isProxied: boolean;
  socketInfo(socket: object): SocketInfo | undefined;
  forget(call: FetchCall): void;
}

/** One call: the dispatch handler and its state. */
export class FetchCall implements Dispatcher.DispatchHandler {
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
  private raw = new ReceivedBytes(NaN, 0);
  private rawCap = 0;
  private isTruncated = false;
  private codings: readonly string[] = [];
  private decoder: BodyDecoder | null = null;

  constructor(
    private readonly env: CallEnv,
    private readonly request: FetchRequest,
    private readonly target: URL,
    private readonly method: 'GET' | 'HEAD',
    private readonly headers: Readonly<Record<string, string>>,
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
    const short = this.isFinishing || this.rate === null ? null : this.rate.close(now, this.raw.length);
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
    expectRequestHeaders((req, headers, socket) => {
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
    });
  }

  // Deprecated in undici's handler API, but still the only signal of the first response byte.
  onResponseStarted(): void {
    this.firstByteMs = performance.now() - this.started;
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusText?: string,
  ): void {
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
    this.raw = new ReceivedBytes(length, this.rawCap);
    const codings = parseContentCodings(head.headers['content-encoding']);
    if (!canDecode(codings)) {
      this.mode = isPage ? 'raw-only' : 'small';
      this.codings = codings;
      return;
    }
    this.codings = codings;
    if (codings.length === 0) return; // identity: the body as received is the decoded body
    const cap = isPage ? limits.maxDecodedBytes : limits.maxErrorBodyBytes;
    this.decoder = new BodyDecoder(
      codings,
      cap,
      isPage ? 'whole' : 'prefix',
      () => {
        if (isPage) this.tooLarge(SizeLimit.decoded, cap);
        else this.truncate();
      },
      (err) => {
        if (isPage) this.fail({ kind: 'protocol-error', code: 'EBADCODING', message: `content decoding failed: ${err.message}` });
        else this.decoder = null; // an undecodable error body is still recorded raw
      },
    );
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.isSettled || this.isFinishing || this.mode === 'none') return;
    const room = this.rawCap - this.raw.length;
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
      else if (p.kind === 'address-denied')
        this.settle({ kind: 'address-denied', url: this.request.url, host: p.host, ip: p.ip, reason: p.reason, timings: this.timings() });
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
    else if (code === 'UND_ERR_INVALID_ARG')
      this.fail({ kind: 'protocol-error', code, message: `request refused by the client library: ${err.message}` });
    else if (this.requestBytes === null && this.controller === null) this.fail({ kind: 'connect-error', code, message: err.message });
    else if (RESET_CODES.has(code)) this.fail({ kind: 'reset', code, message: err.message });
    else this.fail({ kind: 'protocol-error', code, message: err.message });
  }

  private take(chunk: Buffer): void {
    this.raw.push(chunk);
    if (this.decoder !== null) this.decoder.write(chunk);
    else if (this.mode === 'page' && this.raw.length > this.env.limits.maxDecodedBytes) {
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
    const rawBody = this.raw.bytes();
    const body = this.decoder === null ? null : await this.decoder.finish();
    if (this.isSettled) return; // the decoder failed or overflowed meanwhile
    const base = { url: this.request.url, ip: this.ip, request: this.wireRequest(), response: head };
    const status = head.status;
    if (status < 300) {
      if (this.mode === 'raw-only') {
        this.settle({
          kind: 'unsupported-encoding',
          ...base,
          encoding: head.headers['content-encoding'] ?? '',
          rawBody,
          timings: this.timings(),
        });
        return;
      }
      const { type, charset } = parseContentType(head.headers['content-type']);
      this.settle({
        kind: 'ok',
        ...base,
        body: body ?? rawBody,
        rawBody,
        contentType: type,
        charset,
        contentEncodings: this.codings,
        timings: this.timings(),
      });
    } else if (status === 304) {
      this.settle({ kind: 'not-modified', ...base, timings: this.timings() });
    } else if (status < 400) {
      this.settle({
        kind: 'redirect',
        ...base,
        location: resolveLocation(head.headers['location'], this.request.url),
        rawBody,
        timings: this.timings(),
      });
    } else {
      this.settle({
        kind: 'http-error',
        ...base,
        body: body ?? (this.codings.length === 0 ? rawBody : Buffer.alloc(0)),
        rawBody,
        isBodyTruncated: this.isTruncated,
        retryAfterMs: parseRetryAfter(head.headers['retry-after'], this.env.limits.now()),
        timings: this.timings(),
      });
    }
  }

  private tooLarge(limit: SizeLimit, limitBytes: number): void {
    const head = this.head;
    if (head === null) return;
    this.settle({
      kind: 'too-large',
      url: this.request.url,
      ip: this.ip,
      request: this.wireRequest(),
      response: head,
      limit,
      limitBytes,
      timings: this.timings(),
    });
  }

  /** The body fell short of the lowest rate in one window: cut it. */
  private tooSlow(window: ShortWindow, now: number): void {
    const head = this.head;
    if (head === null) return;
    const limits = this.env.limits;
    this.settle({
      kind: 'too-slow',
      url: this.request.url,
      ip: this.ip,
      request: this.wireRequest(),
      response: head,
      bodyBytes: this.raw.length,
      bodyMs: round(now - this.headAt),
      windowBytes: window.windowBytes,
      windowMs: round(window.windowMs),
      minBytesPerSecond: limits.minBytesPerSecond,
      minRateWindowMs: limits.minRateWindowMs,
      timings: this.timings(),
    });
  }

  /** Settles with a failure, carrying whatever request and response got through. */
  private fail(
    o:
      | { kind: 'timeout'; phase: TimeoutPhase }
      | { kind: 'reset' | 'protocol-error'; code: string; message: string }
      | { kind: 'connect-error'; code: string; message: string }
      | { kind: 'dns-error'; host: string; code: string; message: string },
  ): void {
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
      dnsMs: round(this.dnsMs),
      totalMs: round(performance.now() - this.started),
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

/** Milliseconds to three decimals, as outcomes report them. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
