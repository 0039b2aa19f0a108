/**
 * Where idle fetch slots wait: until the frontier may have something for them, that is, until the
 * time the frontier named (`untilMs`), or until something changed (URLs added, a lease completed),
 * whichever comes first. One shared timer for the earliest deadline, and no polling.
 *
 * A change wakes one waiter, the one waiting longest, not all of them: with 64 slots and most of
 * them idle (hosts in their politeness delay), waking all on every completion had each look at the
 * frontier in vain, 64 times per page. The one woken passes the turn on when it finds work (the
 * fetch loop calls {@link Waker.notify} on taking a lease), so a change that makes many URLs ready
 * wakes as many slots, one after the other; the slot that finds nothing re-arms the timer for the
 * frontier's next deadline. Stopping the crawl wakes everyone ({@link Waker.notifyAll}).
 */
import type { Clock } from '../../core/clock.js';

export class Waker {
  /** Resolvers of the waiting slots, longest waiting first. */
  private readonly waiters: (() => void)[] = [];
  private timerAtMs = Number.POSITIVE_INFINITY;
  private timer: AbortController | null = null;

  constructor(private readonly clock: Clock) {}

  /** Slots waiting now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Wakes the longest waiting waiter (it looks at the frontier again); nothing when none waits. */
  notify(): void {
    this.waiters.shift()?.();
  }

  /** Wakes every waiter. */
  notifyAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves at `untilMs` (on the clock; Infinity: never by time) or when a {@link notify} picks it. */
  wait(untilMs: number): Promise<void> {
    if (untilMs < this.timerAtMs) this.arm(untilMs);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
    });
  }

  /** Cancels the timer (at the end of a run). */
  close(): void {
    this.timer?.abort();
    this.timer = null;
    this.timerAtMs = Number.POSITIVE_INFINITY;
  }

  private arm(atMs: number): void {
    this.timer?.abort();
    const controller = new AbortController();
    this.timer = controller;
    this.timerAtMs = atMs;
    void this.clock.sleepUntil(atMs, controller.signal).then(() => {
      if (controller.signal.aborted) return;
      this.timer = null;
      this.timerAtMs = Number.POSITIVE_INFINITY;
      this.notify();
    });
  }
}
