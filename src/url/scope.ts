/**
 * Crawl scope (SPEC §2 item 1): which discovered URLs belong to this crawl at all. Two parts:
 *
 * - {@link scopeFilter}: the rules a URL can be judged by on its own. Hosts, registrable domains,
 *   host suffixes and seeds-only scopes say which hosts are in; `maxDepth` bounds the links
 *   followed from a seed; `maxPathDepth` bounds path levels.
 * - {@link ScopeCounters}: the budgets that depend on what was fetched so far (pages per host,
 *   pages in all, bytes), kept as plain counts the node updates after each fetch. It is a
 *   `UrlFilter` too, so the same chain can drop links to a host whose budget is spent.
 *
 * Host rules are a union: a host is in scope when any rule admits it, and when no host rule is
 * given (no hosts, domains, suffixes or seeds) every host is. Regular-expression includes and
 * excludes are the `RegexFilter` (src/url/filter/regex-filter.ts), composed next to this one.
 *
 * Registrable domains come from the Public Suffix List through tldts, *private* suffixes included
 * (`github.io`, `blogspot.com`): each site under them has its own owner, so a seeds-only crawl
 * from `alice.github.io` stays on Alice's site instead of spreading over every GitHub Pages site.
 *
 * `maxPathDepth`: the geographic crawl of seed 003 (§5) dug "each domain name up to five levels of
 * depth" with larbin, whose setting counts links followed inside a site. A URL alone does not carry
 * that count, so shoal bounds the path levels instead (`/a/b/c.html` is 3), the usual reading of a
 * per-site depth in URL-based scopes; `maxDepth` still bounds the links from the seed.
 */
