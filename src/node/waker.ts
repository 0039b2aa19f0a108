/**
 * Where idle fetch slots wait: until the frontier may have something for them, that is, until the
 * time the frontier named (`untilMs`), or until something changed (URLs added, a lease completed, the
 * crawl stopping), whichever comes first. One shared timer for the earliest deadline, one shared
 * promise for "something changed": no polling, and no timer per slot.
 */
import type { Clock } from './clock.js';

export class Waker {
  private pulse: Promise<void>;
  private wake: () => void = () => {};
  private timerAtMs = Number.POSITIVE_INFINITY;
  private timer: AbortController | null = null;

  constructor(private readonly clock: Clock) {
    this.pulse = this.nextPulse();
  }

  /** Wakes every waiter (they look at the frontier again). */
  notify(): void {
    const wake = this.wake;
    this.pulse = this.nextPulse();
    wake();
  }

  /** Resolves at `untilMs` (on the clock; Infinity: never by time) or at the next {@link notify}. */
  wait(untilMs: number): Promise<void> {
    const pulse = this.pulse;
    if (untilMs < this.timerAtMs) this.arm(untilMs);
    return pulse;
  }

  /** Cancels the timer (at the end of a run). */
  close(): void {
    this.timer?.abort();
    this.timer = null;
    this.timerAtMs = Number.POSITIVE_INFINITY;
  }

  private nextPulse(): Promise<void> {
    return new Promise((resolve) => { this.wake = resolve; });
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
