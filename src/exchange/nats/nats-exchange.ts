/**
 * The distributed transport: each node is its own process, anywhere, talking through NATS JetStream
 * (SPEC §4.5; docs/nats.md tells the whole story).
 *
 * Sending: `send` numbers the message (`seq` from the outbox, monotonic across restarts), encodes
 * it, appends it to the outbox and queues it for the {@link Publisher}, which publishes on
 * `shoal.<crawlId>.p.<to>` with message id `<nodeId>:<seq>` and confirms each stored message to the
 * outbox. `flush` is `outbox.sync()`: durability is the outbox's, it never waits for the broker. A
 * restarted endpoint on the same outbox directory publishes again whatever was not confirmed; the
 * stream's duplicate window drops the copies it already has.
 *
 * Receiving: one durable pull consumer per owned partition ({@link PartitionConsumers}).
 *
 * The broker may be down at any time: `start` waits for it (logging `nats-waiting`), and afterwards
 * the client reconnects forever while `send`/`flush` keep working on the outbox.
 *
 * While the broker is unreachable, unconfirmed messages are held in memory as well as on disk (the
 * publisher's queue), so memory grows with what the node sends during an outage.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../../core/errors.js';
import type { PartitionId } from '../../partition/partitioner.js';
import { encodeMessage } from '../codec.js';
import type { Delivery, Exchange, ExchangeSpec, ExchangeStats } from '../exchange.js';
import type { ExchangeMessage, OutgoingMessage } from '../messages.js';
import { Outbox, type OutboxEntry } from '../outbox.js';
import { connectNats, type NatsAuthOptions, type NatsTlsOptions } from './connection.js';
import { MessageCounter } from '../message-counter.js';
import { NatsMembership, PartitionClaimedError, type NatsMembershipOptions } from './nats-membership.js';
import { checkId, checkPartition, streamName } from './names.js';
import { PartitionConsumers } from './partition-consumers.js';
import { Publisher } from './publisher.js';
import { ensureConsumer, ensureStream } from './stream.js';

/** Options of a {@link NatsExchange}. */
export interface NatsExchangeOptions {
  /** Broker URLs, e.g. `['nats://10.0.0.5:4222']`. */
  readonly servers: readonly string[];
  /** The crawl's id, `[A-Za-z0-9_-]`: names the stream, subjects and buckets. */
  readonly crawlId: string;
  /** This node's id, `[A-Za-z0-9_-]`, stable across restarts (it names the message ids). */
  readonly nodeId: string;
  /** The outbox directory (in the node's crawl directory; one endpoint at a time). */
  readonly outboxDir: string;
  readonly auth?: NatsAuthOptions;
  readonly tls?: NatsTlsOptions;
  /** Ms the broker waits for an ack before delivering again; default 60 000. Keep it above the node's checkpoint interval. */
  readonly ackWaitMs?: number;
  /** Most unacknowledged deliveries per partition; default 20 000. */
  readonly maxAckPending?: number;
  /** Most publishes awaiting their ack; default 256. */
  readonly publishWindow?: number;
  /** Ms before an unacknowledged publish is retried; default 5 000. */
  readonly publishTimeoutMs?: number;
  /** Ms `close` keeps publishing what is pending before it gives up (the outbox keeps the rest); default 2 000. */
  readonly closeTimeoutMs?: number;
  /** Ms between reconnection attempts; default 1 000. */
  readonly reconnectTimeWaitMs?: number;
  /**
   * Join the crawl's membership in `start` (claim the partitions before consuming them, heartbeat,
   * leave in `close`). Off by default: then `membership()` still gives config and stats access.
   */
  readonly membership?: NatsMembershipOptions | false;
  /** Structured events (`nats-connected`, `nats-disconnect`, `nats-publish-retry`, ...). */
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The NATS JetStream exchange; see the file comment and the Contract in `exchange.ts`. */
export class NatsExchange implements Exchange {
  readonly spec: ExchangeSpec;
  private readonly options: NatsExchangeOptions;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly sent = new MessageCounter();
  private readonly received = new MessageCounter();
  private invalid = 0;
  private outbox: Outbox | null = null;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private jsm: JetStreamManager | null = null;
  private publisher: Publisher | null = null;
  private consumers: PartitionConsumers | null = null;
  private member: NatsMembership | null = null;
  private connecting: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private isClosed = false;
  /** Aborted by close/destroy: ends setup back-offs. */
  private readonly closed = new AbortController();
  private isOutboxClosed = false;
  private closing: Promise<void> | null = null;