import { getDomain } from 'tldts';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { hostNameOf, hostNamesOf, isInDomainSet } from './filter/host-filter.js';
import {
  ACCEPTED,
  RejectReason,
  pathDepth,
  rejected,
  urlParts,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './filter/url-filter.js';
import { normalizeUrl } from './normalize.js';

/** How a seeds-only scope widens each seed. */
export const SeedMatch = {
  /** Exactly the seeds' hosts (`www.example.com` admits only itself). */
  host: 'host',
  /** Every host of the seeds' registrable domains (`www.example.com` admits `blog.example.com`). */
  domain: 'domain',
} as const;
export type SeedMatch = (typeof SeedMatch)[keyof typeof SeedMatch];

/** The geographic crawl's path-depth limit (seed 003 §5), for crawls that reproduce it. */
export const GEO_PAPER_MAX_PATH_DEPTH = 5;

/** A crawl's scope. Every field is optional; limits default to `Infinity` (none). */
export interface CrawlScope {
  /** Hosts admitted exactly (`www.example.com`). */
  readonly hosts?: readonly string[];
  /** Registrable domains admitted with all their hosts (`example.co.uk`); a subdomain here is an error. */
  readonly domains?: readonly string[];
  /** Host suffixes admitted on a label boundary (`.test`, `.edu`, `ac.uk`; the leading dot is optional). */
  readonly suffixes?: readonly string[];
  /** Seeds-only scope: the hosts, or the registrable domains, of these seed URLs. */
  readonly seeds?: { readonly urls: readonly string[]; readonly match: SeedMatch };
  /** Most links followed from a seed (seeds are 0; a non-negative integer, default `Infinity`). */
  readonly maxDepth?: number;
  /** Most path levels (non-empty segments; `/` is 0), default `Infinity`; see the file comment. */
  readonly maxPathDepth?: number;
  /** Most pages fetched per host (enforced by {@link ScopeCounters}), default `Infinity`. */
  readonly maxPagesPerHost?: number;
  /** Most pages fetched in all (enforced by {@link ScopeCounters}), default `Infinity`. */
  readonly maxPages?: number;
  /** Most bytes downloaded in all (enforced by {@link ScopeCounters}), default `Infinity`. */
  readonly maxBytes?: number;
}

/** The counted limits of a scope. */
export type ScopeLimits = Pick<CrawlScope, 'maxPagesPerHost' | 'maxPages' | 'maxBytes'>;

function limit(value: number | undefined, path: string, issues: ConfigIssue[]): number {
  if (value === undefined || value === Infinity) return Infinity;
  if (!Number.isSafeInteger(value) || value < 0) issues.push({ path, message: `must be a non-negative integer or Infinity, got ${value}` });
  return value;
}

/** The registrable domain of a host name, private PSL suffixes counted as public; null for IPs and suffixes. */
function registrableDomain(host: string): string | null {
  return getDomain(host, { allowPrivateDomains: true });
}

/** The compiled host rules of a scope. */
interface HostRules {
  /** Hosts admitted exactly. */
  readonly hosts: ReadonlySet<string>;
  /** Names admitted with every host below them (domains, suffixes, seed domains). */
  readonly trees: ReadonlySet<string>;
  readonly hasRules: boolean;
}

function hostRules(scope: CrawlScope, issues: ConfigIssue[]): HostRules {
  const hosts = hostNamesOf(scope.hosts ?? [], 'hosts', issues);
  const trees = new Set<string>();
  for (const [i, d] of (scope.domains ?? []).entries()) {
    const name = hostNameOf(d);
    const domain = name === null ? null : registrableDomain(name);
    if (name === null) issues.push({ path: `domains[${i}]`, message: `'${d}' is not a host name` });
    else if (domain === name) trees.add(name);
    else if (domain === null)
      issues.push({
        path: `domains[${i}]`,
        message: `'${d}' is a public suffix or an address, not a registrable domain; list it under suffixes or hosts`,
      });
    else
      issues.push({
        path: `domains[${i}]`,
        message: `'${d}' is not a registrable domain (its domain is '${domain}'); list it under hosts, or give '${domain}'`,
      });
  }
  for (const s of hostNamesOf(scope.suffixes ?? [], 'suffixes', issues)) trees.add(s);
  const seeds = scope.seeds;
  if (seeds !== undefined) {
    if (seeds.match !== SeedMatch.host && seeds.match !== SeedMatch.domain) {
      issues.push({ path: 'seeds.match', message: `must be '${SeedMatch.host}' or '${SeedMatch.domain}'` });
    }
    if (seeds.urls.length === 0) issues.push({ path: 'seeds.urls', message: 'a seeds-only scope needs at least one seed' });
    seeds.urls.forEach((u, i) => {
      const r = normalizeUrl(u);
      if (r.kind !== 'ok') {
        issues.push({ path: `seeds.urls[${i}]`, message: `'${u}' is not an http(s) URL (${r.reason})` });
        return;
      }
      // An address or a single-label name has no registrable domain: the seed's own host is its site.
      const domain = seeds.match === SeedMatch.domain ? registrableDomain(r.host) : null;
      if (domain === null) hosts.add(r.host);
      else trees.add(domain);
    });
  }
  return { hosts, trees, hasRules: hosts.size > 0 || trees.size > 0 || seeds !== undefined };
}

/**
 * The URL filter of a scope: `depth` when the candidate is more than `maxDepth` links from a seed,
 * `out-of-scope` when no host rule admits its host, `path-depth` when its path has more than
 * `maxPathDepth` levels. The counted limits are {@link ScopeCounters}'. Throws `ConfigError`
 * listing every bad field.
 */
export function scopeFilter(scope: CrawlScope): UrlFilter {
  const issues: ConfigIssue[] = [];
  const rules = hostRules(scope, issues);
  const maxDepth = limit(scope.maxDepth, 'maxDepth', issues);
  const maxPathDepth = limit(scope.maxPathDepth, 'maxPathDepth', issues);
  limitsOf(scope, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const params: Record<string, number | string | readonly string[]> = {};
  if (scope.hosts !== undefined) params.hosts = Object.freeze([...scope.hosts]);
  if (scope.domains !== undefined) params.domains = Object.freeze([...scope.domains]);
  if (scope.suffixes !== undefined) params.suffixes = Object.freeze([...scope.suffixes]);
  if (scope.seeds !== undefined) {
    params.seedMatch = scope.seeds.match;
    params.seeds = Object.freeze([...scope.seeds.urls]);
  }
  if (maxDepth !== Infinity) params.maxDepth = maxDepth;
  if (maxPathDepth !== Infinity) params.maxPathDepth = maxPathDepth;
  const spec: UrlFilterSpec = Object.freeze({ id: 'scope', params: Object.freeze(params) });
  const { hosts, trees, hasRules } = rules;
  return {
    spec,
    check(c: CandidateUrl): FilterVerdict {
      if (c.depth > maxDepth) return rejected(RejectReason.depth);
      if (hasRules && !hosts.has(c.host) && !isInDomainSet(c.host, trees)) return rejected(RejectReason.outOfScope);
      if (maxPathDepth !== Infinity && pathDepth(urlParts(c.url).path) > maxPathDepth) return rejected(RejectReason.pathDepth);
      return ACCEPTED;
    },
  };
}

function limitsOf(limits: ScopeLimits, issues: ConfigIssue[]): { maxPagesPerHost: number; maxPages: number; maxBytes: number } {
  return {
    maxPagesPerHost: limit(limits.maxPagesPerHost, 'maxPagesPerHost', issues),
    maxPages: limit(limits.maxPages, 'maxPages', issues),
    maxBytes: limit(limits.maxBytes, 'maxBytes', issues),
  };
}

/** What {@link ScopeCounters} has counted, to store at a checkpoint and restore on resume. */
export interface ScopeCountersSnapshot {
  readonly pages: number;
  readonly bytes: number;
  /** Pages per host; kept only when `maxPagesPerHost` is set. */
  readonly hostPages: Readonly<Record<string, number>>;
}

/**
 * The counted budgets of a scope: pages per host, pages in all, bytes in all. The node calls
 * {@link recordPage} once per fetch that got a response (whatever its status: each costs the
 * server a request and the crawl a log line), with the body bytes it downloaded.
 *
 * As a `UrlFilter` it rejects, in this order, every URL once `maxPages` pages (`page-limit`) or
 * `maxBytes` bytes (`byte-limit`) were reached, and the URLs of a host that has `maxPagesPerHost`
 * pages (`host-page-limit`). Links already queued were admitted before the budget ran out, so the
 * node checks again right before each fetch; with one fetch at a time the limits are then exact,
 * and with several in flight a budget can be passed by at most the fetches already under way.
 *
 * Pure: counts only, no clock, no I/O. Per-host counts are kept only when a per-host limit is set,
 * so an unlimited crawl does not hold a map entry per host it ever saw.
 */
export class ScopeCounters implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly maxPagesPerHost: number;
  private readonly maxPages: number;
  private readonly maxBytes: number;
  private pageCount = 0;
  private byteCount = 0;
  private readonly hostCounts = new Map<string, number>();

  /** Takes the limits of `limits` (extra scope fields are ignored), and counts to resume from. */
  constructor(limits: ScopeLimits, restored?: ScopeCountersSnapshot) {
    const issues: ConfigIssue[] = [];
    const l = limitsOf(limits, issues);
    if (issues.length > 0) throw new ConfigError(issues);
    this.maxPagesPerHost = l.maxPagesPerHost;
    this.maxPages = l.maxPages;
    this.maxBytes = l.maxBytes;
    const params: Record<string, number> = {};
    for (const [k, v] of Object.entries(l)) if (v !== Infinity) params[k] = v;
    this.spec = Object.freeze({ id: 'scope-limits', params: Object.freeze(params) });
    if (restored !== undefined) {
      this.pageCount = restored.pages;
      this.byteCount = restored.bytes;
      if (this.maxPagesPerHost !== Infinity) for (const [h, n] of Object.entries(restored.hostPages)) this.hostCounts.set(h, n);
    }
  }

  /** Counts one fetched page of `host` with `bytes` body bytes (a non-negative integer). */
  recordPage(host: string, bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0)
      throw new RangeError(`ScopeCounters.recordPage: bytes must be a non-negative integer, got ${bytes}`);
    this.pageCount++;
    this.byteCount += bytes;
    if (this.maxPagesPerHost !== Infinity) this.hostCounts.set(host, (this.hostCounts.get(host) ?? 0) + 1);
  }

  check(candidate: CandidateUrl): FilterVerdict {
    if (this.pageCount >= this.maxPages) return rejected(RejectReason.pageLimit);
    if (this.byteCount >= this.maxBytes) return rejected(RejectReason.byteLimit);
    if (this.maxPagesPerHost !== Infinity && (this.hostCounts.get(candidate.host) ?? 0) >= this.maxPagesPerHost) {
      return rejected(RejectReason.hostPageLimit);
    }
    return ACCEPTED;
  }

  /** Pages recorded in all. */
  get pages(): number {
    return this.pageCount;
  }

  /** Bytes recorded in all. */
  get bytes(): number {
    return this.byteCount;
  }

  /** Pages recorded for `host`; always 0 when no per-host limit is set (not counted then). */
  pagesOf(host: string): number {
    return this.hostCounts.get(host) ?? 0;
  }

  /** Whether the crawl's total budget (pages or bytes) is spent: the node may stop fetching. */
  get isExhausted(): boolean {
    return this.pageCount >= this.maxPages || this.byteCount >= this.maxBytes;
  }

  /** The counts, for a checkpoint. */
  snapshot(): ScopeCountersSnapshot {
    return { pages: this.pageCount, bytes: this.byteCount, hostPages: Object.fromEntries(this.hostCounts) };
  }
}
