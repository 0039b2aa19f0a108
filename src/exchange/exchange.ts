/**
 * The exchange extension point: the asynchronous transport between the nodes of a collaborative
 * crawl (SPEC §4.5). Each node holds one endpoint. It sends URL batches, forwarded pages, link
 * summaries, SimHash batches and control messages to *partitions* (not to nodes: whoever owns a
 * partition receives what is sent to it), and receives what is sent to the partitions it owns.
 *
 * Two transports implement it: `memory/` (all nodes in one process) and `nats/` (NATS JetStream,
 * nodes anywhere). Both keep what a node sends in a durable *outbox* in its crawl directory
 * (`outbox.ts`) until the transport confirms it, so a send survives the sender's `kill -9` and a
 * broker that is down.
 *
 * ## Contract
 *
 * - **Never synchronous.** `send` queues and returns at once: it never waits for the receiver or the
 *   broker, whether they are slow, down or gone.
 * - **Durable sends.** Once `flush()` resolves, every message sent before the call reaches its
 *   partition even if the sending process dies at once: it is in the outbox on disk (fsynced), and a
 *   restarted endpoint on the same directory sends again whatever the transport had not confirmed.
 *   The node calls `flush()` in every checkpoint before its completions become final, so the URLs
 *   found on a page are never lost once the page counts as done.
 * - **At-least-once delivery.** Each message is delivered to the partition's owner at least once,
 *   and again after a crash or reconnection until it is acknowledged. The receiver calls
 *   {@link Delivery.ack} only once the message's effects are durable on its side (after its next
 *   checkpoint); receivers are idempotent (the URL-seen test absorbs repeated URLs). Messages sent to
 *   a partition whose owner is down wait (durably, with NATS) and are delivered when it comes back.
 * - **Order.** Messages from one sender to one partition arrive in the order sent, except that a
 *   redelivery may repeat earlier messages. Nothing is promised across senders.
 * - **Failure.** A message that cannot be decoded is counted (`stats().received.invalid`), logged by
 *   the transport and acknowledged, never delivered: one bad message does not stop a node. A broker
 *   that is unreachable is retried forever with back-off; `send` and `flush` keep working meanwhile
 *   (the outbox holds the messages).
 * - **Lifecycle.** `start` once, then `send` / `flush` any number of times, then `close` (idempotent:
 *   stops delivering, flushes the outbox, releases connections). Deliveries stop before `close`
 *   resolves; unacknowledged ones are delivered again on the next start.
 * - **Identity.** `spec` names the transport and its parameters.
 *
 * ## Sources
 *
 * SPEC §4.5; seed 000 §3 (exchange of URLs between X4's crawlers), seed 003 (URL forwarding between
 * geo-sensitive crawlers), Cho & Garcia-Molina's exchange modes for parallel crawlers.
 */
import type { ExchangeMessage, OutgoingMessage } from './messages.js';
import type { PartitionId } from '../partition/partitioner.js';

/** The identity of a transport. */
export interface ExchangeSpec {
  /** `memory` or `nats`. */
  readonly id: string;
  readonly params: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** One message handed to the owner of the partition it was sent to. */
export interface Delivery {
  /** The partition it was sent to (one the receiving endpoint owns). */
  readonly partition: PartitionId;
  readonly message: ExchangeMessage;
  /**
   * Tells the transport that the message's effects are durable at the receiver, so it need never be
   * delivered again. Idempotent; calling it after `close` does nothing (the message comes again).
   */
  ack(): void;
}

/** Counters of one endpoint since it started. */
export interface ExchangeStats {
  readonly sent: MessageCounts;
  readonly received: MessageCounts & {
    /** Messages that could not be decoded (acknowledged and dropped). */
    readonly invalid: number;
  };
  /** Messages sent but not yet confirmed by the transport (in the outbox). */
  readonly unconfirmed: number;
}

/** Counts of messages by kind, with the URLs, pages, link counts and fingerprints they carry and their encoded size. */
export interface MessageCounts {
  readonly messages: number;
  /** Encoded bytes of every message (what the transport carried). */
  readonly bytes: number;
  readonly urlBatches: number;
  readonly urls: number;
  readonly pages: number;
  /** Encoded bytes of the page messages alone. */
  readonly pageBytes: number;
  readonly linkSummaries: number;
  /** Link counts carried by the link summaries. */
  readonly linkCounts: number;
  /** Encoded bytes of the link summaries alone. */
  readonly linkSummaryBytes: number;
  /** SimHash batches (fingerprints of pages kept, for other nodes' near-duplicate indexes). */
  readonly simhashBatches: number;
  /** Fingerprints carried by the SimHash batches. */
  readonly simhashes: number;
  /** Encoded bytes of the SimHash batches alone. */
  readonly simhashBytes: number;
  readonly controls: number;
}

/** The exchange extension point; see the file comment for the Contract. */
export interface Exchange {
  readonly spec: ExchangeSpec;
  /**
   * Opens the outbox (sending again what it holds unconfirmed) and starts delivering the messages
   * of `partitions` to `deliver`, which must not throw (a node hands the message to its own queue).
   */
  start(partitions: readonly PartitionId[], deliver: (delivery: Delivery) => void): Promise<void>;
  /** Queues `message` for partition `to`; returns the sequence number it was given. Never waits. */
  send(to: PartitionId, message: OutgoingMessage): number;
  /** Resolves once every message sent before the call is durable in the outbox. */
  flush(): Promise<void>;
  /** Stops delivering, flushes, releases everything. Idempotent. */
  close(): Promise<void>;
  stats(): ExchangeStats;
}
