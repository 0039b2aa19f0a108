/**
 * How long each host's fetches take, for the slowest hosts: the fetch records' `durationMs`
 * (the last attempt of each URL) added up per host, in a map of at most `maxHosts` hosts. When it is
 * full, the host heard of least recently goes (a host still being crawled keeps coming back), so a
 * crawl of millions of hosts costs no more than `maxHosts` entries.
 */
import type { CrawlLogRecord } from '../../store/records.js';
import type { SlowHost } from './snapshot.js';

interface HostEntry {
  fetches: number;
  totalMs: number;
  maxMs: number;
  node: string;
}

/** See the file comment. */
export class HostDurations {
  /** In order of the last record (a Map keeps insertion order: re-inserted on each record). */
  private readonly hosts = new Map<string, HostEntry>();

  constructor(private readonly maxHosts = 5_000) {}

  /** Counts a record that made a request (records without one, robots decisions and budgets, are skipped). */
  add(r: Pick<CrawlLogRecord, 'host' | 'durationMs' | 'attempts' | 'node'>): void {
    if (r.attempts === 0) return;
    const entry = this.hosts.get(r.host) ?? { fetches: 0, totalMs: 0, maxMs: 0, node: r.node };
    entry.fetches++;
    entry.totalMs += r.durationMs;
    entry.maxMs = Math.max(entry.maxMs, r.durationMs);
    entry.node = r.node;
    this.hosts.delete(r.host);
    this.hosts.set(r.host, entry);
    if (this.hosts.size > this.maxHosts) {
      const oldest = this.hosts.keys().next();
      if (oldest.done !== true) this.hosts.delete(oldest.value);
    }
  }

  /** The `n` hosts with the longest mean fetch, longest first (ties: longest single fetch, then name). */
  slowest(n: number): SlowHost[] {
    const all: SlowHost[] = [];
    for (const [host, e] of this.hosts) all.push({ host, fetches: e.fetches, meanMs: e.totalMs / e.fetches, maxMs: e.maxMs, node: e.node });
    all.sort((a, b) => b.meanMs - a.meanMs || b.maxMs - a.maxMs || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
    return all.slice(0, n);
  }
}
