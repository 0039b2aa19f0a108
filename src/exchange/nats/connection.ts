/**
 * Connecting to the broker: how shoal's options (servers, credentials, TLS) become the NATS client's,
 * and the connection policy every node uses.
 *
 * Policy: a node never gives up on its broker. `maxReconnectAttempts: -1` retries forever and
 * `waitOnFirstConnect` extends that to the very first connection, so a node may be started before
 * the broker (the connect promise resolves when the broker appears). While it waits, the caller is
 * told every `waitLogMs` through `log('nats-waiting', ...)` so an operator sees why nothing happens.
 */
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import {
  AuthorizationError,
  connect,
  credsAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type NatsConnection,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import { ConfigError, ShoalError } from '../../core/errors.js';

/** How a node proves who it is to the broker (all optional; combine as the server requires). */
export interface NatsAuthOptions {
  /** User name (with `pass`). */
  readonly user?: string;
  readonly pass?: string;
  /** A server token (`nats-server --auth <token>`). */
  readonly token?: string;
  /** A `.creds` file (JWT + NKey seed) issued by an operator (`nsc`). */
  readonly credsFile?: string;
}

/** TLS towards the broker. Giving this object (even empty) makes TLS required. */
export interface NatsTlsOptions {
  /** CA bundle that signed the server's certificate (PEM file). */
  readonly caFile?: string;
  /** Client certificate for mutual TLS (PEM file). */
  readonly certFile?: string;
  /** Client key for mutual TLS (PEM file). */
  readonly keyFile?: string;
}

/** Where and how to connect. */
export interface NatsConnectOptions {
  /** Broker URLs, e.g. `['nats://10.0.0.5:4222']`; several for a cluster. */
  readonly servers: readonly string[];
  /** Client name shown in the server's monitoring pages. */
  readonly name: string;
  readonly auth?: NatsAuthOptions;
  readonly tls?: NatsTlsOptions;
  /** Ms between reconnection attempts; default 1 000. */
  readonly reconnectTimeWaitMs?: number;
  /** Ms between "still waiting for the broker" log lines at start; default 5 000. */
  readonly waitLogMs?: number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The NATS client options for `options` (reads the creds file, if any). */
export async function clientOptions(options: NatsConnectOptions): Promise<NodeConnectionOptions> {
  const authenticators: Authenticator[] = [];
  const auth = options.auth ?? {};
  if (auth.credsFile !== undefined) {
    let creds: Uint8Array;
    try {
      creds = await readFile(auth.credsFile);
    } catch (err) {
      throw new ConfigError(
        [{ path: 'auth.credsFile', message: `cannot read the NATS credentials file ${auth.credsFile}: ${String(err)}` }],
        { cause: err },
      );
    }
    authenticators.push(credsAuthenticator(creds));
  }
  if (auth.user !== undefined) authenticators.push(usernamePasswordAuthenticator(auth.user, auth.pass));
  if (auth.token !== undefined) authenticators.push(tokenAuthenticator(auth.token));
  return {
    servers: [...options.servers],
    name: options.name,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 1_000,
    ...(authenticators.length > 0 ? { authenticator: authenticators } : {}),
    ...(options.tls !== undefined ? { tls: tlsOptions(options.tls, options.servers) } : {}),
  };
}

/**
 * The client's TLS options. The NATS client names the server for certificate checks only when the
 * URL has a host name; for an IP address Node would then check the certificate against
 * "localhost". When every URL names the same IP address, that address is passed as the host to
 * check, so a certificate issued for the broker's IP verifies. (Several IP URLs: use host names.)
 */
function tlsOptions(tls: NatsTlsOptions, servers: readonly string[]): NonNullable<NodeConnectionOptions['tls']> {
  const hosts = new Set(servers.map(hostOf));
  const [host] = hosts;
  const out: NonNullable<NodeConnectionOptions['tls']> & { host?: string } = { ...tls };
  if (hosts.size === 1 && host !== undefined && isIP(host) !== 0) out.host = host;
  return out;
}

/** The host of a server URL as the NATS client accepts it (`nats://h:4222`, `tls://h`, `h:4222`). */
function hostOf(server: string): string {
  const withScheme = /^[a-z]+:\/\//i.test(server) ? server : `nats://${server}`;
  try {
    return new URL(withScheme).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return '';
  }
}

/**
 * Connects, waiting for the broker as long as it takes (logging while it waits). `isCancelled` is
 * checked when the connection finally opens: a caller that gave up meanwhile gets it closed again.
 */
export async function connectNats(options: NatsConnectOptions, isCancelled: () => boolean = () => false): Promise<NatsConnection> {
  const opts = await clientOptions(options);
  const log = options.log ?? (() => {});
  const startedAt = Date.now();
  const waiting = setInterval(
    () => log('nats-waiting', { servers: options.servers, waitedMs: Date.now() - startedAt }),
    options.waitLogMs ?? 5_000,
  );
  let nc: NatsConnection;
  try {
    nc = await connect(opts);
  } catch (err) {
    // Only configuration-like failures end up here (bad URL, credentials refused, TLS mismatch):
    // retrying won't help.
    if (err instanceof AuthorizationError) {
      throw new ConfigError(
        [{ path: 'auth', message: `the NATS server at ${options.servers.join(', ')} refused the credentials: ${err.message}` }],
        { cause: err },
      );
    }
    throw new ShoalError('EXCHANGE_UNAVAILABLE', `cannot connect to NATS at ${options.servers.join(', ')}: ${String(err)}`, { cause: err });
  } finally {
    clearInterval(waiting);
  }
  if (isCancelled()) {
    await nc.close();
    throw new ShoalError('EXCHANGE_UNAVAILABLE', 'closed while connecting to NATS');
  }
  log('nats-connected', { server: nc.getServer() });
  watchStatus(nc, log);
  return nc;
}

/** Logs the connection's life (disconnects, reconnects, server errors) until it closes. */
function watchStatus(nc: NatsConnection, log: (event: string, fields: Record<string, unknown>) => void): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') log(`nats-${s.type}`, { server: s.server });
      else if (s.type === 'error') log('nats-error', { error: String(s.error) });
      else if (s.type === 'staleConnection' || s.type === 'ldm') log(`nats-${s.type}`, {});
    }
  })().catch(() => {});
}
