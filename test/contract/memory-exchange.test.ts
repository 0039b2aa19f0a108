import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Delivery } from '../../src/exchange/exchange.js';
import type { OutgoingMessage } from '../../src/exchange/messages.js';
import { MemoryExchange, MemoryExchangeHub } from '../../src/exchange/memory/memory-exchange.js';
import { scratchDirs } from '../helpers/scratch.js';
import { exchangeContract } from './exchange-contract.js';

exchangeContract('memory', async () => {
  const hub = new MemoryExchangeHub();
  return { endpoint: (nodeId, outboxDir) => new MemoryExchange({ hub, nodeId, outboxDir }), close: async () => undefined };
});

const { root } = scratchDirs('shoal-memory-exchange-');
let dirs = 0;

function batch(tag: string): OutgoingMessage {
  return { kind: 'urls', from: 'x', urls: [{ url: `https://${tag}.example/`, depth: 0, fromUrl: null }] };
}

/** Resolves after the hub's pending deliveries ran (they run in `setImmediate` callbacks). */
function deliveriesRan(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** A hub, and endpoints on it with their own outbox directories (the same for the same node id). */
function setup(): {
  hub: MemoryExchangeHub;
  endpoint: (nodeId: string, log?: (event: string, fields: Record<string, unknown>) => void) => MemoryExchange;
} {
  const hub = new MemoryExchangeHub();
  const base = join(root, `h${++dirs}`);
  return { hub, endpoint: (nodeId, log) => new MemoryExchange({ hub, nodeId, outboxDir: join(base, nodeId), log }) };
}

describe('MemoryExchange', () => {
  it('never delivers within send, and batches deliveries', async () => {
    const { endpoint } = setup();
    const got: Delivery[] = [];
    const r = endpoint('r');
    await r.start([0], (d) => got.push(d));
    const s = endpoint('s');
    await s.start([1], () => undefined);
    for (let i = 0; i < 10; i++) s.send(0, batch(`b${i}`));
    assert.equal(got.length, 0);
    await deliveriesRan();
    assert.equal(got.length, 10);
    await Promise.all([r.close(), s.close()]);
  });

  it("confirms in the sender's outbox when the receiver acknowledges; nothing is sent again after a restart", async () => {
    const { hub, endpoint } = setup();
    const held: Delivery[] = [];
    const r = endpoint('r');
    await r.start([0], (d) => held.push(d));
    const s = endpoint('s');
    await s.start([1], () => undefined);
    for (let i = 0; i < 3; i++) s.send(0, batch(`c${i}`));
    await deliveriesRan();
    assert.equal(s.stats().unconfirmed, 3);
    for (const d of held) d.ack();
    held[0]?.ack(); // idempotent
    assert.equal(s.stats().unconfirmed, 0);
    assert.equal(hub.pending(0), 0);
    await s.close();
    const again = endpoint('s');
    await again.start([1], () => undefined);
    assert.equal(again.stats().sent.messages, 0);
    assert.equal(hub.pending(0), 0);
    await Promise.all([r.close(), again.close()]);
  });

  it('a sender restarted in the same hub sends again what was not confirmed; every acknowledgement reaches it', async () => {
    const { endpoint } = setup();
    const held: Delivery[] = [];
    const r = endpoint('r');
    await r.start([0], (d) => held.push(d));
    const s = endpoint('s');
    await s.start([1], () => undefined);
    for (let i = 0; i < 3; i++) s.send(0, batch(`d${i}`));
    await s.close();
    const log: string[] = [];
    const again = endpoint('s', (event) => log.push(event));
    await again.start([1], () => undefined);
    await deliveriesRan();
    assert.deepStrictEqual(
      held.map((d) => d.message.seq),
      [1, 2, 3, 1, 2, 3],
    );
    assert.equal(again.stats().sent.messages, 3);
    assert.equal(again.stats().unconfirmed, 3);
    for (const d of held) d.ack();
    assert.equal(again.stats().unconfirmed, 0);
    await Promise.all([r.close(), again.close()]);
    assert.deepStrictEqual(log, ['exchange-resent', 'exchange-started', 'exchange-closed']);
  });

  it('keeps what a closed owner held, in order, for the next endpoint of the partition; a late ack does nothing', async () => {
    const { hub, endpoint } = setup();
    const s = endpoint('s');
    await s.start([1], () => undefined);
    const first: Delivery[] = [];
    const r1 = endpoint('r');
    await r1.start([0, 2], (d) => first.push(d));
    s.send(0, batch('e0'));
    s.send(2, batch('e1'));
    await deliveriesRan();
    assert.equal(first.length, 2);
    s.send(0, batch('e2')); // queued for r1, not yet delivered
    await r1.close();
    for (const d of first) d.ack(); // after close: the messages come again
    assert.equal(hub.pending(0), 2);
    assert.equal(hub.pending(2), 1);
    await deliveriesRan();
    assert.equal(first.length, 2, 'nothing is delivered to a closed endpoint');
    const second: Delivery[] = [];
    const r2 = endpoint('r');
    await r2.start([0, 2], (d) => second.push(d));
    await deliveriesRan();
    assert.deepStrictEqual(second.map((d) => [d.partition, d.message.seq]).sort(), [
      [0, 1],
      [0, 3],
      [2, 2],
    ]);
    assert.deepStrictEqual(
      second.filter((d) => d.partition === 0).map((d) => d.message.seq),
      [1, 3],
    );
    await Promise.all([r2.close(), s.close()]);
  });

  it('refuses a second owner of a partition and a second endpoint of a node id, until the first closes', async () => {
    const { endpoint } = setup();
    const a = endpoint('a');
    await a.start([0, 1], () => undefined);
    await assert.rejects(
      endpoint('b').start([2, 1], () => undefined),
      /partition 1 is already owned by node "a"/,
    );
    await assert.rejects(
      endpoint('a').start([5], () => undefined),
      /node "a" already has an endpoint/,
    );
    await assert.rejects(
      a.start([7], () => undefined),
      /can start only once/,
    );
    assert.throws(() => a.send(-1, batch('x')), RangeError);
    await a.close();
    const b = endpoint('b');
    await b.start([1], () => undefined);
    assert.throws(() => a.send(1, batch('x')), /closed/);
    await b.close();
  });
});
