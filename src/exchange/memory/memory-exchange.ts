/**
 * The embedded exchange (SPEC §4.5): the nodes of one process trade messages through a shared
 * {@link MemoryExchangeHub}, each through its own `MemoryExchange` endpoint.
 *
 * `send` numbers the message from the endpoint's outbox, fills in `from` (the endpoint's node id)
 * and `seq`, encodes it for the outbox (the encoded size is what the stats count) and hands the
 * message object itself to the hub: nothing is decoded on the way, and the receiver gets the very
 * object that was sent (immutable by its type; its byte arrays are shared, not copied).
 *
 * The outbox is the durable copy: `flush()` syncs it, the receiver's `ack()` confirms the entry in
 * the sender's outbox (through the hub), and a restarted endpoint on the same outbox directory sends
 * again, at `start`, whatever was not confirmed — which is how messages survive the process.
 *
 * `close()` stops deliveries at once (before its promise resolves), releases the endpoint's
 * partitions and node id, then syncs and closes the outbox. Messages the hub holds for the endpoint's
 * partitions — not yet delivered, or delivered and not acknowledged — stay in the hub, in order, for
 * the next endpoint that starts with those partitions in this process.
 */
import type { Delivery, Exchange, ExchangeSpec, ExchangeStats } from '../exchange.js';
import { MessageCounter } from '../message-counter.js';
import type { ExchangeMessage, OutgoingMessage } from '../messages.js';
import type { PartitionId } from '../../partition/partitioner.js';
import { ShoalError } from '../../core/errors.js';
import { decodeMessage, encodeMessage } from '../codec.js';
import { Outbox } from '../outbox.js';
import type { HubConnection, MemoryExchangeHub } from './memory-exchange-hub.js';

export { MemoryExchangeHub } from './memory-exchange-hub.js';

/** Options of {@link MemoryExchange}. */
export interface MemoryExchangeOptions {
  /** The process's hub, shared by every endpoint. */
  readonly hub: MemoryExchangeHub;
  /** This node's id: the `from` of what it sends. */
  readonly nodeId: string;
  /** The node's outbox directory (in its crawl directory). */
  readonly outboxDir: string;
  /** Structured log of lifecycle events (`exchange-started`, `exchange-closed`). Default: none. */
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The in-process transport; see the file comment and the Exchange contract. */
export class MemoryExchange implements Exchange {
  readonly spec: ExchangeSpec = { id: 'memory', params: {} };
  private readonly outbox: Outbox;
  private readonly sent = new MessageCounter();
  private readonly received = new MessageCounter();
  private connection: HubConnection | null = null;
  private state: 'new' | 'starting' | 'started' | 'closed' = 'new';
  private starting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: MemoryExchangeOptions) {
    if (options.nodeId === '') throw new RangeError('MemoryExchange: nodeId must not be empty');
    this.outbox = new Outbox({ dir: options.outboxDir });
  }

  /**
   * Claims `partitions` on the hub (throws if another endpoint owns one of them, or has this node
   * id), opens the outbox and sends again what it holds unconfirmed, then starts delivering.
   * `deliver` is called from a `setImmediate` callback, never from within `send`.
   */
  async start(partitions: readonly PartitionId[], deliver: (delivery: Delivery) => void): Promise<void> {
    if (this.state !== 'new') throw new Error(`MemoryExchange.start(): node ${this.options.nodeId} can start only once`);
    for (const p of partitions) checkPartition(p);
    if (new Set(partitions).size !== partitions.length)
      throw new RangeError(`MemoryExchange.start(): partitions repeat: ${partitions.join(', ')}`);
    const connection = this.options.hub.connect({
      nodeId: this.options.nodeId,
      partitions: [...partitions],
      receive: (held, ack) => {
        this.received.add(held.message, held.encodedBytes);
        deliver({ partition: held.partition, message: held.message, ack });
      },
      confirm: (seq) => this.outbox.confirm(seq),
    });
    this.connection = connection;
    this.state = 'starting';
    this.starting = this.resend(connection).then(
      () => {
        if (this.closing !== null) return;
        this.state = 'started';
        connection.startDelivering();
        this.options.log?.('exchange-started', { nodeId: this.options.nodeId, partitions: [...partitions] });
      },
      async (err: unknown) => {
        connection.disconnect();
        this.state = 'closed';
        await this.outbox.close();
        throw err;
      },
    );
    await this.starting;
  }

  /** Queues `message` for partition `to` and returns its seq. Never waits; throws only when not started. */
  send(to: PartitionId, message: OutgoingMessage): number {
    const connection = this.connection;
    if (this.state !== 'started' || connection === null)
      throw new Error(`MemoryExchange.send(): node ${this.options.nodeId} is ${this.state === 'closed' ? 'closed' : 'not started'}`);
    checkPartition(to);
    const seq = this.outbox.takeSeq();
    const full: ExchangeMessage = { ...message, from: this.options.nodeId, seq };
    const bytes = encodeMessage(full);
    this.outbox.append({ seq, to, bytes });
    this.sent.add(full, bytes.length);
    connection.route(to, full, bytes.length);
    return seq;
  }

  /** Resolves once everything sent before the call is durable in the outbox; after `close`, once the close is done. */
  async flush(): Promise<void> {
    if (this.closing !== null) return this.closing;
    if (this.state !== 'started') throw new Error(`MemoryExchange.flush(): node ${this.options.nodeId} is not started`);
    await this.outbox.sync();
  }

  /** Stops deliveries at once, then syncs and closes the outbox. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.connection?.disconnect();
      this.state = 'closed';
      await this.starting?.catch(() => undefined);
      await this.outbox.close();
      this.options.log?.('exchange-closed', { nodeId: this.options.nodeId, unconfirmed: this.outbox.unconfirmed });
    })();
    return this.closing;
  }

  /** Counts since start; re-sent outbox entries count as sent. */
  stats(): ExchangeStats {
    return { sent: this.sent.snapshot(), received: { ...this.received.snapshot(), invalid: 0 }, unconfirmed: this.outbox.unconfirmed };
  }

  /** Opens the outbox and routes again what it holds unconfirmed, as it was first sent. */
  private async resend(connection: HubConnection): Promise<void> {
    const entries = await this.outbox.open();
    for (const entry of entries) {
      let message: ExchangeMessage;
      try {
        message = decodeMessage(entry.bytes);
      } catch (err) {
        throw new ShoalError(
          'EXCHANGE_MESSAGE_INVALID',
          `outbox entry ${entry.seq} in ${this.options.outboxDir} cannot be decoded (written by another version?)`,
          { cause: err },
        );
      }
      this.sent.add(message, entry.bytes.length);
      connection.route(entry.to, message, entry.bytes.length);
    }
    if (entries.length > 0) this.options.log?.('exchange-resent', { nodeId: this.options.nodeId, messages: entries.length });
  }
}

function checkPartition(p: PartitionId): void {
  if (!Number.isInteger(p) || p < 0 || p > 0xffffffff) throw new RangeError(`partition ${p} is not an integer in [0, 2^32)`);
}
