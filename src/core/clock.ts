/**
 * Time for the node: a monotonic clock for politeness (the frontier wants non-decreasing
 * milliseconds), the wall clock for WARC dates and log lines, and a cancellable wait. Injected, so
 * that tests of politeness and back-off run on a {@link ManualClock} and assert exact times.
 */

/** The node's clock. */
export interface Clock {
  /** Monotonic milliseconds (never goes back); only differences mean something. */
  nowMs(): number;
  /** Wall-clock milliseconds since the epoch (WARC-Date, log lines, the crawl log). */
  wallMs(): number;
  /**
   * Resolves once `nowMs()` has reached `atMs` (at once if it already has), or as soon as `signal`
   * aborts. Never rejects. One timer, no polling.
   */
  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void>;
}

/** Node's timers take at most a signed 32-bit delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock: `performance.now()`, `Date.now()` and `setTimeout`. */
export class SystemClock implements Clock {
  nowMs(): number {
    return performance.now();
  }

  wallMs(): number {
    return Date.now();
  }

  async sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    // A timer may fire a little early by performance.now() (libuv measures from the start of the
    // loop iteration that armed it): wait again for the rest rather than return early.
    while (signal?.aborted !== true) {
      const ms = atMs - this.nowMs();
      if (!(ms > 0)) return;
      await oneTimer(Math.min(Math.ceil(ms), MAX_TIMER_MS), signal);
    }
  }
}

function oneTimer(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface Sleeper {
  readonly atMs: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * A clock that moves only when told to (tests, the simulator). `advanceTo`/`advanceBy` wake every
 * sleeper whose time has come, earliest first, and let the woken code run before going on.
 */
export class ManualClock implements Clock {
  private now: number;
  private seq = 0;
  private readonly sleepers: Sleeper[] = [];

  constructor(
    startMs = 0,
    private readonly epochMs = Date.UTC(2024, 0, 1),
  ) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  wallMs(): number {
    return this.epochMs + this.now;
  }

  /** Sleepers waiting (for tests that advance to the next timer). */
  get pending(): number {
    return this.sleepers.length;
  }

  /** The earliest time a sleeper waits for, or null. */
  nextTimerMs(): number | null {
    return this.sleepers.length === 0 ? null : Math.min(...this.sleepers.map((s) => s.atMs));
  }

  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    if (atMs <= this.now || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        atMs,
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = this.sleepers.indexOf(sleeper);
        if (i >= 0) this.sleepers.splice(i, 1);
        sleeper.resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  /** Moves time to `atMs`, waking sleepers in time order; each wake is followed by a turn of the event loop. */
  async advanceTo(atMs: number): Promise<void> {
    for (;;) {
      const due = this.sleepers.filter((s) => s.atMs <= atMs).sort((a, b) => a.atMs - b.atMs || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.sleepers.splice(this.sleepers.indexOf(due), 1);
      this.now = Math.max(this.now, due.atMs);
      due.resolve();
      await settle();
    }
    this.now = Math.max(this.now, atMs);
    await settle();
  }

  /** Moves time forward by `ms`. */
  advanceBy(ms: number): Promise<void> {
    return this.advanceTo(this.now + ms);
  }
}

/** Lets pending promise callbacks and immediate callbacks run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
