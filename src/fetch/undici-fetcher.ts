/**
 * The {@link Fetcher} on undici's low-level `dispatch` API.
 *
 * How one call goes: undici keeps one pool per origin (`connections` sockets, no pipelining,
 * keep-alive). A pool that needs a socket calls our connector (checked-connector.ts), which resolves
 * the host through the crawl's {@link Resolver}, checks the address and only then connects, by IP,
 * to that address: the check applies to the address actually connected to, so a name that
 * resolves differently later (DNS rebinding) cannot slip past it. Each request has its own dispatch
 * handler (fetch-call.ts: limits, decoding, timers, outcomes); the bytes of the request as written
 * come from undici's diagnostics channel (request-capture.ts).
 *
 * HTTPS: the connector replaces only `hostname` (the address dialled) and sets `servername` to the
 * name, which Node sends as SNI and checks the certificate against (an IP-literal URL: no SNI, the
 * IP is checked). Trust: Node's roots plus `caCertificates`. A failed check is a `connect-error` with
 * the TLS code (`CERT_HAS_EXPIRED`, ...). Through a proxy the same TLS runs inside a CONNECT tunnel.
 */
import { Agent, Pool, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { Resolver } from '../dns/resolver.js';
import type { AddressPolicy } from './address-guard.js';
import { CheckedConnector, secureContextOf } from './checked-connector.js';
import { FetchCall, type CallEnv, type Limits } from './fetch-call.js';
import { AbortReason, type FetchOutcome, type FetchRequest, type Fetcher } from './fetcher.js';
import { holdRequestCapture, releaseRequestCapture } from './request-capture.js';
import { DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS } from './transfer-rate.js';

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

function positive(issues: ConfigIssue[], path: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) issues.push({ path, message: `must be a positive number, got ${String(value)}` });
  return v;
}

/** {@link Fetcher} over undici; see the file comment and the {@link Fetcher} contract. */
export class UndiciFetcher implements Fetcher {
  private readonly limits: Limits;
  private readonly env: CallEnv;
  private readonly dispatcher: Dispatcher;
  private readonly connector: CheckedConnector;
  private readonly calls = new Set<FetchCall>();
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
    const tls: buildConnector.BuildOptions = {
      timeout: this.limits.connectTimeoutMs,
      secureContext: secureContextOf(issues, o.caCertificates),
    };
    if (issues.length > 0) throw new ConfigError(issues);
    this.env = {
      limits: this.limits,
      isProxied: proxy !== null,
      socketInfo: (socket) => this.connector.socketInfo(socket),
      forget: (call) => this.calls.delete(call),
    };
    this.baseHeaders = { 'user-agent': o.userAgent, accept: o.accept ?? DEFAULT_ACCEPT, 'accept-encoding': 'gzip, deflate, br' };
    this.connector = new CheckedConnector(buildConnector(tls), o.resolver, o.addressPolicy);
    const pool = {
      connections,
      pipelining: 1,
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: keepAliveMs,
      headersTimeout: this.limits.firstByteTimeoutMs,
      bodyTimeout: this.limits.bodyTimeoutMs,
    };
    if (proxy === null) {
      this.dispatcher = new Agent({ ...pool, connect: (opts, cb) => this.connector.direct(opts, cb) });
    } else {
      const proxyOrigin = proxy.origin;
      // ProxyAgent builds the pool to the proxy through `factory` (one per target origin, for
      // absolute-form requests): give it our limits and a connector that records the socket.
      // requestTls: the TLS to an https target inside a CONNECT tunnel; proxyTls: to an https proxy.
      this.dispatcher = new ProxyAgent({
        uri: proxy.href,
        proxyTunnel: false,
        ...pool,
        requestTls: tls,
        proxyTls: tls,
        factory: (origin, opts) =>
          new Pool(origin, {
            ...pool,
            connect:
              new URL(String(origin)).origin === proxyOrigin
                ? (co: buildConnector.Options, cb: buildConnector.Callback) => this.connector.timed(co, cb, null, 0)
                : (opts as Pool.Options).connect, // https targets: ProxyAgent's CONNECT tunnel
          }),
      });
    }
    holdRequestCapture();
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
    const call = new FetchCall(this.env, request, target, method, headers, signal);
    if (this.closing !== null) call.abandon(AbortReason.closed);
    else if (signal?.aborted === true) call.abandon(AbortReason.signal);
    else {
      this.calls.add(call);
      this.dispatcher.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method,
          headers,
          headersTimeout: this.limits.firstByteTimeoutMs,
          bodyTimeout: this.limits.bodyTimeoutMs,
        },
        call,
      );
    }
    return call.promise;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const call of [...this.calls]) call.abandon(AbortReason.closed);
      releaseRequestCapture();
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
