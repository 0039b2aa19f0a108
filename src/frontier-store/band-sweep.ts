/**
 * The sweep that moves parked URLs to the band of their new priority (`persistent-frontier.ts`,
 * Parking). A parked URL has no index cell, so a change for it cannot find it; the changes wait in
 * `parked-priorities.ts`, keyed by fingerprint, and the sweep finds the URLs: it reads the log on,
 * a slice per flush (as compaction does), round and round, and for each ADD record whose URL has a
 * change held asks the record's host to move the record's location to the new band. A record is a
 * parked URL's only if its host holds that location parked (an older copy of a compacted record, a
 * URL in a slot or done, holds none), so nothing else moves.
 *
 * Bound: a change reaches its parked URL within one pass, `logBytes / sweepBytesPerFlush` flushes
 * (about 22 for the 175 MB log of a million URLs, at 8 MiB per flush: 44 s at the default 2 s
 * checkpoint), unless another change took its cell first.
 */
import type { AddRecord, FrontierLog } from './frontier-log.js';

/** Where the sweep reads on: a segment number and an offset in it. */
export interface SweepAt {
  readonly segment: number;
  readonly offset: number;
}

/**
 * Reads up to `maxBytes` of the log from `at` (the first segment from `at.segment` on, wrapping to
 * the oldest once past the newest), calling `move` for each ADD record.
 * @returns where the next slice starts, and how many `move` calls answered true.
 */
export function sweepSlice(
  log: FrontierLog,
  at: SweepAt,
  maxBytes: number,
  move: (record: AddRecord, location: number) => boolean,
): { readonly at: SweepAt; readonly moved: number } {
  const segments = log.segmentNumbers;
  let idx = segments.findIndex((n) => n >= at.segment);
  let offset = idx >= 0 && segments[idx] === at.segment ? at.offset : 0;
  if (idx < 0) idx = 0;
  let budget = maxBytes;
  let moved = 0;
  while (budget > 0 && idx < segments.length) {
    const n = segments[idx] as number;
    const end = log.segmentEnd(n);
    if (offset < end) {
      const next = log.scanAdds(n, offset, budget, (record, location) => {
        if (move(record, location)) moved++;
      });
      budget -= Math.max(1, next - offset);
      offset = next;
    }
    if (offset >= end) {
      idx++;
      offset = 0;
    }
  }
  // Past the newest segment: the next slice starts again from the oldest.
  return { at: idx < segments.length ? { segment: segments[idx] as number, offset } : { segment: 0, offset: 0 }, moved };
}