  constructor(options: NatsExchangeOptions) {
    checkId('crawlId', options.crawlId);
    checkId('nodeId', options.nodeId);
    if (options.servers.length === 0) throw new ConfigError([{ path: 'servers', message: 'at least one NATS server URL is needed' }]);
    this.options = options;
    const log = options.log ?? (() => {});
    this.log = (event, fields) => log(event, { nodeId: options.nodeId, ...fields });
    this.spec = {
      id: 'nats',
      params: {
        servers: [...options.servers],
        crawlId: options.crawlId,
        nodeId: options.nodeId,
        ackWaitMs: this.ackWaitMs,
        maxAckPending: this.maxAckPending,
        publishWindow: options.publishWindow ?? 256,
      },
    };
  }

  /**
   * Opens the connection (waiting for the broker as long as it takes) and ensures the crawl's stream.
   * `start` calls it; call it first to use {@link membership} (publish the config) before consuming.
   */
  connect(): Promise<void> {
    this.connecting ??= this.doConnect();
    return this.connecting;
  }

  start(partitions: readonly PartitionId[], deliver: (delivery: Delivery) => void): Promise<void> {
    if (this.starting !== null) throw new Error('NatsExchange.start called twice');
    partitions.forEach(checkPartition);
    this.starting = this.doStart(partitions, deliver);
    return this.starting;
  }

  private async doStart(partitions: readonly PartitionId[], deliver: (delivery: Delivery) => void): Promise<void> {
    const outbox = new Outbox({ dir: this.options.outboxDir });
    this.outbox = outbox; // before opening, so a close() meanwhile closes it
    const unconfirmed = await outbox.open();
    await this.connect();
    const js = this.js as JetStreamClient;
    this.publisher = new Publisher({
      js,
      crawlId: this.options.crawlId,
      nodeId: this.options.nodeId,
      window: this.options.publishWindow,
      publishTimeoutMs: this.options.publishTimeoutMs,
      log: this.log,
      onStored: (seq) => this.confirm(seq),
      onTooLarge: (entry) => this.confirm(entry.seq),
    });
    for (const entry of unconfirmed) this.publisher.enqueue(entry);
    this.publisher.start();
    if (unconfirmed.length > 0) this.log('nats-republish', { entries: unconfirmed.length });
    // A broker that has just restarted answers before its JetStream is back: the claims are tried
    // again like every other setup step (a partition held by another live node is not).
    if (this.options.membership !== undefined && this.options.membership !== false)
      await this.retrying('joining the crawl', () => this.membership().join(partitions));
    this.consumers = new PartitionConsumers({
      js,
      jsm: this.jsm as JetStreamManager,
      crawlId: this.options.crawlId,
      deliver,
      received: this.received,
      log: this.log,
      onInvalid: () => {
        this.invalid++;
      },
    });
    for (const p of partitions) {
      await this.retrying(`consumer of partition ${p}`, () =>
        ensureConsumer(this.jsm as JetStreamManager, this.options.crawlId, p, {
          ackWaitMs: this.ackWaitMs,
          maxAckPending: this.maxAckPending,
        }),
      );
      await this.retrying(`consuming partition ${p}`, () => (this.consumers as PartitionConsumers).consume(p));
    }
  }

  send(to: PartitionId, message: OutgoingMessage): number {
    const outbox = this.outbox;
    if (outbox === null || this.publisher === null) throw new Error('NatsExchange.send before start() resolved');
    if (this.isClosed) throw new Error('NatsExchange.send after close()');
    if (!Number.isSafeInteger(to) || to < 0) throw new RangeError(`NatsExchange.send: ${to} is not a partition number`);
    const seq = outbox.takeSeq();
    const full = { ...message, from: this.options.nodeId, seq } as ExchangeMessage;
    const bytes = encodeMessage(full);
    const entry: OutboxEntry = { seq, to, bytes };
    outbox.append(entry);
    this.publisher.enqueue(entry);
    this.sent.add(full, bytes.length);
    return seq;
  }

  async flush(): Promise<void> {
    await this.outbox?.sync();
  }

  stats(): ExchangeStats {
    return {
      sent: this.sent.snapshot(),
      received: { ...this.received.snapshot(), invalid: this.invalid },
      unconfirmed: this.outbox?.unconfirmed ?? 0,
    };
  }

  /** The crawl's membership, configuration and statistics on this endpoint's connection (after `connect`). */
  membership(): NatsMembership {
    if (this.nc === null) throw new Error('NatsExchange.membership before connect() resolved');
    const opts = this.options.membership === false ? {} : (this.options.membership ?? {});
    this.member ??= new NatsMembership(this.nc, this.options.crawlId, this.options.nodeId, {
      log: this.log,
      host: hostname(),
      ...opts,
      // Another node claimed a partition we held (our heartbeats lapsed): stop consuming it first.
      onLost: (partition, holder) => {
        this.consumers?.release(partition).catch(() => {});
        opts.onLost?.(partition, holder);
      },
    });
    return this.member;
  }

