/**
 * Credentials and TLS reach the broker (SPEC §8): a token, a user and password, and TLS with the
 * test CA each carry a message between two endpoints on a server that requires them; refused or
 * unreadable credentials fail `start` as configuration errors instead of being retried forever.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import type { Delivery } from '../../../src/exchange/exchange.js';
import { NatsExchange, type NatsExchangeOptions } from '../../../src/exchange/nats/nats-exchange.js';
import { startNatsServer } from '../../helpers/nats-server.js';

const TLS_DIR = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
const CA_FILE = join(TLS_DIR, 'ca.pem');

const tokenServer = await startNatsServer({ args: ['--auth', 's3cret'], client: { token: 's3cret' } });
const userServer = await startNatsServer({ args: ['--user', 'shoal', '--pass', 'pw'], client: { user: 'shoal', pass: 'pw' } });
const tlsServer = await startNatsServer({
  args: ['--tls', '--tlscert', join(TLS_DIR, 'server.pem'), '--tlskey', join(TLS_DIR, 'server.key')],
  client: { tls: { caFile: CA_FILE } },
});
const root = mkdtempSync(join(tmpdir(), 'shoal-nats-security-'));
after(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
type Connection = Pick<NatsExchangeOptions, 'servers' | 'auth' | 'tls'>;

function endpoint(connection: Connection, nodeId: string): NatsExchange {
  return new NatsExchange({ ...connection, crawlId: 'secure', nodeId, outboxDir: join(root, `${nodeId}-${++dirs}`) });
}

/** Sends one batch from a node owning partition 0 to one owning partition 1 and waits for it. */
async function roundTrip(connection: Connection): Promise<void> {
  let delivered!: (d: Delivery) => void;
  const got = new Promise<Delivery>((resolve) => {
    delivered = resolve;
  });
  const b = endpoint(connection, 'b');
  const a = endpoint(connection, 'a');
  await b.start([1], (d) => {
    d.ack();
    delivered(d);
  });
  await a.start([0], () => {});
  const seq = a.send(1, { kind: 'urls', from: 'a', urls: [{ url: 'https://secure.test/', depth: 0, fromUrl: null }] });
  const d = await got;
  assert.deepEqual([d.message.from, d.message.seq, d.partition], ['a', seq, 1]);
  await Promise.all([a.close(), b.close()]);
}

describe('NatsExchange credentials and TLS', () => {
  it('authenticates with a token', async () => {
    await roundTrip({ servers: [tokenServer.url], auth: { token: 's3cret' } });
  });

  it('authenticates with a user and password', async () => {
    await roundTrip({ servers: [userServer.url], auth: { user: 'shoal', pass: 'pw' } });
  });

  it('connects over TLS, verifying the server against the given CA', async () => {
    await roundTrip({ servers: [tlsServer.url], tls: { caFile: CA_FILE } });
  });

  it('fails start with a configuration error when the server refuses the credentials', async () => {
    const e = endpoint({ servers: [tokenServer.url], auth: { token: 'wrong' } }, 'intruder');
    await assert.rejects(
      e.start([0], () => {}),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.issues[0]?.path, 'auth');
        assert.match(err.message, /refused the credentials/);
        return true;
      },
    );
    await e.close();
  });

  it('fails start with a configuration error when the credentials file cannot be read', async () => {
    const e = endpoint({ servers: [tokenServer.url], auth: { credsFile: join(root, 'missing.creds') } }, 'nocreds');
    await assert.rejects(
      e.start([0], () => {}),
      (err: unknown) => err instanceof ConfigError && err.issues[0]?.path === 'auth.credsFile',
    );
    await e.close();
  });
});
