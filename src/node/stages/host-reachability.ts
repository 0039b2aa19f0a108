/**
 * Hosts that cannot be reached (SPEC §8: "a host that refuses connections is reported within seconds
 * and given up in bounded time"). Every request that fails before the server answers (connection
 * refused or unreachable, a connect timeout, a name server that does not answer) counts against its
 * host; any answer, whatever its status, clears the count. The first failure is logged at once and
 * shown on the progress line; after `maxFailures` in a row the host is given up for the rest of the
 * run: its queued URLs end with that failure's outcome, without a request, and the summary names it.
 *
 * Why a count in a row and not a time: the fetch loop already spaces a failing host's attempts by the
 * politeness back-off (10 s, then 20 s by default), so three failures in a row take about half a
 * minute, whatever the number of URLs the host has queued, which the retries of each URL alone would
 * not bound (three attempts per URL, a thousand URLs).
 */
import type { Log } from '../../obs/log.js';
import type { CrawlOutcomeKind } from '../../store/records.js';
import type { FetchOutcome } from '../../fetch/fetcher.js';

/** A failure before any answer: what kind, and the system's code. */
export interface ConnectionFailure {
  readonly kind: Extract<CrawlOutcomeKind, 'connect-error' | 'dns-error' | 'timeout'>;
  readonly code: string;
}

/** A host whose last requests all failed before an answer. */
export interface UnreachableHost {
  /** The politeness key: host, with the port when not the default. */
  readonly host: string;
  readonly kind: ConnectionFailure['kind'];
  readonly code: string;
  /** Failures in a row. */
  readonly failures: number;
  readonly isGivenUp: boolean;
}

/** What the fetch loop does with a URL of a given-up host. */
export interface GivenUpHost {
  readonly outcome: ConnectionFailure['kind'];
  /** The reason the crawl log gives: what failed, how many times. */
  readonly detail: string;
}

/** DNS answers that say the name server did not answer (not that the name does not exist). */
const UNANSWERED_DNS: ReadonlySet<string> = new Set(['ETIMEOUT', 'ESERVFAIL', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT']);

/** The connection failure an outcome is, or null when the server answered or the failure is of another kind. */
export function connectionFailureOf(outcome: FetchOutcome): ConnectionFailure | null {
  if (outcome.kind === 'connect-error') return { kind: 'connect-error', code: outcome.code };
  if (outcome.kind === 'timeout' && outcome.phase === 'connect') return { kind: 'timeout', code: 'connect-timeout' };
  if (outcome.kind === 'dns-error' && UNANSWERED_DNS.has(outcome.code)) return { kind: 'dns-error', code: outcome.code };
  return null;
}

const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  'connect-timeout': 'connect timed out',
  ETIMEDOUT: 'timed out',
  EAI_AGAIN: 'name server did not answer',
  ETIMEOUT: 'name server did not answer',
  ESERVFAIL: 'name server failed',
};

/** A failure in words a user reads on the progress line: `connection refused`, `host unreachable (EHOSTUNREACH)`. */
export function describeFailure(f: Pick<ConnectionFailure, 'code'>): string {
  return WORDS[f.code] ?? f.code;
}

/** Hosts tracked at most (the failing ones; a host that answers is forgotten). */
const MAX_TRACKED = 10_000;

/** See the file comment. */
export class HostReachability {
  private readonly hosts = new Map<string, { failure: ConnectionFailure; failures: number; isGivenUp: boolean }>();
  private givenUpCount = 0;

  constructor(
    private readonly maxFailures: number,
    private readonly log: Log,
  ) {
    if (!Number.isInteger(maxFailures) || maxFailures < 1)
      throw new RangeError(`HostReachability: maxFailures must be a positive integer, got ${maxFailures}`);
  }

  /** A request to `host` failed before an answer. */
  failed(host: string, failure: ConnectionFailure): void {
    const h = this.hosts.get(host);
    if (h !== undefined && h.isGivenUp) return;
    const failures = (h?.failures ?? 0) + 1;
    if (h === undefined && this.hosts.size >= MAX_TRACKED) this.hosts.delete(this.hosts.keys().next().value as string);
    const isGivenUp = failures >= this.maxFailures;
    this.hosts.set(host, { failure, failures, isGivenUp });
    if (isGivenUp) {
      this.givenUpCount++;
      this.log.warn('host-given-up', {
        host,
        outcome: failure.kind,
        code: failure.code,
        failures,
        message: `${describeFailure(failure)}, ${failures} times in a row`,
      });
    } else if (failures === 1) {
      this.log.warn('host-unreachable', { host, outcome: failure.kind, code: failure.code, message: describeFailure(failure) });
    }
  }

  /** `host` answered (any status): it is reachable. */
  answered(host: string): void {
    const h = this.hosts.get(host);
    if (h !== undefined && !h.isGivenUp) this.hosts.delete(host);
  }

  /** Whether `host` is given up, and what its URLs end as; null when it is not. */
  givenUp(host: string): GivenUpHost | null {
    const h = this.hosts.get(host);
    if (h === undefined || !h.isGivenUp) return null;
    return {
      outcome: h.failure.kind,
      detail: `host given up: ${describeFailure(h.failure)} (${h.failure.code}), ${h.failures} times in a row`,
    };
  }

  /** Hosts given up in this run. */
  get givenUpHosts(): number {
    return this.givenUpCount;
  }

  /** The hosts failing or given up now, given-up ones first, then the most failures. */
  unreachable(limit = 10): UnreachableHost[] {
    return [...this.hosts]
      .map(([host, h]) => ({ host, kind: h.failure.kind, code: h.failure.code, failures: h.failures, isGivenUp: h.isGivenUp }))
      .sort((a, b) => Number(b.isGivenUp) - Number(a.isGivenUp) || b.failures - a.failures || a.host.localeCompare(b.host))
      .slice(0, limit);
  }

  /** How many hosts are failing (not yet given up) and given up now. */
  counts(): { readonly failing: number; readonly givenUp: number } {
    let givenUp = 0;
    for (const h of this.hosts.values()) if (h.isGivenUp) givenUp++;
    return { failing: this.hosts.size - givenUp, givenUp };
  }
}
