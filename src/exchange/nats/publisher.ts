/**
 * The publishing loop of a NATS endpoint: takes outbox entries in sequence order and publishes them
 * to JetStream, keeping at most `window` publishes outstanding, and reports each one the server
 * stored (its PubAck) so the outbox can forget it.
 *
 * Failure policy — never drop, never throw, never spin:
 * - A publish that fails or times out (broker down, restarting, full, a lost ack) is kept. The loop
 *   stops issuing new publishes, waits for the outstanding ones to settle, puts every failed entry
 *   back at the head of the queue in sequence order and backs off (100 ms doubling to 5 s, reset by
 *   a success, cut short by a reconnection), then carries on. Each entry carries the message id
 *   `<nodeId>:<seq>`, so republishing one the server did store (only its ack was lost) is dropped by
 *   the stream's duplicate window.
 * - While the connection is down nothing new is issued (the client would only buffer it).
 * - The one permanent failure is a message larger than the server's `max_payload`: no retry can
 *   succeed, so it is logged (`nats-message-too-large`) and handed to `onTooLarge`.
 *
 * Order: entries are issued in sequence order on one connection, so the stream stores them in that
 * order. After a failure, an entry whose publish was lost can be stored after later ones that went
 * through; the exchange contract allows receivers to see such repeats, and no entry is lost.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { InvalidArgumentError } from '@nats-io/transport-node';
import type { OutboxEntry } from '../outbox.js';
import { messageId, partitionSubject } from './names.js';

/** Dependencies and settings of a {@link Publisher}. */
export interface PublisherOptions {
  readonly js: JetStreamClient;
  readonly crawlId: string;
  readonly nodeId: string;
  /** Most publishes awaiting their ack at once; default 256. */
  readonly window?: number;
  /** Ms before a publish without ack counts as failed; default 5 000. */
  readonly publishTimeoutMs?: number;
  /** First back-off after a failure, ms; default 100 (doubles up to `maxBackoffMs`). */
  readonly minBackoffMs?: number;
  /** Longest back-off, ms; default 5 000. */
  readonly maxBackoffMs?: number;
  /** The server stored entry `seq` (or had it already). */
  readonly onStored: (seq: number) => void;
  /** Entry `seq` can never be published (larger than the server's max_payload). */
  readonly onTooLarge: (entry: OutboxEntry) => void;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
}

/** Publishes queued outbox entries in order with a bounded window; see the file comment. */
export class Publisher {
  private readonly options: PublisherOptions;
  private readonly window: number;
  private queue: OutboxEntry[] = [];
  private head = 0;
  private failed: OutboxEntry[] = [];
  private inFlight = 0;
  private backoffMs: number;
  private isConnected = true;
  private isStopped = false;
  private wake: (() => void) | null = null;
  private idleWaiters: (() => void)[] = [];
  private loop: Promise<void> | null = null;

  constructor(options: PublisherOptions) {
    this.options = options;
    this.window = options.window ?? 256;
    this.backoffMs = options.minBackoffMs ?? 100;
  }

  /** Entries queued, failed or awaiting their ack. */
  get pending(): number {
    return this.queue.length - this.head + this.failed.length + this.inFlight;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Queues `entry` (entries must be enqueued in sequence order). */
  enqueue(entry: OutboxEntry): void {
    this.queue.push(entry);
    this.poke();
  }

  /** Tells the loop whether the connection is up; a reconnection ends a back-off early. */
  setConnected(isConnected: boolean): void {
    this.isConnected = isConnected;
    this.poke();
  }

  /** Resolves once nothing is queued or outstanding, or after `timeoutMs`; true if idle. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const idle = new Promise<true>((resolve) => this.idleWaiters.push(() => resolve(true)));
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops issuing publishes; acks that arrive later are still reported. */
  async stop(): Promise<void> {
    this.isStopped = true;
    this.poke();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.isStopped) {
      if (this.failed.length > 0) {
        if (this.inFlight === 0) await this.retryFailed();
        else await this.nextEvent();
        continue;
      }
      while (this.isConnected && this.inFlight < this.window && this.head < this.queue.length) {
        const entry = this.queue[this.head++] as OutboxEntry;
        this.publish(entry);
      }
      this.compact();
      await this.nextEvent();
    }
  }

  private publish(entry: OutboxEntry): void {
    const { js, crawlId, nodeId } = this.options;
    this.inFlight++;
    js.publish(partitionSubject(crawlId, entry.to), entry.bytes, {
      msgID: messageId(nodeId, entry.seq),
      timeout: this.options.publishTimeoutMs ?? 5_000,
    })
      .then(
        () => {
          this.backoffMs = this.options.minBackoffMs ?? 100;
          this.options.onStored(entry.seq);
        },
        (err: unknown) => {
          if (err instanceof InvalidArgumentError && String(err.message).includes('max_payload')) {
            this.options.log('nats-message-too-large', { seq: entry.seq, to: entry.to, bytes: entry.bytes.length, error: String(err) });
            this.options.onTooLarge(entry);
          } else {
            this.failed.push(entry);
            if (this.failed.length === 1) this.options.log('nats-publish-failed', { seq: entry.seq, to: entry.to, error: String(err) });
          }
        },
      )
      .finally(() => {
        this.inFlight--;
        this.poke();
      });
  }

  /** Puts failed entries back at the head in sequence order, then backs off. */
  private async retryFailed(): Promise<void> {
    const failed = this.failed.sort((a, b) => a.seq - b.seq);
    this.failed = [];
    this.queue = [...failed, ...this.queue.slice(this.head)];
    this.head = 0;
    const maxBackoffMs = this.options.maxBackoffMs ?? 5_000;
    const waitMs = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, maxBackoffMs);
    this.options.log('nats-publish-retry', { entries: failed.length, backoffMs: waitMs });
    const wasConnected = this.isConnected;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      // Woken early by stop, or by a reconnection (no point waiting once the broker is back).
      this.wake = () => {
        if (this.isStopped || (!wasConnected && this.isConnected)) resolve();
      };
    });
    clearTimeout(timer);
    this.wake = null;
  }

  /** Waits for the next state change: an enqueue, a settled publish, a connection change, stop. */
  private nextEvent(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  private poke(): void {
    if (this.pending === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    const wake = this.wake;
    if (wake !== null) wake();
  }

  /** Drops the consumed prefix of the queue once it is large (amortized O(1) dequeue). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
