/**
 * The embedded exchange for a node that runs in a worker thread (`cluster.workers`): the node's
 * outbox stays in its own thread, and the hub in the main thread. `PortExchange` is the node's end:
 * it numbers, encodes and appends each message to the outbox exactly as `MemoryExchange` does, then
 * posts it to the main thread, where a {@link HubPortBridge} routes it through the process's
 * `MemoryExchangeHub` and posts back deliveries and confirmations. Messages cross threads as
 * structured clones; the Contract of `exchange.ts` holds as for `MemoryExchange`.
 */
import type { Delivery, Exchange, ExchangeSpec, ExchangeStats } from '../exchange.js';
import type { ExchangeMessage, OutgoingMessage } from '../messages.js';
import { MessageCounter } from '../message-counter.js';
import { decodeMessage, encodeMessage } from '../codec.js';
import { Outbox } from '../outbox.js';
import type { PartitionId } from '../../partition/partitioner.js';
import type { HubConnection, MemoryExchangeHub } from './memory-exchange-hub.js';

/** From a node's thread to the hub's thread. */
export type ToHub =
  | { readonly t: 'connect'; readonly nodeId: string; readonly partitions: readonly PartitionId[] }
  | { readonly t: 'route'; readonly nodeId: string; readonly to: PartitionId; readonly message: ExchangeMessage; readonly bytes: number }
  | { readonly t: 'deliver-start'; readonly nodeId: string }
  | { readonly t: 'ack'; readonly nodeId: string; readonly ackId: number }
  | { readonly t: 'disconnect'; readonly nodeId: string };

/** From the hub's thread to a node's thread. */
export type FromHub =
  | {
      readonly t: 'deliver';
      readonly nodeId: string;
      readonly partition: PartitionId;
      readonly message: ExchangeMessage;
      readonly bytes: number;
      readonly ackId: number;
    }
  | { readonly t: 'confirm'; readonly nodeId: string; readonly seq: number };

/** The node's end; see the file comment. */
export class PortExchange implements Exchange {
  readonly spec: ExchangeSpec = { id: 'memory', params: { threads: true } };
  private readonly outbox: Outbox;
  private readonly sent = new MessageCounter();
  private readonly received = new MessageCounter();
  private deliver: ((d: Delivery) => void) | null = null;
  private isOpen = false;
  private closing: Promise<void> | null = null;

  /** @param post sends to the hub's thread. */
  constructor(
    private readonly nodeId: string,
    outboxDir: string,
    private readonly post: (m: ToHub) => void,
  ) {
    this.outbox = new Outbox({ dir: outboxDir });
  }

  async start(partitions: readonly PartitionId[], deliver: (delivery: Delivery) => void): Promise<void> {
    this.deliver = deliver;
    this.post({ t: 'connect', nodeId: this.nodeId, partitions: [...partitions] });
    const entries = await this.outbox.open();
    this.isOpen = true;
    for (const e of entries) {
      const message = decodeMessage(e.bytes);
      this.sent.add(message, e.bytes.length);
      this.post({ t: 'route', nodeId: this.nodeId, to: e.to, message, bytes: e.bytes.length });
    }
    this.post({ t: 'deliver-start', nodeId: this.nodeId });
  }

  send(to: PartitionId, message: OutgoingMessage): number {
    if (!this.isOpen || this.closing !== null) throw new Error(`PortExchange.send(): node ${this.nodeId} is not started or closed`);
    const seq = this.outbox.takeSeq();
    const full: ExchangeMessage = { ...message, from: this.nodeId, seq };
    const bytes = encodeMessage(full);
    this.outbox.append({ seq, to, bytes });
    this.sent.add(full, bytes.length);
    this.post({ t: 'route', nodeId: this.nodeId, to, message: full, bytes: bytes.length });
    return seq;
  }

  /** A message from the hub's thread for this node. */
  onHub(m: FromHub): void {
    if (m.t === 'confirm') {
      if (this.closing === null) this.outbox.confirm(m.seq);
      return;
    }
    if (this.closing !== null || this.deliver === null) return;
    this.received.add(m.message, m.bytes);
    const ackId = m.ackId;
    let isAcked = false;
    this.deliver({
      partition: m.partition,
      message: m.message,
      ack: () => {
        if (isAcked || this.closing !== null) return;
        isAcked = true;
        this.post({ t: 'ack', nodeId: this.nodeId, ackId });
      },
    });
  }

  async flush(): Promise<void> {
    if (this.closing !== null) return this.closing;
    await this.outbox.sync();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.post({ t: 'disconnect', nodeId: this.nodeId });
      if (this.isOpen) await this.outbox.close();
    })();
    return this.closing;
  }

  stats(): ExchangeStats {
    return {
      sent: this.sent.snapshot(),
      received: { ...this.received.snapshot(), invalid: 0 },
      unconfirmed: this.isOpen ? this.outbox.unconfirmed : 0,
    };
  }
}

/**
 * The hub's end, in the main thread: connects each node of a worker thread to the hub on its behalf
 * and relays routes, deliveries, acknowledgements and confirmations.
 */
export class HubPortBridge {
  private readonly connections = new Map<string, HubConnection>();
  private readonly acks = new Map<number, { readonly nodeId: string; readonly ack: () => void }>();
  private nextAck = 1;

  /** @param post sends to the worker thread that runs the nodes. */
  constructor(
    private readonly hub: MemoryExchangeHub,
    private readonly post: (m: FromHub) => void,
  ) {}

  /** A message from the worker thread. */
  onNode(m: ToHub): void {
    switch (m.t) {
      case 'connect': {
        const nodeId = m.nodeId;
        this.connections.set(
          nodeId,
          this.hub.connect({
            nodeId,
            partitions: m.partitions,
            receive: (held, ack) => {
              const ackId = this.nextAck++;
              this.acks.set(ackId, { nodeId, ack });
              this.post({ t: 'deliver', nodeId, partition: held.partition, message: held.message, bytes: held.encodedBytes, ackId });
            },
            confirm: (seq) => this.post({ t: 'confirm', nodeId, seq }),
          }),
        );
        return;
      }
      case 'route':
        this.connections.get(m.nodeId)?.route(m.to, m.message, m.bytes);
        return;
      case 'deliver-start':
        this.connections.get(m.nodeId)?.startDelivering();
        return;
      case 'ack': {
        const pending = this.acks.get(m.ackId);
        this.acks.delete(m.ackId);
        pending?.ack();
        return;
      }
      case 'disconnect':
        this.connections.get(m.nodeId)?.disconnect();
        this.connections.delete(m.nodeId);
        // Its deliveries not acknowledged stay in the hub for the partition's next owner.
        for (const [id, pending] of this.acks) if (pending.nodeId === m.nodeId) this.acks.delete(id);
        return;
    }
  }
}
