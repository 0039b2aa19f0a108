/**
 * The `/metrics` endpoint: a crawl's {@link CrawlMetrics} in the Prometheus text format over HTTP,
 * for `shoal crawl --metrics-port` and `shoal node --metrics-port` (or a program of its own). The
 * routes are a Hono app ({@link metricsApp}), so that a bigger server (the dashboard) can mount them.
 *
 * It binds loopback unless told otherwise: a non-loopback address is refused without `allowRemote`
 * (the endpoint has no authentication). The server does not keep the process alive (its handle is
 * unref'd), and `close()` drops open connections, so a command ends as soon as its crawl does.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { ConfigError, ShoalError } from '../../core/errors.js';
import { AddressKind, classifyAddress } from '../../fetch/address-guard.js';
import type { CrawlMetrics } from './crawl-metrics.js';

/** Where to serve (the `metrics` section of the crawl configuration, once a port is chosen). */
export interface MetricsServerOptions {
  /** IP address to bind. */
  readonly host: string;
  /** TCP port; 0 = any free port. */
  readonly port: number;
  /** Whether `host` may be other than loopback. */
  readonly allowRemote: boolean;
}

/** A running endpoint. */
export interface MetricsServer {
  /** `http://HOST:PORT/metrics`. */
  readonly url: string;
  /** The port bound (the one chosen when 0 was asked for). */
  readonly port: number;
  /** Stops serving and drops open connections (idempotent). */
  close(): Promise<void>;
}

/** The routes: `GET /metrics`. */
export function metricsApp(metrics: CrawlMetrics): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'content-type': metrics.contentType }));
  return app;
}

/**
 * Serves `metrics` on `options.host`:`options.port`.
 * @throws ConfigError for a non-loopback host without `allowRemote`; ShoalError `PORT_UNAVAILABLE`
 *   when the address cannot be bound (in use, not an address of this machine).
 */
export async function startMetricsServer(metrics: CrawlMetrics, options: MetricsServerOptions): Promise<MetricsServer> {
  const { host, port } = options;
  if (!options.allowRemote && classifyAddress(host) !== AddressKind.loopback)
    throw new ConfigError([{ path: 'metrics.host', message: `${host} is not a loopback address: set metrics.allowRemote to serve it` }]);
  // Hono's Request and Response stay the adapter's own: the crawl's global fetch objects are left alone.
  const server = createAdaptorServer({ fetch: metricsApp(metrics).fetch, overrideGlobalObjects: false }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new ShoalError('PORT_UNAVAILABLE', `cannot serve metrics on ${host}:${port}: ${err.message}`, { cause: err })),
    );
    server.listen({ host, port }, () => resolve());
  });
  server.unref();
  const bound = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    port: bound,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
