/**
 * NatsExchange behaviour beyond the shared contract, on private nats-servers: a message that does
 * not decode is counted, acknowledged and dropped; an existing stream of the wrong shape is a
 * configuration error; a node may start before its broker; a message larger than the broker's
 * `max_payload` is logged and dropped instead of blocking the sends behind it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ConfigError } from '../../../src/core/errors.js';
import type { Delivery } from '../../../src/exchange/exchange.js';
import type { OutgoingMessage } from '../../../src/exchange/messages.js';
import { NatsExchange, type NatsExchangeOptions } from '../../../src/exchange/nats/nats-exchange.js';
import { startNatsServer } from '../../helpers/nats-server.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-nats-exchange-'));
after(() => rmSync(root, { recursive: true, force: true }));
const smallPayloadConfig = join(root, 'small-payload.conf');
writeFileSync(smallPayloadConfig, 'max_payload: 4096\n');

const server = await startNatsServer();
const small = await startNatsServer({ args: ['-c', smallPayloadConfig] });

let dirs = 0;
function endpoint(options: Pick<NatsExchangeOptions, 'servers' | 'crawlId' | 'nodeId'> & Partial<NatsExchangeOptions>): NatsExchange {
  return new NatsExchange({
    outboxDir: join(root, `${options.nodeId}-${++dirs}`),
    publishTimeoutMs: 1_000,
    reconnectTimeWaitMs: 100,
    ...options,
  });
}

function batch(tag: string): OutgoingMessage {
  return { kind: 'urls', from: 'x', urls: [{ url: `https://${tag}.example/`, depth: 0, fromUrl: null }] };
}

/** Resolves with the first delivery that `match` accepts (acking every delivery). */
function waitFor(match: (d: Delivery) => boolean): { deliver: (d: Delivery) => void; got: Promise<Delivery> } {
  let resolve!: (d: Delivery) => void;
  const got = new Promise<Delivery>((r) => {
    resolve = r;
  });
  return {
    deliver: (d) => {
      d.ack();
      if (match(d)) resolve(d);
    },
    got,
  };
}

describe('NatsExchange', () => {
  it('counts, logs, acknowledges and drops a message that does not decode', async () => {
    const events: string[] = [];
    const valid = waitFor((d) => d.message.kind === 'urls');
    const b = endpoint({ servers: [server.url], crawlId: 'invalid', nodeId: 'b', log: (event) => events.push(event) });
    await b.start([1], valid.deliver);
    const nc = await connect({ servers: server.url });
    await jetstream(nc).publish('shoal.invalid.p.1', new Uint8Array([0xff, 0, 1, 2]));
    const a = endpoint({ servers: [server.url], crawlId: 'invalid', nodeId: 'a' });
    await a.start([0], () => {});
    a.send(1, batch('valid'));
    await valid.got;
    assert.equal(b.stats().received.invalid, 1);
    assert.equal(b.stats().received.messages, 1);
    assert.ok(events.includes('nats-message-invalid'));
    await Promise.all([a.close(), b.close()]);
    // Both were acknowledged: the work queue holds nothing more for partition 1.
    const info = await (await jetstreamManager(nc)).consumers.info('SHOAL_invalid', 'p-1');
    assert.equal(info.num_pending + info.num_ack_pending, 0);
    await nc.close();
  });

  it('refuses an existing stream of another shape with a configuration error', async () => {
    const nc = await connect({ servers: server.url });
    await (
      await jetstreamManager(nc)
    ).streams.add({ name: 'SHOAL_shaped', subjects: ['shoal.shaped.p.*'], retention: 'limits', storage: 'memory' });
    await nc.close();
    const e = endpoint({ servers: [server.url], crawlId: 'shaped', nodeId: 'a' });
    await assert.rejects(
      e.start([0], () => {}),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /retention "limits" \(need "workqueue"\)/);
        assert.match(err.message, /storage "memory" \(need "file"\)/);
        return true;
      },
    );
    await e.close();
  });

  it('starts before its broker and connects once the broker appears', async () => {
    const late = await startNatsServer();
    await late.stop();
    const b = endpoint({ servers: [late.url], crawlId: 'late', nodeId: 'b' });
    const r = waitFor(() => true);
    const started = b.start([1], r.deliver);
    const a = endpoint({ servers: [late.url], crawlId: 'late', nodeId: 'a' });
    const aStarted = a.start([0], () => {});
    await late.restart();
    await Promise.all([started, aStarted]);
    a.send(1, batch('late'));
    assert.equal((await r.got).message.from, 'a');
    await Promise.all([a.close(), b.close()]);
  });

  it('logs and drops a message larger than the broker accepts, and sends the others', async () => {
    const events: string[] = [];
    const r = waitFor((d) => d.message.kind === 'urls' && d.message.urls[0]?.url === 'https://after.example/');
    const b = endpoint({ servers: [small.url], crawlId: 'big', nodeId: 'b' });
    await b.start([1], r.deliver);
    const a = endpoint({ servers: [small.url], crawlId: 'big', nodeId: 'a', log: (event) => events.push(event) });
    await a.start([0], () => {});
    assert.equal(a.maxMessageBytes, 4096);
    const page: OutgoingMessage = {
      kind: 'page',
      from: 'x',
      url: 'https://big.example/',
      depth: 0,
      fromUrl: null,
      fetchedAtMs: 0,
      durationMs: 1,
      ip: null,
      request: new Uint8Array(0),
      status: 200,
      statusText: 'OK',
      headers: {},
      responseHead: new Uint8Array(0),
      rawBody: randomBytes(16_384),
      contentEncodings: [],
      contentType: 'application/octet-stream',
      charset: null,
    };
    a.send(1, page);
    a.send(1, batch('after'));
    await r.got;
    assert.equal(await a.published(5_000), true);
    assert.equal(a.stats().unconfirmed, 0);
    assert.ok(events.includes('nats-message-too-large'));
    await Promise.all([a.close(), b.close()]);
  });
});
