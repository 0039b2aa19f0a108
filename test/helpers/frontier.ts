/** Shared by the frontier tests: entries, leases and waits, with a clear failure when the frontier answers otherwise. */
import assert from 'node:assert/strict';
import type { Frontier, FrontierEntry, Lease, NextResult } from '../../src/frontier/frontier.js';

/** An entry of `url` on its own host, depth 0, priority 0 unless `extra` says otherwise. */
export function entry(url: string, extra: Partial<FrontierEntry> = {}): FrontierEntry {
  return { url, host: new URL(url).host, depth: 0, priority: 0, ...extra };
}

/** The lease `next(nowMs)` must give. */
export function take(frontier: Frontier, nowMs: number): Lease {
  const result = frontier.next(nowMs);
  if (result.kind !== 'url') assert.fail(`expected a lease at ${nowMs}, got ${JSON.stringify(result)}`);
  return result.lease;
}

/** The time a `wait` answer names. */
export function waitUntil(result: NextResult): number {
  if (result.kind !== 'wait') assert.fail(`expected wait, got ${JSON.stringify(result)}`);
  return result.untilMs;
}
