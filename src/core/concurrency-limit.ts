/**
 * At most `max` tasks running at once; the others wait their turn in the order they came. For work
 * whose flood hurts: a name server that drops queries when a page links to thousands of new hosts,
 * libuv's four worker threads that the OS resolver would hold (`src/dns/`).
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: { readonly start: () => void; readonly reject: (err: Error) => void }[] = [];
  private head = 0;

  /** @throws RangeError unless `max` is an integer >= 1. */
  constructor(private readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) throw new RangeError(`concurrency limit must be an integer >= 1, got ${max}`);
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a turn. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Runs `task` when fewer than `max` run; settles as it does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        this.running++;
        let done: Promise<T>;
        try {
          done = task();
        } catch (err) {
          done = Promise.reject(err as Error);
        }
        done.then(resolve, reject).finally(() => {
          this.running--;
          this.next();
        });
      };
      if (this.running < this.max) start();
      else this.waiting.push({ start, reject });
    });
  }

  /** Rejects every task still waiting with `err` (those running finish as they will). */
  cancelWaiting(err: Error): void {
    const waiting = this.waiting.splice(this.head);
    this.waiting.length = 0;
    this.head = 0;
    for (const w of waiting) w.reject(err);
  }

  private next(): void {
    if (this.running >= this.max || this.head === this.waiting.length) return;
    const w = this.waiting[this.head++] as (typeof this.waiting)[number];
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    w.start();
  }
}
