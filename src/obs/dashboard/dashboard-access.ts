/**
 * Who may read the dashboard (SPEC §8). On a loopback address it needs nothing unless a token is
 * given; on any other address a token is required, and one is generated (24 random bytes, base64url)
 * when none is given. With a token, every request must carry it, as `?token=` or
 * `Authorization: Bearer`, compared in constant time. Without one (loopback only), requests must name
 * a loopback host in `Host`, so that a web page whose name was rebound to 127.0.0.1 (DNS rebinding)
 * cannot read the crawl through the visitor's browser.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** How the dashboard is protected. */
export interface DashboardAccess {
  /** The token every request must carry, or null (loopback without a token). */
  readonly token: string | null;
  /** Whether the token was generated here (then it is printed, since nobody else knows it). */
  readonly isGenerated: boolean;
}

/** Whether `host` (an address or `localhost`) is a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && (mapped[1] as string).startsWith('127.');
}

/** The access rule for a dashboard bound to `host`, with the token given (or null). */
export function dashboardAccess(host: string, token: string | null, random: (bytes: number) => Buffer = randomBytes): DashboardAccess {
  if (token !== null) return { token, isGenerated: false };
  if (isLoopbackHost(host)) return { token: null, isGenerated: false };
  return { token: random(24).toString('base64url'), isGenerated: true };
}

/** What a request brings: its `?token=`, its `Authorization` and `Host` headers. */
export interface RequestCredentials {
  readonly queryToken: string | undefined;
  readonly authorization: string | undefined;
  readonly host: string | undefined;
}

/** Why a request is refused: 401 (no or wrong token), 403 (a host name that is not loopback); null: allowed. */
export function refusal(access: DashboardAccess, r: RequestCredentials): 401 | 403 | null {
  if (access.token === null) return r.host !== undefined && isLoopbackHost(hostOfHeader(r.host)) ? null : 403;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(r.authorization ?? '')?.[1];
  const given = r.queryToken ?? bearer;
  return given !== undefined && isSameSecret(given, access.token) ? null : 401;
}

/** The host of a `Host` header (`127.0.0.1:8080`, `[::1]:8080`, `localhost`). */
function hostOfHeader(header: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(header);
  if (bracketed !== null) return bracketed[1] as string;
  return header.replace(/:\d+$/, '');
}

function isSameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
