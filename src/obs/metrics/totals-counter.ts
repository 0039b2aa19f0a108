/**
 * A Prometheus counter fed with running totals instead of increments. A node's progress event
 * carries its totals since its run began (bytes, requests, URLs sent); the counter moves by the
 * difference from the last total seen for the same labels. A total below the last one is a new run
 * of the same node in this process (its counts start again at zero): all of it is added, so the
 * counter never goes down, as Prometheus counters must not.
 */
import type { Counter } from 'prom-client';

/** See the file comment. */
export class TotalsCounter<L extends string> {
  private readonly last = new Map<string, number>();

  constructor(private readonly counter: Counter<L>) {}

  /** The labels' total is now `total`. */
  set(labels: Readonly<Record<L, string>>, total: number): void {
    const key = JSON.stringify(labels);
    const before = this.last.get(key) ?? 0;
    this.last.set(key, total);
    // inc by 0 makes the series appear at 0 before anything is counted.
    this.counter.inc(labels as Partial<Record<L, string>>, total >= before ? total - before : total);
  }
}
