/**
 * The progress line of `shoal crawl` and `shoal node`: what a crawl shows while it runs, fitted to a
 * terminal's width or printed every few seconds to a file or pipe.
 */
import type { CrawlProgress } from '../obs/events.js';
import { fmt, megabytes } from './format.js';

/**
 * One progress line. `pagesPerSecond` is the rate shown; by default the event's own, which covers
 * the time since the previous event (a line printed every few seconds shows its own span instead:
 * {@link rateSince}). With `columns` (a terminal's width) the line is fitted to one row: parts are
 * dropped from the end, most telling first kept, so that rewriting it in place never leaves wrapped
 * rows behind.
 */
export function progressLine(p: CrawlProgress, pagesPerSecond = p.recentPagesPerSecond, columns?: number): string {
  const errors = Object.entries(p.errors)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([k, n]) => `${k} ${fmt(n ?? 0)}`);
  const x = p.exchange;
  const parts = [
    `${fmt(p.elapsedMs / 1000)} s`,
    `pages ${fmt(p.pages)} (${fmt(pagesPerSecond)}/s)`,
    megabytes(p.bytes),
    `frontier ${fmt(p.frontier.queued)} (${p.frontier.parked > 0 ? `${fmt(p.frontier.parked)} on disk, ` : ''}${fmt(p.frontier.inFlight)} in flight)`,
    `hosts ${fmt(p.hosts)}`,
    ...(p.unreachable === undefined ? [] : [unreachablePart(p.unreachable)]),
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
  return fitParts(parts, columns);
}

const SEPARATOR = ' · ';

/** `2 hosts not answering (a.test:8080: connection refused, ...), 1 given up`. */
function unreachablePart(u: NonNullable<CrawlProgress['unreachable']>): string {
  const n = u.failing + u.givenUp;
  return (
    `${fmt(n)} host${n === 1 ? '' : 's'} not answering (${u.hosts.join(', ')}${n > u.hosts.length ? ', ...' : ''})` +
    (u.givenUp > 0 ? `, ${fmt(u.givenUp)} given up` : '')
  );
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
