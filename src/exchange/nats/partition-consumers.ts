/**
 * The receiving side of a NATS endpoint: one pull consumer per owned partition (see `stream.ts` for
 * why per partition), each message decoded and handed to the node as a {@link Delivery}.
 *
 * Acknowledgement is the node's decision ({@link Delivery.ack}, after its checkpoint); until then the
 * message counts against the consumer's `max_ack_pending`, and after `ack_wait` without an ack the
 * server delivers it again. Deliveries not yet acknowledged are tracked so that a clean `stop` can
 * *nak* them: the server then redelivers them at once to whoever consumes the partition next,
 * instead of after `ack_wait`. A crash (`abandon`) leaves them to `ack_wait`.
 *
 * nats-server 2.9 quirk: a pull request the client abandoned stays registered on the server until
 * it expires or the server notices it has no subscriber; a nak arriving meanwhile is mis-handled
 * (the first nak'ed message is only redelivered after `ack_wait`, another is delivered twice). A
 * consumer-info request makes the server drop such requests, so `stop` asks for one per partition
 * between closing the pulls and nak'ing (test/integration/exchange/nats-outage.test.ts).
 *
 * A message that does not decode is counted, logged (`nats-message-invalid`), acknowledged and
 * dropped: redelivering it would fail the same way forever.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Delivery } from '../exchange.js';
import { decodeMessage } from '../codec.js';
import type { PartitionId } from '../../partition/partitioner.js';
import type { MessageCounter } from '../message-counter.js';
import { consumerName, streamName } from './names.js';

/** Dependencies of {@link PartitionConsumers}. */
export interface PartitionConsumersOptions {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly crawlId: string;
  readonly deliver: (delivery: Delivery) => void;
  /** Counts what is delivered (redeliveries included). */
  readonly received: MessageCounter;
  /** Called for each message that does not decode. */
  readonly onInvalid: () => void;
  /** Messages pulled per request; default 256. */
  readonly batch?: number;
  readonly log: (event: string, fields: Record<string, unknown>) => void;
}

/** The consumers of the partitions one endpoint owns. */
export class PartitionConsumers {
  private readonly options: PartitionConsumersOptions;
  private readonly running: { readonly partition: PartitionId; readonly messages: ConsumerMessages }[] = [];
  private readonly unacked = new Set<JsMsg>();
  private readonly released = new Set<PartitionId>();
  private isStopped = false;

  constructor(options: PartitionConsumersOptions) {
    this.options = options;
  }

  /** Deliveries handed out and not yet acknowledged. */
  get unackedCount(): number {
    return this.unacked.size;
  }

  /** Starts consuming `partition` (its durable consumer must exist). */
  async consume(partition: PartitionId): Promise<void> {
    const { js, crawlId, log } = this.options;
    const consumer = await js.consumers.get(streamName(crawlId), consumerName(partition));
    const messages = await consumer.consume({
      max_messages: this.options.batch ?? 256,
      callback: (msg) => this.onMessage(partition, msg),
    });
    if (this.isStopped) {
      // Stopped while this consumer was being set up.
      await messages.close();
      return;
    }
    this.running.push({ partition, messages });
    void (async () => {
      for await (const s of messages.status()) {
        if (
          s.type === 'heartbeats_missed' ||
          s.type === 'consumer_not_found' ||
          s.type === 'stream_not_found' ||
          s.type === 'consumer_deleted' ||
          s.type === 'exceeded_limits'
        ) {
          log('nats-consumer-status', { partition, status: s.type });
        }
      }
    })().catch(() => {});
  }

  /** Stops pulling and naks every delivery not yet acknowledged (redelivered at once to the next owner). */
  async stop(): Promise<void> {
    const partitions = this.running.map((r) => r.partition);
    await this.halt();
    // See the file comment: clears the abandoned pull requests before the naks reach the server.
    for (const p of partitions) {
      await this.options.jsm.consumers.info(streamName(this.options.crawlId), consumerName(p)).catch(() => undefined);
    }
    for (const msg of this.unacked) {
      try {
        msg.nak();
      } catch {
        // The connection is gone: the server redelivers after ack_wait instead.
      }
    }
    this.unacked.clear();
  }

  /**
   * Stops pulling `partition` only (another node took it over). Its deliveries still unacknowledged
   * may be acknowledged by the node; those it never acknowledges go to the new owner after `ack_wait`.
   */
  async release(partition: PartitionId): Promise<void> {
    this.released.add(partition);
    const index = this.running.findIndex((r) => r.partition === partition);
    if (index < 0) return;
    const [run] = this.running.splice(index, 1);
    await run?.messages.close().catch(() => undefined);
  }

  /** Stops pulling and forgets unacknowledged deliveries (they come back after ack_wait, as after a crash). */
  async abandon(): Promise<void> {
    await this.halt();
    this.unacked.clear();
  }

  private async halt(): Promise<void> {
    this.isStopped = true;
    await Promise.all(this.running.map((r) => r.messages.close().catch(() => undefined)));
    this.running.length = 0;
  }

  private onMessage(partition: PartitionId, msg: JsMsg): void {
    if (this.isStopped || this.released.has(partition)) return;
    let message;
    try {
      message = decodeMessage(msg.data);
    } catch (err) {
      this.options.onInvalid();
      this.options.log('nats-message-invalid', { partition, streamSeq: msg.seq, bytes: msg.data.length, error: String(err) });
      msg.ack();
      return;
    }
    this.options.received.add(message, msg.data.length);
    this.unacked.add(msg);
    this.options.deliver({
      partition,
      message,
      ack: () => {
        // After stop the message was nak'ed or abandoned: it comes again, as the contract says.
        if (!this.unacked.delete(msg)) return;
        try {
          msg.ack();
        } catch {
          // Connection closed between the check and the ack: the server redelivers it.
        }
      },
    });
  }
}
