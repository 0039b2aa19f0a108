/**
 * The contract suite of the Exchange extension point (src/exchange/exchange.ts): every transport
 * runs it, from its own test file:
 *
 * ```ts
 * exchangeContract('memory', async () => { const hub = new MemoryExchangeHub(); return { endpoint: ..., close: ... }; });
 * ```
 *
 * `makeTransport(t)` gives the endpoints of one process. Within one test it may be called more than
 * once, always with the same `t`: each call is the crawl seen from a new process after the previous
 * one ended (its endpoints closed, then its `close()`), so it must share nothing in memory with the
 * previous calls but must share the broker's durable state (for NATS: the same server, stream and
 * consumers, e.g. a crawl id kept per `t`). Calls with different `t` are separate crawls. Node ids
 * and outbox directories are unique per test.
 *
 * Waiting is event-driven, with a generous timeout that only turns a hang into a failure.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { encodeMessage } from '../../src/exchange/codec.js';
import type { Delivery, Exchange, MessageCounts } from '../../src/exchange/exchange.js';
import type { ExchangeMessage, OutgoingMessage } from '../../src/exchange/messages.js';
import { scratchDirs } from '../helpers/scratch.js';

/** The endpoints of one process, all on one broker (the memory hub, a nats-server). */
export interface ContractTransport {
  /** A new, unstarted endpoint for node `nodeId` with its outbox in `outboxDir`. */
  endpoint(nodeId: string, outboxDir: string): Exchange;
  /** Releases the process's share of the transport (endpoints are closed first by the suite). */
  close(): Promise<void>;
}

const WAIT_MS = 30_000;

/** Collects what an endpoint delivers; acknowledges what `shouldAck` accepts (everything by default). */
class Receiver {
  readonly deliveries: Delivery[] = [];
  private readonly waiters = new Set<() => void>();
  constructor(private readonly shouldAck: (d: Delivery) => boolean = () => true) {}

  readonly deliver = (d: Delivery): void => {
    this.deliveries.push(d);
    if (this.shouldAck(d)) d.ack();
    for (const wake of this.waiters) wake();
  };

  /** `from#seq` of every delivery, in delivery order. */
  keys(): string[] {
    return this.deliveries.map((d) => `${d.message.from}#${d.message.seq}`);
  }

  /** Resolves once `condition` holds (checked at each delivery); fails after a long timeout. */
  until(what: string, condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.keys())}`));
      }, WAIT_MS);
      const check = (): void => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  /** Resolves once every one of `keys` was delivered. */
  untilKeys(keys: readonly string[]): Promise<void> {
    return this.until(keys.join(', '), () => keys.every((k) => this.keys().includes(k)));
  }
}

/** A URL batch whose URLs name `tag`, so a delivery can be traced to its send. */
function urls(tag: string, n = 2): OutgoingMessage {
  return {
    kind: 'urls',
    from: 'replaced-by-the-exchange',
    urls: Array.from({ length: n }, (_, i) => ({
      url: `https://${tag}.example/${i}`,
      depth: i,
      fromUrl: i === 0 ? null : `https://${tag}.example/`,
    })),
  };
}

const PAGE: OutgoingMessage = {
  kind: 'page',
  from: 'x',
  url: 'https://page.example/p',
  depth: 1,
  fromUrl: 'https://page.example/',
  fetchedAtMs: 1_700_000_000_000,
  durationMs: 35,
  ip: '192.0.2.7',
  request: new TextEncoder().encode('GET /p HTTP/1.1\r\n\r\n'),
  status: 200,
  statusText: 'OK',
  headers: { 'content-type': 'text/html' },
  responseHead: new TextEncoder().encode('HTTP/1.1 200 OK\r\n\r\n'),
  rawBody: new Uint8Array([0, 1, 2, 253, 254, 255]),
  body: new TextEncoder().encode('<p>hi</p>'),
  contentEncodings: [],
  contentType: 'text/html',
  charset: null,
};
const LINKS: OutgoingMessage = {
  kind: 'links',
  from: 'x',
  counts: [
    ['https://a.example/', 4],
    ['https://b.example/', 1],
    ['https://c.example/', 2],
    ['https://d.example/', 9],
  ],
};
const SIMHASHES: OutgoingMessage = {
  kind: 'simhashes',
  from: 'x',
  urls: ['https://a.example/near', 'https://b.example/near'],
  simhashes: new Uint8Array([0x8f, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 1]),
};
const STOP: OutgoingMessage = { kind: 'control', from: 'x', control: { kind: 'stop', reason: 'test' } };

/** The message as the receiver must see it. */
function sent(m: OutgoingMessage, from: string, seq: number): ExchangeMessage {
  return { ...m, from, seq };
}

function tagOf(d: Delivery): string {
  return d.message.kind === 'urls'
    ? (new URL(d.message.urls[0]?.url ?? 'https://none.example/').hostname.split('.')[0] ?? '')
    : d.message.kind;
}

