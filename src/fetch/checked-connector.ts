/**
 * The connector of the undici fetcher: resolves a host through the crawl's {@link Resolver}, checks
 * the address with {@link checkAddress}, and only then connects, by IP, to that address, so the
 * check applies to the address actually connected to (a name that resolves differently later, DNS
 * rebinding, cannot slip past it). It records what each socket it opened cost (lookup, set-up) and
 * where it goes, for the outcome of the first request sent on it, and makes every socket drop
 * unsolicited `100 Continue` responses, which undici would fail (`interim-responses.ts`).
 *
 * Trust for https: Node's roots plus the crawl's extra CAs, in one TLS context built once
 * ({@link secureContextOf}).
 *
 * Why a file of its own: connecting is the fetcher's one dealing with names, addresses and
 * certificates; it knows nothing of requests, and a failure reaches the request only as a
 * {@link ConnectFailure} passed through undici's error path.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { buildConnector } from 'undici';
import type { ConfigIssue } from '../core/errors.js';
import type { Resolver } from '../dns/resolver.js';
import { checkAddress, type AddressKind, type AddressPolicy } from './address-guard.js';
import { hideContinueResponses } from './interim-responses.js';

/** What we know of a socket the connector opened. */
export interface SocketInfo {
  readonly ip: string;
  readonly dnsMs: number;
  readonly connectMs: number;
  /** Whether a request already reported this socket's set-up times (only the first one does). */
  isClaimed: boolean;
}

/** Why the connector refused or failed; carried to the request through undici's error path. */
export type ConnectProblem =
  | { readonly kind: 'dns-error'; readonly host: string; readonly code: string; readonly message: string; readonly dnsMs: number }
  | { readonly kind: 'address-denied'; readonly host: string; readonly ip: string; readonly reason: AddressKind; readonly dnsMs: number }
  | { readonly kind: 'connect'; readonly ip: string | null; readonly code: string; readonly message: string; readonly dnsMs: number };

/**
 * The error the connector hands undici. Its `code` is our own so undici's retry logic (which treats
 * `UND_ERR_SOCKET` as retryable) fails the queued requests instead of reconnecting forever.
 */
export class ConnectFailure extends Error {
  readonly code = 'ESHOALCONNECT';
  constructor(
    readonly problem: ConnectProblem,
    options?: { cause?: unknown },
  ) {
    super(problem.kind === 'address-denied' ? `${problem.ip} is ${problem.reason}` : problem.message, options);
  }
}

/**
 * One TLS context for Node's roots plus `ca`, built once (not ~150 roots parsed per connection);
 * unreadable PEM, which Node skips, is an issue. Undefined without `ca`: Node's default context.
 */
export function secureContextOf(issues: ConfigIssue[], ca: string | readonly string[] | undefined): SecureContext | undefined {
  const extra: string[] = [];
  for (const [i, text] of (typeof ca === 'string' ? [ca] : (ca ?? [])).entries()) {
    const path = typeof ca === 'string' ? 'caCertificates' : `caCertificates[${i}]`;
    const blocks = String(text).match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) issues.push({ path, message: 'no PEM certificate (-----BEGIN CERTIFICATE-----) in it' });
    for (const [n, pem] of blocks.entries()) {
      try {
        extra.push(new X509Certificate(pem).toString());
      } catch (err) {
        issues.push({ path, message: `certificate ${n + 1} cannot be read: ${(err as Error).message}` });
      }
    }
  }
  return extra.length === 0 ? undefined : createSecureContext({ ca: [...rootCertificates, ...extra] });
}

/** Resolves, checks and connects; see the file comment. */
export class CheckedConnector {
  private readonly sockets = new WeakMap<object, SocketInfo>();
  private openedCount = 0;

  /** @param base undici's connector (TCP, TLS with its options), given the checked address. */
  constructor(
    private readonly base: buildConnector.connector,
    private readonly resolver: Resolver,
    private readonly addressPolicy: AddressPolicy,
  ) {}

  /** Connections opened so far. */
  get opened(): number {
    return this.openedCount;
  }

  /** What is known of a socket this connector opened. */
  socketInfo(socket: object): SocketInfo | undefined {
    return this.sockets.get(socket);
  }

  /** Resolves, checks the address, then connects to that exact address. */
  direct(opts: buildConnector.Options, callback: buildConnector.Callback): void {
    const started = performance.now();
    const host = opts.hostname;
    this.resolver.resolve(host).then(
      (answer) => {
        const dnsMs = performance.now() - started;
        if (answer.kind === 'dns-error') {
          callback(new ConnectFailure({ kind: 'dns-error', host, code: answer.code, message: answer.message, dnsMs }), null);
          return;
        }
        const verdict = checkAddress(answer.ip, this.addressPolicy);
        if (!verdict.isAllowed) {
          callback(new ConnectFailure({ kind: 'address-denied', host, ip: answer.ip, reason: verdict.reason, dnsMs }), null);
          return;
        }
        // Dial the checked address; TLS still uses the name, for SNI and the certificate check.
        this.timed(
          { ...opts, hostname: answer.ip, servername: opts.servername ?? (isIP(host) === 0 ? host : undefined) },
          callback,
          answer.ip,
          dnsMs,
        );
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        callback(
          new ConnectFailure({ kind: 'dns-error', host, code: 'EDNS', message, dnsMs: performance.now() - started }, { cause: err }),
          null,
        );
      },
    );
  }

  /**
   * Connects with `opts` as given (already resolved and checked, or to a proxy, which resolves
   * names itself: `ip` null, the socket's peer is recorded) and records the socket.
   */
  timed(opts: buildConnector.Options, callback: buildConnector.Callback, ip: string | null, dnsMs: number): void {
    const started = performance.now();
    this.base(opts, (err, socket) => {
      if (err !== null || socket === null) {
        const e = (err ?? new Error('no socket')) as Error & { code?: string };
        callback(new ConnectFailure({ kind: 'connect', ip, code: e.code ?? 'ECONNECT', message: e.message, dnsMs }, { cause: e }), null);
        return;
      }
      this.openedCount++;
      hideContinueResponses(socket);
      this.sockets.set(socket, {
        ip: ip ?? socket.remoteAddress?.replace(/^::ffff:/, '') ?? '',
        dnsMs,
        connectMs: performance.now() - started,
        isClaimed: false,
      });
      callback(null, socket);
    });
  }
}
