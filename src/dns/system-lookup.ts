/**
 * How the crawler asks the system for a name: DNS first (A, then AAAA, with the records' TTL), and
 * the OS resolver (`getaddrinfo`: the hosts file, mDNS, search domains) for what DNS cannot answer.
 *
 * A name that DNS says does not exist (NXDOMAIN, `ENOTFOUND`), or that has neither an A nor an AAAA
 * record (`ENODATA`), is not asked again of the OS resolver, unless the OS may know it from
 * elsewhere: the name is in the hosts file, is `localhost` or under `.localhost` (RFC 6761), under
 * `.local` (mDNS), or has no dot (search domains, the machine's own name). Two reasons:
 *
 * - NXDOMAIN holds for every record type: asking for AAAA, then A and AAAA again through
 *   `getaddrinfo`, triples the queries of every dead link, and a name server that drops some queries
 *   under load makes each lost one cost a retransmission timeout (1–2 s in c-ares, 5 s in glibc).
 * - `getaddrinfo` blocks one of libuv's four worker threads for the whole lookup, and those threads
 *   also run the crawl's fsyncs, file reads and compression. A page linking to many dead hosts had
 *   all four threads waiting out glibc's timeouts while the crawl's own file work queued behind them:
 *   on the PostgreSQL 15 manual (84 linked hosts whose names do not resolve, behind a name server that
 *   loses queries under load) the crawl took 15–18 s with the OS resolver asked again, 4–7 s without,
 *   as long as a crawl that keeps to the manual's own host.
 *
 * The OS resolver is asked for {@link SystemLookupOptions.maxOsLookups} names at a time (one by
 * default): however many names DNS cannot answer, three of the four threads stay with the crawl.
 *
 * Departure: after an NXDOMAIN for a name with a dot, the search domains of resolv.conf are not
 * tried (a crawled URL names a whole host; `getaddrinfo` would try them).
 */
import { promises as dns } from 'node:dns';
import { readFile, stat } from 'node:fs/promises';
import { ConcurrencyLimit } from '../core/concurrency-limit.js';
import { canonicalHostName } from './hosts-map.js';

/** What a system lookup returns: an address and how long it may be kept. */
export type SystemAnswer =
  | { readonly kind: 'ok'; readonly ip: string; readonly family: 4 | 6; readonly ttlMs: number | null }
  | { readonly kind: 'dns-error'; readonly code: string; readonly message: string };

/** Looks a name up outside the process (replaceable in tests). */
export type SystemLookup = (host: string) => Promise<SystemAnswer>;

/** A DNS query for the records of one family, with their TTL in seconds (node:dns `resolve4`/`resolve6`). */
export type RecordQuery = (host: string) => Promise<readonly { readonly address: string; readonly ttl: number }[]>;

/** The parts of {@link createSystemLookup}; each replaceable in tests. */
export interface SystemLookupOptions {
  /** A records. Default `dns.resolve4` with TTLs. */
  readonly resolve4?: RecordQuery;
  /** AAAA records. Default `dns.resolve6` with TTLs. */
  readonly resolve6?: RecordQuery;
  /** The OS resolver. Default `dns.lookup` (`getaddrinfo`). */
  readonly osLookup?: (host: string) => Promise<{ readonly address: string; readonly family: number }>;
  /** Most OS resolver lookups at once (each holds one of libuv's four worker threads). Default 1. */
  readonly maxOsLookups?: number;
  /** The hosts file the OS resolver reads. Default `/etc/hosts` (the `drivers\etc\hosts` of Windows there). */
  readonly hostsFile?: string;
}

/** DNS answers that say the name has no address (NXDOMAIN, no record of the family), not that DNS could not be asked. */
const NO_SUCH_RECORD: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA']);

const DEFAULT_HOSTS_FILE = process.platform === 'win32' ? 'C:\\Windows\\System32\\drivers\\etc\\hosts' : '/etc/hosts';

/** Whether the OS may know `name` without DNS, by its form alone. */
function isLocalForm(name: string): boolean {
  return !name.includes('.') || name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local');
}

/** The names of a hosts file (`IP name [alias...]` per line, `#` comments), in canonical form. */
export function hostsFileNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const fields = raw.replace(/#.*/, '').trim().split(/\s+/);
    for (const field of fields.slice(1)) {
      const name = canonicalHostName(field);
      if (name !== '') names.add(name);
    }
  }
  return names;
}

/** The names of the hosts file, read again when the file changes; null when it cannot be read (then the OS is always asked). */
class HostsFileNames {
  private cached: { readonly stamp: string; readonly names: Set<string> } | null = null;

  constructor(private readonly path: string) {}

  async get(): Promise<Set<string> | null> {
    try {
      const s = await stat(this.path);
      const stamp = `${s.mtimeMs}:${s.size}`;
      if (this.cached?.stamp !== stamp) this.cached = { stamp, names: hostsFileNames(await readFile(this.path, 'utf8')) };
      return this.cached.names;
    } catch {
      // No hosts file where expected (another OS, a sandbox): the OS resolver decides, as it would anyway.
      return null;
    }
  }
}

function errorOf(err: unknown): { readonly code: string; readonly message: string } {
  const e = err as NodeJS.ErrnoException;
  return { code: e.code ?? 'EDNS', message: e.message ?? String(err) };
}

/** A system lookup; see the file comment. */
export function createSystemLookup(options: SystemLookupOptions = {}): SystemLookup {
  const resolve4: RecordQuery = options.resolve4 ?? ((h) => dns.resolve4(h, { ttl: true }));
  const resolve6: RecordQuery = options.resolve6 ?? ((h) => dns.resolve6(h, { ttl: true }));
  const osLookup = options.osLookup ?? ((h: string) => dns.lookup(h));
  const osLookups = new ConcurrencyLimit(options.maxOsLookups ?? 1);
  const hostsFile = new HostsFileNames(options.hostsFile ?? DEFAULT_HOSTS_FILE);

  /** Whether the OS resolver may know `host` although DNS has no address for it. */
  const mayKnowElsewhere = async (host: string): Promise<boolean> => {
    const name = canonicalHostName(host);
    if (isLocalForm(name)) return true;
    const names = await hostsFile.get();
    return names === null || names.has(name);
  };

  return async (host) => {
    let dnsFailure: { readonly code: string; readonly message: string } | null = null;
    let hasNoRecords = true;
    for (const [family, query] of [
      [4, resolve4],
      [6, resolve6],
    ] as const) {
      try {
        const first = (await query(host))[0];
        if (first !== undefined) return { kind: 'ok', ip: first.address, family, ttlMs: first.ttl * 1000 };
      } catch (err) {
        const e = errorOf(err);
        dnsFailure ??= e;
        if (!NO_SUCH_RECORD.has(e.code)) hasNoRecords = false;
        // NXDOMAIN is about the name, not one record type: AAAA would not exist either.
        else if (e.code === 'ENOTFOUND') break;
      }
    }
    if (dnsFailure !== null && hasNoRecords && !(await mayKnowElsewhere(host))) return { kind: 'dns-error', ...dnsFailure };
    // DNS could not be asked, or the OS may know the name from elsewhere (/etc/hosts, mDNS), without a TTL.
    try {
      const { address, family } = await osLookups.run(() => osLookup(host));
      return { kind: 'ok', ip: address, family: family === 6 ? 6 : 4, ttlMs: null };
    } catch (err) {
      return { kind: 'dns-error', ...errorOf(err) };
    }
  };
}

/** The default system lookup: node:dns and the system's hosts file. */
export const systemLookup: SystemLookup = createSystemLookup();