/** Runs the Exchange contract against the transport `makeTransport` builds; see the file comment. */
export function exchangeContract(name: string, makeTransport: (t: TestContext) => Promise<ContractTransport>): void {
  describe(`Exchange contract: ${name}`, () => {
    const { root } = scratchDirs(`shoal-exchange-${name}-`);
    let tests = 0;

    /** Runs `body` with a transport whose endpoints are all closed, then the transport, at the end. */
    async function withTransport(
      t: TestContext,
      body: (c: { endpoint: (node: string) => Exchange; node: (n: string) => string; restart: () => Promise<void> }) => Promise<void>,
    ): Promise<void> {
      const prefix = `t${++tests}`;
      let transport = await makeTransport(t);
      const open: Exchange[] = [];
      const closeAll = async (): Promise<void> => {
        await Promise.all(open.splice(0).map((e) => e.close()));
        await transport.close();
      };
      try {
        await body({
          node: (n) => `${prefix}-${n}`,
          endpoint: (n) => {
            const e = transport.endpoint(`${prefix}-${n}`, join(root, prefix, n));
            open.push(e);
            return e;
          },
          restart: async () => {
            await closeAll();
            transport = await makeTransport(t);
          },
        });
      } finally {
        await closeAll();
      }
    }

    it('delivers every kind of message to the owner of the partition, with from and seq filled in', async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const r = new Receiver();
        await endpoint('r').start([0], r.deliver);
        const own = new Receiver();
        const s = endpoint('s');
        await s.start([1], own.deliver);
        const outgoing = [urls('kinds', 3), PAGE, LINKS, SIMHASHES, STOP];
        assert.deepStrictEqual(
          outgoing.map((m) => s.send(0, m)),
          [1, 2, 3, 4, 5],
        );
        const expected = outgoing.map((m, i) => sent(m, node('s'), i + 1));
        await r.until('5 messages', () => r.deliveries.length >= 5);
        assert.deepStrictEqual(
          r.deliveries.map((d) => d.partition),
          [0, 0, 0, 0, 0],
        );
        assert.deepStrictEqual(
          r.deliveries.map((d) => d.message),
          expected,
        );
        assert.deepStrictEqual(own.keys(), [], 'nothing was sent to partition 1');
      });
    });

    it("keeps the order of each sender's messages to a partition", async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const r = new Receiver();
        await endpoint('r').start([0], r.deliver);
        const a = endpoint('a');
        const b = endpoint('b');
        await Promise.all([a.start([1], () => undefined), b.start([2], () => undefined)]);
        for (let i = 0; i < 30; i++) {
          a.send(0, urls(`a${i}`));
          b.send(0, urls(`b${i}`));
        }
        await r.until('60 messages', () => r.deliveries.length >= 60);
        for (const sender of ['a', 'b']) {
          const mine = r.deliveries.filter((d) => d.message.from === node(sender));
          assert.deepStrictEqual(
            mine.map((d) => d.message.seq),
            Array.from({ length: 30 }, (_, i) => i + 1),
          );
          assert.deepStrictEqual(
            mine.map(tagOf),
            Array.from({ length: 30 }, (_, i) => `${sender}${i}`),
          );
        }
      });
    });

    it('sends without throwing or waiting while the receiver is not started, and delivers once it starts', async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const s = endpoint('s');
        await s.start([1], () => undefined);
        const seqs = Array.from({ length: 5 }, (_, i) => s.send(7, urls(`early${i}`)));
        assert.deepStrictEqual(seqs, [1, 2, 3, 4, 5]);
        await s.flush();
        const r = new Receiver();
        await endpoint('r').start([7], r.deliver);
        await r.untilKeys(seqs.map((q) => `${node('s')}#${q}`));
        assert.deepStrictEqual(r.deliveries.map(tagOf), ['early0', 'early1', 'early2', 'early3', 'early4']);
        assert.ok(r.deliveries.every((d) => d.partition === 7));
      });
    });

    it('delivers a partition only to its owner', async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const r1 = new Receiver();
        const r2 = new Receiver();
        await endpoint('r1').start([0], r1.deliver);
        await endpoint('r2').start([1, 2], r2.deliver);
        const s = endpoint('s');
        await s.start([3], () => undefined);
        const to = [0, 1, 2, 0, 2, 1];
        const seqs = to.map((p) => s.send(p, urls(`p${p}`)));
        const key = (i: number): string => `${node('s')}#${seqs[i]}`;
        await r1.untilKeys(to.flatMap((p, i) => (p === 0 ? [key(i)] : [])));
        await r2.untilKeys(to.flatMap((p, i) => (p !== 0 ? [key(i)] : [])));
        assert.deepStrictEqual(
          r1.deliveries.map((d) => [d.partition, tagOf(d)]),
          [
            [0, 'p0'],
            [0, 'p0'],
          ],
        );
        assert.ok(r2.deliveries.every((d) => d.partition !== 0 && tagOf(d) === `p${d.partition}`));
        assert.equal(r2.deliveries.length, 4);
      });
    });

    it('delivers unacknowledged messages again to the next endpoint of the partition, and acknowledged ones not', async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const s = endpoint('s');
        await s.start([1], () => undefined);
        const r1 = new Receiver((d) => d.message.seq === 1);
        const first = endpoint('r');
        await first.start([0], r1.deliver);
        const seqs = [s.send(0, urls('m1')), s.send(0, urls('m2')), s.send(0, urls('m3'))];
        const key = (seq: number): string => `${node('s')}#${seq}`;
        await r1.untilKeys(seqs.map(key));
        await first.close();
        const r2 = new Receiver();
        await endpoint('r').start([0], r2.deliver);
        const fourth = s.send(0, urls('m4'));
        await r2.untilKeys([seqs[1], seqs[2], fourth].map((q) => key(q as number)));
        assert.ok(!r2.keys().includes(key(seqs[0] as number)), `acknowledged message delivered again: ${JSON.stringify(r2.keys())}`);
        const redelivered = r2.deliveries.find((d) => d.message.seq === seqs[1]);
        assert.deepStrictEqual(redelivered?.message, sent(urls('m2'), node('s'), seqs[1] as number));
      });
    });

    it('delivers what a sender flushed even when its process ends before delivery, as first sent', async (t) => {
      await withTransport(t, async ({ endpoint, node, restart }) => {
        const s = endpoint('s');
        await s.start([1], () => undefined);
        const outgoing = [urls('before1'), PAGE, urls('before2')];
        const seqs = outgoing.map((m) => s.send(0, m));
        await s.flush();
        await restart(); // the sender's process ends; nobody had started partition 0
        const r = new Receiver();
        await endpoint('r').start([0], r.deliver);
        const again = endpoint('s');
        await again.start([1], () => undefined);
        await r.untilKeys(seqs.map((q) => `${node('s')}#${q}`));
        for (const [i, seq] of seqs.entries()) {
          const d = r.deliveries.find((x) => x.message.seq === seq && x.message.from === node('s'));
          assert.deepStrictEqual(d?.message, sent(outgoing[i] as OutgoingMessage, node('s'), seq));
        }
        assert.ok(again.send(0, urls('after')) > Math.max(...seqs), 'seqs go on after a restart');
      });
    });

    it('resolves flush, and closes idempotently (also an endpoint never started)', async (t) => {
      await withTransport(t, async ({ endpoint }) => {
        const s = endpoint('s');
        await s.start([1], () => undefined);
        s.send(0, urls('f1'));
        await s.flush();
        s.send(0, urls('f2'));
        await Promise.all([s.flush(), s.flush()]);
        await Promise.all([s.close(), s.close()]);
        await s.close();
        const never = endpoint('never');
        await never.close();
        await never.close();
      });
    });

    it('counts messages, URLs, pages, link counts and bytes exactly', async (t) => {
      await withTransport(t, async ({ endpoint, node }) => {
        const r = new Receiver();
        const receiver = endpoint('r');
        await receiver.start([0], r.deliver);
        const s = endpoint('s');
        await s.start([1], () => undefined);
        const zero: MessageCounts = {
          messages: 0,
          bytes: 0,
          urlBatches: 0,
          urls: 0,
          pages: 0,
          pageBytes: 0,
          linkSummaries: 0,
          linkCounts: 0,
          linkSummaryBytes: 0,
          simhashBatches: 0,
          simhashes: 0,
          simhashBytes: 0,
          controls: 0,
        };
        assert.deepStrictEqual(s.stats().sent, zero);
        const outgoing = [urls('c1', 3), urls('c2', 2), PAGE, LINKS, SIMHASHES, STOP];
        const sizes = outgoing.map((m) => encodeMessage(sent(m, node('s'), s.send(0, m))).length);
        const pageBytes = sizes[2] as number;
        const expected: MessageCounts = {
          messages: 6,
          bytes: sizes.reduce((a, b) => a + b, 0),
          urlBatches: 2,
          urls: 5,
          pages: 1,
          pageBytes,
          linkSummaries: 1,
          linkCounts: 4,
          linkSummaryBytes: sizes[3] as number,
          simhashBatches: 1,
          simhashes: 2,
          simhashBytes: sizes[4] as number,
          controls: 1,
        };
        assert.deepStrictEqual(s.stats().sent, expected);
        await r.until('6 messages', () => r.deliveries.length >= 6);
        assert.deepStrictEqual(receiver.stats().received, { ...expected, invalid: 0 });
        assert.deepStrictEqual(receiver.stats().sent, zero);
        const { unconfirmed } = s.stats();
        assert.ok(Number.isInteger(unconfirmed) && unconfirmed >= 0 && unconfirmed <= 6, `unconfirmed ${unconfirmed}`);
      });
    });
  });
}
