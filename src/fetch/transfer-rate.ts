/**
 * The lowest transfer rate of a response body: at least `minBytesPerSecond` × `windowMs` / 1000
 * bytes in every window of `windowMs`, the windows following one another from the moment the
 * response head is complete. A body that falls short in one window is cut (`too-slow`). This is
 * curl's low-speed limit (`--speed-limit` / `--speed-time`, `CURLOPT_LOW_SPEED_LIMIT` and
 * `CURLOPT_LOW_SPEED_TIME`) with fixed windows instead of curl's running average.
 *
 * Why: every other time limit of the fetcher lets a trickle through. The body limit counts the
 * silence between two chunks, so a server that drips one byte a second never trips it, and the
 * whole-call limit (120 s) then holds the fetch slot and, through k × fetch time, its host for
 * minutes. The head is left to the first-byte limit, which bounds it whole (undici hands the head
 * over only once it is complete, so its bytes cannot be counted as they come).
 *
 * Pure: time and byte counts come in as numbers. The fetcher owns one timer per call, set to the
 * end of the current window (or to the whole-call deadline when that comes first), and asks
 * {@link RateWindow.close} there: no timer per chunk.
 */

/**
 * Default lowest rate, bytes per second: 1,000. An HTML page weighs some 30 KB: at this rate it
 * takes half a minute, and a working connection, even a congested one, moves about a hundred
 * times more. Below it a server is not serving pages to a crawler but holding a fetch slot.
 */
export const DEFAULT_MIN_BYTES_PER_SECOND = 1000;

/**
 * Default window, ms: 10,000. Long enough for TCP to recover a lost segment (retransmission
 * timeouts of 1, 2 and 4 s add up to 7 s) and for a server that flushes its page in bursts;
 * short against the whole-call limit (120 s), so a body that drips costs one window, not the
 * whole limit. A body that pauses longer than a window before it has sent a window's worth is cut
 * too: the silence limit (`bodyTimeoutMs`, 30 s) no longer has the last word on such pauses.
 */
export const DEFAULT_MIN_RATE_WINDOW_MS = 10_000;

/** A window that fell short: what came in it and how long it lasted. */
export interface ShortWindow {
  /** Bytes received in the window. */
  readonly windowBytes: number;
  /** How long the window lasted, as measured, ms: the window, give or take its timer's lateness. */
  readonly windowMs: number;
}

/** The rate windows of one body; see the file comment. */
export class RateWindow {
  /** The bytes every window needs. */
  readonly minWindowBytes: number;
  private startMs: number;
  private startBytes: number;

  /**
   * @param minBytesPerSecond the lowest rate, > 0.
   * @param windowMs the window, ms, > 0.
   * @param nowMs when the first window starts (the head is complete).
   * @param bytes body bytes received so far (the count {@link close} is given later).
   */
  constructor(
    readonly minBytesPerSecond: number,
    readonly windowMs: number,
    nowMs: number,
    bytes = 0,
  ) {
    if (!(Number.isFinite(minBytesPerSecond) && minBytesPerSecond > 0))
      throw new RangeError(`minBytesPerSecond must be a finite number > 0, got ${minBytesPerSecond}`);
    if (!(Number.isFinite(windowMs) && windowMs > 0)) throw new RangeError(`windowMs must be a finite number > 0, got ${windowMs}`);
    this.minWindowBytes = (minBytesPerSecond * windowMs) / 1000;
    this.startMs = nowMs;
    this.startBytes = bytes;
  }

  /**
   * Ends the current window at `nowMs`, with `bytes` received since the body began: null when the
   * window had its bytes (the next window starts now), or the window that fell short.
   */
  close(nowMs: number, bytes: number): ShortWindow | null {
    const windowBytes = bytes - this.startBytes;
    const windowMs = nowMs - this.startMs;
    if (windowBytes < this.minWindowBytes) return { windowBytes, windowMs };
    this.startMs = nowMs;
    this.startBytes = bytes;
    return null;
  }
}
