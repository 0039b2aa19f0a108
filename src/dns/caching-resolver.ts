/**
 * The crawler's resolver: a hosts map first (`--resolve`, hosts files), names under `.invalid` as
 * never resolving (RFC 6761), then a bounded cache of answers with their time-to-live, then the
 * system (system-lookup.ts: by default the DNS records' own TTL, or the OS resolver with a default
 * TTL when the records cannot be queried directly).
 *
 * Failures are kept too, for one of two times. A name that does not resolve (`isUnresolvable`:
 * NXDOMAIN, no address record) is a definite answer, kept `negativeTtlMs` (1 min): the crawl ends the
 * URLs of its host from the cache, one lookup a minute at most. A name server that did not answer
 * (a timeout, SERVFAIL) says nothing about the name: kept only `transientTtlMs` (5 s), so that the
 * next attempt, after its host's back-off, asks again rather than meeting the same failure.
 *
 * At most `maxLookups` names are looked up at once; the others wait their turn. A page can link to
 * thousands of hosts the crawl has not met: asked all at once, a name server that limits its rate
 * drops most of the queries, each then costs its timeout, and the OS resolver asked after it holds
 * libuv's worker threads, which the crawl's file work needs (docs/architecture.md §5).
 */
import { isIP } from 'node:net';
import { ConcurrencyLimit } from '../core/concurrency-limit.js';
import { canonicalHostName, type HostsMap } from './hosts-map.js';
import { isUnresolvable, ResolveSource, type ResolveResult, type Resolver } from './resolver.js';
import { systemLookup, type SystemAnswer, type SystemLookup } from './system-lookup.js';

export type { SystemAnswer, SystemLookup } from './system-lookup.js';

/** Options of {@link CachingResolver}. */
export interface CachingResolverOptions {
  /** Answers that bypass DNS (checked first, never expire). */
  readonly hostsMap?: HostsMap;
  /** Whether names without a hosts-map entry may be looked up at all (false: they fail with `ENOHOSTSMAP`). Default true. */
  readonly isSystemAllowed?: boolean;
  /**
   * The system lookup. Default: DNS A/AAAA records with their TTL, else the OS resolver. One with a
   * `cancel()` (`server-lookup.ts`) has its queries in flight cancelled by {@link close}.
   */
  readonly lookup?: SystemLookup & { cancel?: () => void };
  /** TTL used when the lookup gives none, in ms. Default 300,000 (5 min). */
  readonly defaultTtlMs?: number;
  /** Upper bound on any positive TTL, in ms. Default 3,600,000 (1 h). */
  readonly maxTtlMs?: number;
  /** How long a name that does not resolve (NXDOMAIN, no address record) is remembered, in ms. Default 60,000. */
  readonly negativeTtlMs?: number;
  /** How long any other failure (a name server that timed out, failed or refused) is remembered, in ms; at most `negativeTtlMs`. Default 5,000. */
  readonly transientTtlMs?: number;
  /** Most cached names (least recently used out first). Default 100,000. */
  readonly maxEntries?: number;
  /** Most names looked up at once (the others wait their turn). Default {@link DEFAULT_MAX_LOOKUPS}. */
  readonly maxLookups?: number;
  /** Clock in ms (injected in tests). Default Date.now. */
  readonly now?: () => number;
}

/** {@link CachingResolverOptions.maxLookups} by default. */
export const DEFAULT_MAX_LOOKUPS = 32;

interface Entry {
  readonly result: ResolveResult;
  readonly expiresAtMs: number;
}

/** Hosts map, then cache, then system lookup; see the {@link Resolver} contract. */
export class CachingResolver implements Resolver {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<ResolveResult>>();
  private readonly lookup: SystemLookup & { cancel?: () => void };
  private readonly lookups: ConcurrencyLimit;
  private readonly now: () => number;
  private isClosed = false;

  /** @throws RangeError on a `maxLookups` that is not an integer >= 1. */
  constructor(private readonly options: CachingResolverOptions = {}) {
    this.lookup = options.lookup ?? systemLookup;
    this.lookups = new ConcurrencyLimit(options.maxLookups ?? DEFAULT_MAX_LOOKUPS);
    this.now = options.now ?? Date.now;
  }

