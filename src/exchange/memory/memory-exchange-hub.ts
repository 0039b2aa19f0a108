/**
 * The in-process router of the embedded exchange (SPEC §4.5): one per process, shared by every
 * {@link MemoryExchange} endpoint in it. It plays the broker's part: it holds each message sent to a
 * partition until the partition's owner acknowledges it, and hands it to that owner.
 *
 * - **Asynchronous delivery.** Routing only queues; deliveries run in a `setImmediate` callback, one
 *   per batch of sends, so a delivery never runs inside `send`'s call stack, and I/O gets its turn
 *   between batches (a microtask loop would starve it when receivers send while they receive). Each
 *   batch delivers only what was queued before it started.
 * - **Holding.** A message waits in the hub while its partition has no owner, and stays after it is
 *   delivered until the owner acknowledges it. When the owner's endpoint closes, what it had not
 *   acknowledged is handed, in the original order, to the next endpoint that starts with the
 *   partition in this process (as a JetStream durable consumer redelivers). Nothing outlives the
 *   process: the durable copy is the sender's outbox.
 * - **Acknowledgement** removes the message and confirms its seq in the outbox of the endpoint that
 *   currently speaks for the sender's node id (a restarted sender gets the confirmations of what its
 *   previous endpoint sent). An acknowledgement from an endpoint that has closed does nothing.
 * - **Exclusive ownership.** A partition has at most one owner, and a node id at most one endpoint,
 *   at a time: claiming one that is taken throws.
 */
import type { PartitionId } from '../../partition/partitioner.js';
import type { ExchangeMessage } from '../messages.js';

/** A message the hub holds until it is acknowledged. */
export interface HeldMessage {
  readonly partition: PartitionId;
  readonly message: ExchangeMessage;
  /** Size of the message once encoded (the stats count it). */
  readonly encodedBytes: number;
}

/** What an endpoint gives the hub when it connects. */
export interface HubPort {
  readonly nodeId: string;
  readonly partitions: readonly PartitionId[];
  /** Called with each message for one of `partitions`, outside any `route` call stack. */
  receive(held: HeldMessage, ack: () => void): void;
  /** Called when the owner acknowledged a message this node sent. */
  confirm(seq: number): void;
}

/** An endpoint's link to the hub, from {@link MemoryExchangeHub.connect}. */
export interface HubConnection {
  /** Queues a message for the owner of `partition`. */
  route(partition: PartitionId, message: ExchangeMessage, encodedBytes: number): void;
  /** Starts handing the port the messages of its partitions, those held already first. */
  startDelivering(): void;
  /** Stops delivering and releases the partitions and the node id; held messages stay. Idempotent. */
  disconnect(): void;
}

interface Held extends HeldMessage {
  readonly id: number;
  readonly senderId: string;
}

interface PartitionQueue {
  owner: Owner | null;
  /** Messages not yet acknowledged, in the order they were routed. */
  readonly unacked: Map<number, Held>;
  /** Messages of `unacked` not yet handed to the current owner, in order. */
  queue: Held[];
}

interface Owner {
  readonly port: HubPort;
  isDelivering: boolean;
}

/** See the file comment. */
export class MemoryExchangeHub {
  private readonly partitions = new Map<PartitionId, PartitionQueue>();
  private readonly senders = new Map<string, HubPort>();
  private readonly ready = new Set<PartitionQueue>();
  private isScheduled = false;
  private nextId = 1;

  /** Messages sent to `partition` and not yet acknowledged, delivered or not. */
  pending(partition: PartitionId): number {
    return this.partitions.get(partition)?.unacked.size ?? 0;
  }

  /**
   * Connects an endpoint: claims its node id (for confirmations) and its partitions. Throws when
   * another connected endpoint has the node id or one of the partitions. Deliveries begin at
   * {@link HubConnection.startDelivering}.
   */
  connect(port: HubPort): HubConnection {
    if (this.senders.has(port.nodeId)) throw new Error(`node ${JSON.stringify(port.nodeId)} already has an endpoint on this exchange hub`);
    for (const p of port.partitions) {
      const owner = this.partitions.get(p)?.owner;
      if (owner) throw new Error(`partition ${p} is already owned by node ${JSON.stringify(owner.port.nodeId)} on this exchange hub`);
    }
    const owner: Owner = { port, isDelivering: false };
    this.senders.set(port.nodeId, port);
    for (const p of port.partitions) this.queueOf(p).owner = owner;
    let isConnected = true;
    return {
      route: (partition, message, encodedBytes) => {
        if (isConnected) this.route(port.nodeId, partition, message, encodedBytes);
      },
      startDelivering: () => {
        if (!isConnected || owner.isDelivering) return;
        owner.isDelivering = true;
        for (const p of port.partitions) {
          const q = this.queueOf(p);
          q.queue = [...q.unacked.values()];
          this.markReady(q);
        }
      },
      disconnect: () => {
        if (!isConnected) return;
        isConnected = false;
        owner.isDelivering = false;
        if (this.senders.get(port.nodeId) === port) this.senders.delete(port.nodeId);
        for (const p of port.partitions) {
          const q = this.queueOf(p);
          if (q.owner !== owner) continue;
          q.owner = null;
          q.queue = []; // rebuilt from `unacked` for the next owner
        }
      },
    };
  }

  private route(senderId: string, partition: PartitionId, message: ExchangeMessage, encodedBytes: number): void {
    const held: Held = { id: this.nextId++, senderId, partition, message, encodedBytes };
    const q = this.queueOf(partition);
    q.unacked.set(held.id, held);
    if (q.owner?.isDelivering === true) {
      q.queue.push(held);
      this.markReady(q);
    }
  }

  private queueOf(partition: PartitionId): PartitionQueue {
    let q = this.partitions.get(partition);
    if (q === undefined) {
      q = { owner: null, unacked: new Map(), queue: [] };
      this.partitions.set(partition, q);
    }
    return q;
  }

  private markReady(q: PartitionQueue): void {
    if (q.queue.length === 0) return;
    this.ready.add(q);
    if (this.isScheduled) return;
    this.isScheduled = true;
    setImmediate(() => this.deliverReady());
  }

  private deliverReady(): void {
    this.isScheduled = false;
    const ready = [...this.ready];
    this.ready.clear();
    for (const q of ready) {
      const owner = q.owner;
      if (owner === null || !owner.isDelivering) continue;
      const batch = q.queue;
      q.queue = [];
      for (const held of batch) {
        // The owner may close while receiving; what is left is in `unacked` for the next one.
        if (q.owner !== owner || !owner.isDelivering) break;
        if (!q.unacked.has(held.id)) continue;
        owner.port.receive(held, () => this.ack(q, owner, held));
      }
    }
  }

  private ack(q: PartitionQueue, owner: Owner, held: Held): void {
    if (q.owner !== owner || !owner.isDelivering) return; // closed: the message comes again
    if (!q.unacked.delete(held.id)) return;
    this.senders.get(held.senderId)?.confirm(held.message.seq);
  }
}