  /**
   * Resolves to true once the broker has stored every message sent so far (nothing is left to
   * publish), or to false after `timeoutMs`. Not needed for durability (that is `flush`): for tests,
   * and for a node that wants its messages out before it stops.
   */
  async published(timeoutMs: number): Promise<boolean> {
    return this.publisher === null ? true : this.publisher.idle(timeoutMs);
  }

  /**
   * Messages the crawl's stream holds: sent and not yet acknowledged by their receivers (the stream
   * keeps a message only until its consumer acknowledges it). Null when the broker does not answer.
   */
  async streamMessages(): Promise<number | null> {
    const jsm = this.jsm;
    if (jsm === null || jsm === undefined) return null;
    try {
      return (await jsm.streams.info(streamName(this.options.crawlId))).state.messages;
    } catch {
      return null;
    }
  }

  /** Largest encoded message the broker accepts (its `max_payload`), or null before connecting. */
  get maxMessageBytes(): number | null {
    return this.nc?.info?.max_payload ?? null;
  }

  /**
   * Stops consuming (unacknowledged deliveries are nak'ed, so the partition's next owner gets them at
   * once), syncs the outbox, publishes what is pending for up to `closeTimeoutMs`, leaves the
   * membership, closes the outbox and drains the connection. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown(true);
    return this.closing;
  }

  /**
   * Stops at once as a crash would: deliveries not acknowledged come back after `ack_wait`, the
   * membership entries expire after their TTL, nothing pending is published. For tests and aborts.
   */
  destroy(): Promise<void> {
    this.closing ??= this.shutdown(false);
    return this.closing;
  }

  private get ackWaitMs(): number {
    return this.options.ackWaitMs ?? 60_000;
  }

  private get maxAckPending(): number {
    return this.options.maxAckPending ?? 20_000;
  }

  private async doConnect(): Promise<void> {
    const { servers, crawlId, nodeId } = this.options;
    const nc = await connectNats(
      {
        servers,
        name: `shoal-${crawlId}-${nodeId}`,
        auth: this.options.auth,
        tls: this.options.tls,
        reconnectTimeWaitMs: this.options.reconnectTimeWaitMs,
        log: this.log,
      },
      () => this.isClosed,
    );
    this.nc = nc;
    this.watchConnection(nc).catch(() => {});
    this.jsm = await this.retrying('jetstream', () =>
      jetstreamManager(nc).catch((err: unknown) => {
        // The server answers but has JetStream off: no retry will help.
        if (err instanceof Error && err.name === 'JetStreamNotEnabled') {
          throw new ConfigError(
            [{ path: 'servers', message: `JetStream is not enabled on ${servers.join(', ')} (start nats-server with -js)` }],
            { cause: err },
          );
        }
        throw err;
      }),
    );
    this.js = jetstream(nc);
    await this.retrying('stream', () => ensureStream(this.jsm as JetStreamManager, crawlId));
  }

  /** Tells the publisher when the connection drops and comes back. */
  private async watchConnection(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') this.publisher?.setConnected(false);
      else if (s.type === 'reconnect') this.publisher?.setConnected(true);
    }
  }

  /** Runs a setup step, retrying broker trouble with back-off until it works or the endpoint closes. */
  private async retrying<T>(what: string, step: () => Promise<T>): Promise<T> {
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 5_000)) {
      try {
        return await step();
      } catch (err) {
        if (err instanceof ConfigError || err instanceof PartitionClaimedError || this.isClosed) throw err;
        this.log('nats-setup-retry', { step: what, delayMs, error: String(err) });
        // Cut short by close(), which then throws the step's error out of start().
        await sleep(delayMs, undefined, { signal: this.closed.signal }).catch(() => {
          throw err;
        });
      }
    }
  }

  private confirm(seq: number): void {
    if (this.outbox !== null && !this.isOutboxClosed) this.outbox.confirm(seq);
  }

  private async shutdown(isClean: boolean): Promise<void> {
    this.isClosed = true;
    this.closed.abort();
    // A start still connecting cannot be waited for (the broker may never come); one past that point
    // ends soon, because every setup step gives up once the endpoint is closed.
    if (this.nc !== null) await this.starting?.catch(() => {});
    const consumers = this.consumers;
    if (consumers !== null) await (isClean ? consumers.stop() : consumers.abandon());
    if (isClean) {
      await this.outbox?.sync();
      if (this.publisher !== null && !(await this.publisher.idle(this.options.closeTimeoutMs ?? 2_000))) {
        this.log('nats-close-pending', { pending: this.publisher.pending });
      }
    }
    await this.publisher?.stop();
    if (this.member !== null) {
      if (isClean) await this.member.leave().catch((err: unknown) => this.log('nats-leave-failed', { error: String(err) }));
      else this.member.destroy();
    }
    this.isOutboxClosed = true;
    await this.outbox?.close();
    const nc = this.nc;
    if (nc !== null && !nc.isClosed()) await (isClean ? nc.drain().catch(() => nc.close()) : nc.close());
  }
}
