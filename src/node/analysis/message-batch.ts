/**
 * Messages between the crawl thread and an analysis worker, gathered and posted together: every
 * message wakes the other thread, and on two busy cores that switch is a real share of a page's
 * cost (page-analyzer.ts). Both sides use it: the crawl thread posts the tasks of one turn of its
 * event loop, the worker posts its answers at the end of its turn or once the oldest has waited
 * `maxWaitMs`.
 */
export class MessageBatch<T> {
  private items: T[] = [];
  private moved: ArrayBuffer[] = [];
  private oldestAtMs = 0;

  /**
   * @param post sends one batch, with the buffers it moves (transferred, not copied).
   * @param maxWaitMs a batch goes as soon as its oldest item is this old when another is added;
   *   Infinity: only at the end of the turn.
   */
  constructor(
    private readonly post: (items: T[], moved: ArrayBuffer[]) => void,
    private readonly maxWaitMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Adds an item (and the buffer it moves); the batch goes at the end of this turn of the event loop at the latest. */
  push(item: T, buffer?: ArrayBuffer): void {
    if (this.items.length === 0) {
      if (this.maxWaitMs !== Number.POSITIVE_INFINITY) this.oldestAtMs = performance.now();
      setImmediate(() => this.flush());
    }
    this.items.push(item);
    if (buffer !== undefined) this.moved.push(buffer);
    if (this.maxWaitMs !== Number.POSITIVE_INFINITY && performance.now() - this.oldestAtMs >= this.maxWaitMs) this.flush();
  }

  /** Posts what is gathered, if anything. */
  flush(): void {
    if (this.items.length === 0) return;
    const items = this.items;
    const moved = this.moved;
    this.items = [];
    this.moved = [];
    this.post(items, moved);
  }

  /** Drops what is gathered (its receiver is gone). */
  clear(): void {
    this.items = [];
    this.moved = [];
  }
}
