/**
 * The progress line of `shoal crawl` and `shoal node`: what a crawl shows while it runs, fitted to a
 * terminal's width or printed every few seconds to a file or pipe.
 */
import type { BudgetUse, CrawlProgress } from '../obs/events.js';
import type { LatencyPercentiles } from '../obs/metrics/recent-latencies.js';
import { fmt, megabytes } from './format.js';

/** What a progress line shows besides its event. */
export interface ProgressLineOptions {
  /** The rate shown, pages/s; default the event's own, over the time since the previous event (see {@link rateSince}). */
  readonly pagesPerSecond?: number;
  /** A terminal's width: the line is fitted to one row. */
  readonly columns?: number;
  /** Fetch-duration percentiles of the recent fetches (`CrawlMetrics.recentLatency`); null or absent: not shown. */
  readonly latency?: LatencyPercentiles | null;
}

/**
 * One progress line. With `columns` (a terminal's width) the line is fitted to one row: parts are
 * dropped from the end, most telling first kept, so that rewriting it in place never leaves wrapped
 * rows behind.
 */
export function progressLine(p: CrawlProgress, options: ProgressLineOptions = {}): string {
  const pagesPerSecond = options.pagesPerSecond ?? p.recentPagesPerSecond;
  const errors = Object.entries(p.errors)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([k, n]) => `${k} ${fmt(n ?? 0)}`);
  const x = p.exchange;
  const eta = p.stopReason === null ? etaOf(p) : null;
  const latency = options.latency ?? null;
  const parts = [
    `${fmt(p.elapsedMs / 1000)} s`,
    `pages ${fmt(p.pages)} (${fmt(pagesPerSecond)}/s)`,
    ...(eta === null ? [] : [`ETA ${duration(eta.ms)} (${eta.limit})`]),
    megabytes(p.bytes),
    `frontier ${fmt(p.frontier.queued)} (${p.frontier.parked > 0 ? `${fmt(p.frontier.parked)} on disk, ` : ''}${fmt(p.frontier.inFlight)} in flight)`,
    `hosts ${fmt(p.hosts)}`,
    ...(latency === null ? [] : [`fetch p50 ${milliseconds(latency.p50Ms)}, p95 ${milliseconds(latency.p95Ms)}`]),
    ...(p.unreachable === undefined ? [] : [unreachablePart(p.unreachable)]),
    ...(p.robotsWaiting === undefined ? [] : [robotsWaitingPart(p.robotsWaiting)]),
    ...(x === undefined
      ? []
      : [
          `exchange ${fmt(x.urlsSent)} URLs sent (${p.pages > 0 ? (x.urlsSent / p.pages).toFixed(2) : '0'}/page)` +
            (x.pagesSent > 0 ? `, ${fmt(x.pagesSent)} pages forwarded` : ''),
        ]),
    ...(p.collab === undefined
      ? []
      : [
          `overlap ${p.collab.overlap.toFixed(3)}, load max/mean ${p.collab.loadMaxOverMean?.toFixed(2) ?? '–'}` +
            (p.collab.topicLocality === null ? '' : `, topic locality ${p.collab.topicLocality.toFixed(2)}`) +
            (p.collab.geoCoverage === null ? '' : `, geo coverage ${(100 * p.collab.geoCoverage).toFixed(1)}%`) +
            (p.collab.geoFocus === null ? '' : `, geo focus ${(100 * p.collab.geoFocus).toFixed(1)}%`) +
            (p.collab.community === null
              ? ''
              : `, community P ${(100 * p.collab.community.precision).toFixed(1)}% R ${(100 * p.collab.community.recall).toFixed(1)}%`),
        ]),
    ...(errors.length === 0 ? [] : [errors.join(', ')]),
  ];
  return fitParts(parts, options.columns);
}

/**
 * Time left before a limit ends the run, at the rate it has been spent so far, and which limit:
 * the sooner of `--max-pages` and `limits.maxBytes`; null without a limit, or before anything is spent.
 */
export function etaOf(p: CrawlProgress): { readonly ms: number; readonly limit: 'max-pages' | 'max-bytes' } | null {
  const left = (u: BudgetUse | null | undefined): number | null =>
    u == null || u.perSecond <= 0 ? null : (1000 * Math.max(0, u.limit - u.used)) / u.perSecond;
  const pages = left(p.budget?.pages);
  const bytes = left(p.budget?.bytes);
  if (pages === null && bytes === null) return null;
  return bytes === null || (pages !== null && pages <= bytes)
    ? { ms: pages as number, limit: 'max-pages' }
    : { ms: bytes, limit: 'max-bytes' };
}

/** A time span for people, to the second below an hour: `45 s`, `3 min 05 s`, `2 h 07 min`. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  const min = Math.round(s / 60);
  return `${fmt(Math.floor(min / 60))} h ${String(min % 60).padStart(2, '0')} min`;
}

/** A fetch duration: `0.8 ms`, `12 ms`, `1.4 s`. */
export function milliseconds(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

const SEPARATOR = ' · ';

/** `2 hosts not answering (a.test:8080: connection refused, ...), 1 given up`. */
/** `2 hosts wait for robots.txt (a.example: HTTP 503, ...), next try in 14 min 50 s`. */
function robotsWaitingPart(w: NonNullable<CrawlProgress['robotsWaiting']>): string {
  const verb = w.hosts === 1 ? 'waits' : 'wait';
  return `${hostCount(w.hosts)} ${verb} for robots.txt ${firstOf(w.first, w.hosts)}, next try in ${duration(w.nextTryInMs)}`;
}

function unreachablePart(u: NonNullable<CrawlProgress['unreachable']>): string {
  const n = u.failing + u.givenUp;
  return `${hostCount(n)} not answering ${firstOf(u.hosts, n)}` + (u.givenUp > 0 ? `, ${fmt(u.givenUp)} given up` : '');
}

/** `1 host`, `12 hosts`. */
function hostCount(n: number): string {
  return `${fmt(n)} host${n === 1 ? '' : 's'}`;
}

/** `(a, b, c, ...)`: the first few of `n`, and dots when there are more. */
function firstOf(first: readonly string[], n: number): string {
  return `(${first.join(', ')}${n > first.length ? ', ...' : ''})`;
}

/** `parts` joined, keeping as many leading parts as fit in `columns - 1` characters (all without a width). */
export function fitParts(parts: readonly string[], columns?: number): string {
  if (columns === undefined || columns <= 0) return parts.join(SEPARATOR);
  const room = Math.max(1, columns - 1);
  let line = '';
  for (const part of parts) {
    const next = line === '' ? part : `${line}${SEPARATOR}${part}`;
    if (next.length > room) break;
    line = next;
  }
  return line === '' ? (parts[0] ?? '').slice(0, room) : line;
}

/** Pages per second from the line printed last (`since`, null before the first) to `p`. */
export function rateSince(since: { readonly elapsedMs: number; readonly pages: number } | null, p: CrawlProgress): number {
  const from = since ?? { elapsedMs: 0, pages: 0 };
  const seconds = (p.elapsedMs - from.elapsedMs) / 1000;
  return seconds > 0 ? (p.pages - from.pages) / seconds : p.recentPagesPerSecond;
}
