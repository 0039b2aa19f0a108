/**
 * The NATS exchange through broker and receiver failures, on a private nats-server:
 *
 * - the broker stops in the middle of a stream of 2,000 URL batches from node A to node B and comes
 *   back later: A's sends never fail or wait, B gets every batch (copies allowed, none lost) and A's
 *   outbox ends with nothing unconfirmed;
 * - node B dies holding deliveries it never acknowledged, messages keep coming while it is down, and
 *   a new endpoint for B's partition gets every unacknowledged and every new message;
 * - node B closes cleanly holding unacknowledged deliveries: they are handed back at once (nak), so
 *   the next owner gets them without waiting for the ack timeout.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Delivery } from '../../../src/exchange/exchange.js';
import { NatsExchange, type NatsExchangeOptions } from '../../../src/exchange/nats/nats-exchange.js';
import { startNatsServer } from '../../helpers/nats-server.js';
import { waitUntil } from '../../helpers/wait.js';

const server = await startNatsServer();
const root = mkdtempSync(join(tmpdir(), 'shoal-nats-outage-'));
after(() => rmSync(root, { recursive: true, force: true }));

let dirCounter = 0;
/** An endpoint on the test broker; short timeouts so outages resolve quickly. */
function endpoint(crawlId: string, nodeId: string, extra: Partial<NatsExchangeOptions> = {}): NatsExchange {
  return new NatsExchange({
    servers: [server.url],
    crawlId,
    nodeId,
    outboxDir: join(root, `${nodeId}-${++dirCounter}`),
    publishTimeoutMs: 1_000,
    reconnectTimeWaitMs: 100,
    ...extra,
  });
}

/** A URL batch carrying its number, so the receiver can check which ones arrived. */
function batch(i: number): { kind: 'urls'; from: string; urls: { url: string; depth: number; fromUrl: null }[] } {
  return { kind: 'urls', from: 'a', urls: [{ url: `http://h${i % 13}.test/p/${i}`, depth: 1, fromUrl: null }] };
}

/** Collects deliveries by (from, seq), acking or holding them, and resolves waits when counts are reached. */
class Receiver {
  readonly bySeq = new Map<string, Delivery>();
  readonly held: Delivery[] = [];
  private waits: { count: number; resolve: () => void }[] = [];
  constructor(private readonly shouldAck: (seq: number) => boolean = () => true) {}
  readonly deliver = (d: Delivery): void => {
    this.bySeq.set(`${d.message.from}:${d.message.seq}`, d);
    if (this.shouldAck(d.message.seq)) d.ack();
    else this.held.push(d);
    this.waits = this.waits.filter((w) => (this.bySeq.size >= w.count ? (w.resolve(), false) : true));
  };
  /** Resolves once `count` distinct messages arrived. */
  until(count: number): Promise<void> {
    if (this.bySeq.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.waits.push({ count, resolve }));
  }
  seqsFrom(from: string): number[] {
    return [...this.bySeq.values()]
      .filter((d) => d.message.from === from)
      .map((d) => d.message.seq)
      .sort((x, y) => x - y);
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe('NatsExchange outages', { timeout: 50_000 }, () => {
  it('loses nothing when the broker stops in the middle of a stream of sends and comes back', async () => {
    const receiver = new Receiver();
    const events: string[] = [];
    const b = endpoint('outage', 'b');
    const a = endpoint('outage', 'a', { log: (event) => events.push(event) });
    await b.start([1], receiver.deliver);
    await a.start([0], () => assert.fail('nothing is sent to partition 0'));

    // The broker stops once half of the first 600 arrived, with the rest still on their way, and A
    // goes on sending while it goes down.
    for (let i = 1; i <= 600; i++) assert.equal(a.send(1, batch(i)), i);
    await receiver.until(300);
    const stopping = server.stop();
    for (let i = 601; i <= 1_200; i++) {
      assert.equal(a.send(1, batch(i)), i);
      if (i % 20 === 0) await nextTurn();
    }
    await stopping;
    // The broker is down: sends and flushes still return at once, the outbox keeps everything.
    for (let i = 1_201; i <= 1_400; i++) a.send(1, batch(i));
    await a.flush();
    assert.ok(a.stats().unconfirmed > 0);
    await waitUntil(() => events.includes('nats-disconnect'), { what: 'A to notice that the broker is gone' });
    await server.restart();
    for (let i = 1_401; i <= 2_000; i++) a.send(1, batch(i));
    await receiver.until(2_000);
    assert.deepEqual(receiver.seqsFrom('a'), range(1, 2_000));
    for (const d of receiver.bySeq.values()) {
      assert.equal(d.message.kind, 'urls');
      if (d.message.kind === 'urls') assert.equal(d.message.urls[0]?.url, batch(d.message.seq).urls[0]?.url);
    }
    assert.equal(await a.published(10_000), true);
    assert.equal(a.stats().unconfirmed, 0);
    assert.equal(a.stats().sent.urlBatches, 2_000);
    assert.ok(events.includes('nats-disconnect') && events.includes('nats-reconnect'), events.join(' '));
    assert.ok(b.stats().received.urlBatches >= 2_000);
    await Promise.all([a.close(), b.close()]);
  });

  it('gives a new endpoint of a crashed receiver every unacknowledged and every new message', async () => {
    const a = endpoint('crash', 'a');
    await a.start([0], () => {});
    // B acknowledges the first 50 and holds the rest, then dies.
    const first = new Receiver((seq) => seq <= 50);
    const b1 = endpoint('crash', 'b', { ackWaitMs: 1_000 });
    await b1.start([1], first.deliver);
    for (let i = 1; i <= 100; i++) a.send(1, batch(i));
    await first.until(100);
    await b1.destroy();
    for (let i = 101; i <= 200; i++) a.send(1, batch(i));
    assert.equal(await a.published(10_000), true);

    const second = new Receiver();
    const b2 = endpoint('crash', 'b', { ackWaitMs: 1_000 });
    await b2.start([1], second.deliver);
    await second.until(150);
    const got = new Set(second.seqsFrom('a'));
    for (const seq of range(51, 200)) assert.ok(got.has(seq), `message ${seq} reached the new endpoint`);
    await Promise.all([a.close(), b2.close()]);
  });

  it('hands unacknowledged deliveries back at once when a receiver closes cleanly', async () => {
    const a = endpoint('handback', 'a');
    await a.start([0], () => {});
    // A long ack wait: only the nak on close can make the next owner see these within the test.
    const holder = new Receiver(() => false);
    const b1 = endpoint('handback', 'b1', { ackWaitMs: 60_000 });
    await b1.start([1], holder.deliver);
    for (let i = 1; i <= 30; i++) a.send(1, batch(i));
    await holder.until(30);
    await b1.close();
    holder.held[0]?.ack(); // after close: does nothing, the message comes again

    const next = new Receiver();
    const b2 = endpoint('handback', 'b2', { ackWaitMs: 60_000 });
    await b2.start([1], next.deliver);
    await next.until(30);
    assert.deepEqual(next.seqsFrom('a'), range(1, 30));
    await Promise.all([a.close(), b2.close()]);
  });
});
