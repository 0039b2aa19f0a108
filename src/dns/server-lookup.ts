/**
 * Lookups sent to name servers the user names (`network.dnsServers`) instead of the system's: A
 * first, then AAAA, with the records' TTL, over node's own DNS client (c-ares, `dns.Resolver` with
 * `setServers`). A crawl behind a resolver of its own (a local unbound or dnsmasq sized for the
 * crawl, a split-horizon server, a test network's server) needs this: the system resolver may be
 * shared, rate-limited or not the one that knows the crawl's names.
 *
 * Unlike the system lookup (`system-lookup.ts`) there is no fallback to `getaddrinfo`: the servers
 * named are the whole answer, so an NXDOMAIN from them is final and /etc/hosts, mDNS and search
 * domains are not consulted (fixed answers belong in `network.resolve` or `network.hostsFile`,
 * which the caching resolver asks first). Like Heritrix's `dnsjava` resolver and StormCrawler's
 * `dns.servers`, the servers are tried in order, each `DNS_SERVER_TRIES` times, `DNS_SERVER_TIMEOUT_MS`
 * per try.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { RecordQuery, SystemAnswer, SystemLookup } from './system-lookup.js';

/** How long one try waits for a server, ms: a local or LAN resolver answers in a few ms, a recursive lookup in well under 1 s. */
export const DNS_SERVER_TIMEOUT_MS = 2_000;
/** Tries per server before the next one is asked (c-ares doubles the timeout on each). */
export const DNS_SERVER_TRIES = 2;

/**
 * Checks one `network.dnsServers` entry: an IPv4 address with an optional `:port`, an IPv6 address,
 * or `[IPv6]:port` (the forms `dns.Resolver.setServers` takes).
 * @returns null when it is fine, else what is wrong.
 */
export function dnsServerProblem(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  let ip = entry;
  let port: string | undefined;
  if (bracketed !== null) {
    ip = bracketed[1] as string;
    port = bracketed[2];
    if (isIP(ip) !== 6) return `expected an IPv6 address inside [ ], got ${JSON.stringify(entry)}`;
  } else if (isIP(entry) === 0) {
    const colon = entry.lastIndexOf(':');
    ip = colon < 0 ? entry : entry.slice(0, colon);
    port = colon < 0 ? undefined : entry.slice(colon + 1);
    if (isIP(ip) !== 4) return `expected IP or IP:PORT (an address, not a name), got ${JSON.stringify(entry)}`;
  }
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535)) {
    return `port must be 1-65535, got ${JSON.stringify(port)}`;
  }
  return null;
}

/** Options of {@link createServerLookup}. */
export interface ServerLookupOptions {
  /** Per-try timeout, ms. Default {@link DNS_SERVER_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Tries per server. Default {@link DNS_SERVER_TRIES}. */
  readonly tries?: number;
}

/** A lookup over named servers; `cancel` ends the queries in flight (they fail with `ECANCELLED`). */
export interface ServerLookup extends SystemLookup {
  cancel(): void;
}

function errorOf(err: unknown): { readonly code: string; readonly message: string } {
  const e = err as NodeJS.ErrnoException;
  return { code: e.code ?? 'EDNS', message: e.message ?? String(err) };
}

/**
 * A lookup that asks `servers` (see {@link dnsServerProblem} for the forms) and nothing else.
 * @throws RangeError when `servers` is empty or an entry is malformed.
 */
export function createServerLookup(servers: readonly string[], options: ServerLookupOptions = {}): ServerLookup {
  if (servers.length === 0) throw new RangeError('dns: at least one server is needed');
  for (const s of servers) {
    const problem = dnsServerProblem(s);
    if (problem !== null) throw new RangeError(`dns: ${problem}`);
  }
  const resolver = new dns.Resolver({ timeout: options.timeoutMs ?? DNS_SERVER_TIMEOUT_MS, tries: options.tries ?? DNS_SERVER_TRIES });
  resolver.setServers([...servers]);
  const queries: readonly [4 | 6, RecordQuery][] = [
    [4, (h) => resolver.resolve4(h, { ttl: true })],
    [6, (h) => resolver.resolve6(h, { ttl: true })],
  ];
  const lookup = async (host: string): Promise<SystemAnswer> => {
    let failure: { readonly code: string; readonly message: string } | null = null;
    for (const [family, query] of queries) {
      try {
        const first = (await query(host))[0];
        if (first !== undefined) return { kind: 'ok', ip: first.address, family, ttlMs: first.ttl * 1000 };
      } catch (err) {
        const e = errorOf(err);
        // An AAAA answer decides only when A had no records; a server that failed on A keeps its failure.
        if (failure === null || failure.code === 'ENODATA') failure = e;
        // NXDOMAIN is about the name, not one record type: AAAA would not exist either.
        if (e.code === 'ENOTFOUND') break;
      }
    }
    return { kind: 'dns-error', ...(failure ?? { code: 'ENODATA', message: `${host} has no A or AAAA record` }) };
  };
  return Object.assign(lookup, { cancel: () => resolver.cancel() });
}
