/**
 * The politeness options a crawl and a simulation share (SPEC §2 item 5), their defaults taken from
 * the frontier's own (`DEFAULT_POLITENESS` in src/frontier/frontier.ts), which is where they are
 * decided and explained. `delayFactor` is the k of the Mercator gap `max(minDelay, k × fetch time)`.
 */
import { z } from 'zod';
import { DEFAULT_POLITENESS } from '../frontier/frontier.js';
import { count, durationMs } from './units.js';

/** Longest Crawl-delay honoured by default, ms: a robots.txt asking for more is read as this. */
export const DEFAULT_MAX_CRAWL_DELAY_MS = 60_000;

/** The politeness fields of both schemas; `what` names what is in flight (`requests`, `fetches`). */
export function politenessFields(what: string) {
  const d = DEFAULT_POLITENESS;
  return {
    minDelayMs: durationMs()
      .default(d.minDelayMs)
      .describe('smallest gap between the end of one fetch and the next request to the same host (--min-delay-ms)'),
    delayFactor: z
      .number()
      .min(0)
      .max(1000)
      .meta({ unit: 'factor' })
      .default(d.delayFactor)
      .describe(
        'the gap to a host is at least delayFactor × the duration of its last fetch, up to maxDelayMs (Mercator’s k; favours fast servers)',
      ),
    maxDelayMs: durationMs()
      .default(d.maxDelayMs)
      .describe(
        'cap on the delayFactor × fetch-duration part of the gap (Heritrix’s max delay), so that one slow response does not idle its host for ' +
          'delayFactor times the fetch limit; Crawl-delay, Retry-After and back-off keep their own caps; below minDelayMs the gap is minDelayMs',
      ),
    maxConnectionsPerHost: count('connections', 1)
      .max(64)
      .default(d.maxConnectionsPerHost)
      .describe(`${what} in flight to one host at most`),
    maxConnectionsPerIp: count('connections', 1)
      .max(1024)
      .default(d.maxConnectionsPerIp)
      .describe(`${what} in flight to one IP address at most, over all hosts on it`),
    maxCrawlDelayMs: durationMs().default(DEFAULT_MAX_CRAWL_DELAY_MS).describe('robots.txt Crawl-delay values above this are read as this'),
  };
}

/** X4's per-host activity cap, off by default; `src/frontier/activity-cap.ts` says how it decides. */
export function activityCapFields() {
  return {
    maxHostShare: z
      .number()
      .gt(0)
      .max(1)
      .meta({ unit: 'share' })
      .nullable()
      .default(null)
      .describe(
        'X4’s per-host activity cap: a host that took more than this share of the last hostShareWindowMs of fetches is passed over while a ' +
          'host under its share may be fetched (never idling a slot: with no such host it goes anyway); X4 used 0.002; null = off',
      ),
    hostShareWindowMs: durationMs()
      .refine((ms) => ms > 0, 'must be > 0')
      .default(60 * 60 * 1000)
      .describe('the sliding window of maxHostShare (it slides in steps of a sixtieth of its length); X4 used an hour'),
  };
}