  /** Names being looked up now, and names waiting their turn. */
  get lookupsInFlight(): { readonly active: number; readonly queued: number } {
    return { active: this.lookups.active, queued: this.lookups.queued };
  }

  /** Cached names (for statistics). */
  get cacheSize(): number {
    return this.cache.size;
  }

  async resolve(host: string): Promise<ResolveResult> {
    const known = this.known(host);
    if (typeof known !== 'string') return known;
    const name = known;
    const pending = this.inFlight.get(name);
    if (pending !== undefined) return pending;
    const query = this.query(name).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, query);
    return query;
  }

  peek(host: string): ResolveResult | null {
    const known = this.known(host);
    return typeof known === 'string' ? null : known;
  }

  /** The answer for `host` that needs no lookup, or the canonical name to look up. */
  private known(host: string): ResolveResult | string {
    const literal = host.replace(/^\[(.*)\]$/, '$1');
    const literalFamily = isIP(literal);
    if (literalFamily !== 0) return { kind: 'ok', ip: literal, family: literalFamily as 4 | 6, source: ResolveSource.literal };
    const name = canonicalHostName(host);
    if (name === '')
      return { kind: 'dns-error', code: 'EBADNAME', message: `not a host name: ${JSON.stringify(host)}`, source: ResolveSource.literal };
    const mapped = this.options.hostsMap?.lookup(name);
    if (mapped !== undefined) return { kind: 'ok', ip: mapped.ip, family: mapped.family, source: ResolveSource.hostsMap };
    // RFC 6761 §6.4: names under .invalid never resolve, and resolvers answer so without asking.
    if (name === 'invalid' || name.endsWith('.invalid'))
      return {
        kind: 'dns-error',
        code: 'ENOTFOUND',
        message: `${name}: the .invalid domain does not resolve`,
        source: ResolveSource.literal,
      };
    if (this.options.isSystemAllowed === false) {
      return {
        kind: 'dns-error',
        code: 'ENOHOSTSMAP',
        message: `${name} is not in the hosts map and system lookups are off`,
        source: ResolveSource.hostsMap,
      };
    }
    const cached = this.cache.get(name);
    if (cached !== undefined) {
      if (cached.expiresAtMs > this.now()) {
        // Refresh its place in the LRU order.
        this.cache.delete(name);
        this.cache.set(name, cached);
        return { ...cached.result, source: ResolveSource.cache };
      }
      this.cache.delete(name);
    }
    return name;
  }

  close(): void {
    if (!this.isClosed) {
      this.lookups.cancelWaiting(Object.assign(new Error('the resolver was closed'), { code: 'ECANCELLED' }));
      this.lookup.cancel?.();
    }
    this.isClosed = true;
    this.cache.clear();
  }

  private async query(name: string): Promise<ResolveResult> {
    let answer: SystemAnswer;
    try {
      answer = await this.lookups.run(() => this.lookup(name));
    } catch (err) {
      // A lookup function that throws is treated like a failed lookup, never as a crawl crash.
      answer = { kind: 'dns-error', code: (err as NodeJS.ErrnoException).code ?? 'EDNS', message: (err as Error).message };
    }
    const o = this.options;
    const result: ResolveResult =
      answer.kind === 'ok'
        ? { kind: 'ok', ip: answer.ip, family: answer.family, source: ResolveSource.dns }
        : { kind: 'dns-error', code: answer.code, message: answer.message, source: ResolveSource.dns };
    const negativeTtlMs = o.negativeTtlMs ?? 60_000;
    let ttlMs: number;
    if (answer.kind === 'ok') ttlMs = Math.min(answer.ttlMs ?? o.defaultTtlMs ?? 300_000, o.maxTtlMs ?? 3_600_000);
    else ttlMs = isUnresolvable(result) ? negativeTtlMs : Math.min(o.transientTtlMs ?? 5_000, negativeTtlMs);
    if (!this.isClosed && ttlMs > 0) {
      this.cache.set(name, { result, expiresAtMs: this.now() + ttlMs });
      const max = o.maxEntries ?? 100_000;
      while (this.cache.size > max) {
        const oldest = this.cache.keys().next().value;
        if (oldest === undefined) break;
        this.cache.delete(oldest);
      }
    }
    return result;
  }
}
