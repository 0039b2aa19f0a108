/**
 * A private nats-server with JetStream for one test file.
 *
 * Tests never touch a shared broker (one may run on 127.0.0.1:4222): each call starts its own
 * `nats-server -js` on a free loopback port with a fresh store directory, and removes both when the
 * test file ends. `restart()` keeps the port and the store, so streams, consumers and stored messages
 * survive it, as they survive a real broker restart.
 *
 * The binary is required: when it is missing the helper throws (tests fail, never skip), because a
 * CI run that silently skips the distributed tests proves nothing.
 *
 * Call it at the top level of a test file (`const server = await startNatsServer();`) or inside a
 * test: cleanup is registered with node:test's `after` on the current context, and inside a
 * `before` hook that context is the hook itself, so the server would stop as soon as the hook ends.
 * A process `exit` handler also kills the server, so a test process that dies leaves no orphan.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { findNatsServer, freePort } from './loopback.js';

/** A running test broker. */
export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** JetStream's store directory (removed when the test file ends). */
  readonly storeDir: string;
  /** Stops the server gracefully (SIGTERM) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
  /** Stops it if running, then starts it again on the same port and store directory. */
  restart(): Promise<void>;
  /** SIGKILLs the server at once (a crashed broker); `restart()` brings it back. */
  kill(): void;
}

/** Options for {@link startNatsServer}. */
export interface NatsServerOptions {
  /** Extra command-line arguments, e.g. `['--auth', 'secret']` to require a token. */
  readonly args?: readonly string[];
  /** How the readiness check connects when `args` require credentials or TLS. */
  readonly client?: {
    readonly token?: string;
    readonly user?: string;
    readonly pass?: string;
    readonly tls?: { readonly caFile?: string };
  };
  /** Ms to wait for the server to become ready; default 15 000. */
  readonly readyTimeoutMs?: number;
}

const INSTALL_HINT =
  'nats-server is not installed: install it (`apt-get install -y nats-server`, or a release from ' +
  'https://github.com/nats-io/nats-server/releases) so the NATS exchange tests can run';

/** Starts a private JetStream-enabled nats-server; it is stopped and its store removed by `after`. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<TestNatsServer> {
  const binary = findNatsServer();
  if (binary === null) throw new Error(INSTALL_HINT);
  const storeDir = mkdtempSync(join(tmpdir(), 'shoal-nats-'));
  const port = await freePort();
  const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  let proc: ChildProcess | null = null;

  const launch = async (): Promise<void> => {
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...(options.args ?? [])];
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    proc = child;
    await waitForReadyLine(child, readyTimeoutMs);
    await checkJetStream(port, options.client);
  };
  const stop = async (): Promise<void> => {
    const child = proc;
    proc = null;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  };

  const killNow = (): void => {
    proc?.kill('SIGKILL');
    rmSync(storeDir, { recursive: true, force: true });
  };
  process.once('exit', killNow);
  after(async () => {
    process.off('exit', killNow);
    await stop();
    rmSync(storeDir, { recursive: true, force: true });
  });
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    kill: () => {
      const child = proc;
      proc = null;
      child?.kill('SIGKILL');
    },
  };
}

/**
 * Resolves when the server logs "Server is ready" (printed after JetStream is enabled and the
 * client listener is open); rejects if it exits first or takes longer than `timeoutMs`.
 */
function waitForReadyLine(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => finish(new Error(`nats-server not ready after ${timeoutMs} ms:\n${log}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes('Server is ready')) finish(null);
    };
    const onExit = (code: number | null, signal: string | null): void =>
      finish(new Error(`nats-server exited (${code ?? signal}) before it was ready:\n${log}`));
    const onError = (err: Error): void => finish(new Error(`${INSTALL_HINT} (${err.message})`, { cause: err }));
    function finish(err: Error | null): void {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining stderr so a chatty server never blocks on a full pipe.
      child.stderr?.resume();
      if (err === null) resolve();
      else {
        child.kill('SIGKILL');
        reject(err);
      }
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/** One JetStream API call, so "ready" also means JetStream answers, not only the socket. */
async function checkJetStream(port: number, client: NatsServerOptions['client']): Promise<void> {
  // `host`: the client would check the certificate against "localhost" for an IP URL.
  const tls = client?.tls === undefined ? undefined : { ...client.tls, host: '127.0.0.1' };
  const nc = await connect({ servers: `127.0.0.1:${port}`, timeout: 5_000, ...client, tls });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.getAccountInfo();
  } finally {
    await nc.close();
  }
}
