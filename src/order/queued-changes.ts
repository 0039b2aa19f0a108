/**
 * The changes `observe` returns, kept to the URLs the Contract lets it name (`policy.ts`,
 * "Re-prioritizing"): those the policy prioritized and has not seen fetched since. A
 * {@link ChangeBuffer} that also knows which URLs are queued, so that a policy states what changed
 * and the buffer keeps the rule, in one place for every policy.
 */
import { ChangeBuffer } from './change-buffer.js';
import { IdFlags } from './id-arrays.js';

/** A change buffer that accepts changes for queued URLs only; see the file comment. */
export class QueuedChanges extends ChangeBuffer {
  private readonly queued = new IdFlags();

  /** Notes that `id` was prioritized: it is queued until it is observed. */
  queue(id: number): void {
    this.queued.set(id, true);
  }

  /** Starts the batch of an `observe` of page `id`: empties the batch, and `id` is no longer queued. */
  begin(id: number): this {
    this.reset();
    this.queued.set(id, false);
    return this;
  }

  /** Whether `id` was prioritized and not observed since. */
  isQueued(id: number): boolean {
    return this.queued.has(id);
  }

  /** Records that `id` now has `priority`, when `id` is queued (otherwise nothing). */
  setIfQueued(id: number, priority: number): void {
    if (this.queued.has(id)) this.set(id, priority);
  }
}
