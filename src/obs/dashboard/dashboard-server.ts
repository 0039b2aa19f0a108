/**
 * The dashboard's HTTP server (hono on @hono/node-server): read-only endpoints, no way to change
 * the crawl.
 *
 * | path | what |
 * |---|---|
 * | `/` | the page (page-html.ts), its script `/app.js` and style `/app.css` |
 * | `/events` | server-sent events: a `snapshot` event on connect and after each {@link DashboardServer.broadcast} |
 * | `/api/state` | the current {@link DashboardSnapshot} as JSON |
 * | `/static/uPlot.iife.min.js`, `/static/uPlot.min.css` | the chart library, from the installed `uplot` package |
 *
 * Every request passes {@link refusal} first (dashboard-access.ts). `close()` ends the event streams,
 * closes every connection and the listening socket, so the server never keeps a process alive.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { ShoalError } from '../../core/errors.js';
import { refusal, type DashboardAccess } from './dashboard-access.js';
import { pageHtml } from './page-html.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import type { DashboardSnapshot } from './snapshot.js';

/** Options of {@link DashboardServer}. */
export interface DashboardServerOptions {
  /** Address to bind; see dashboard-access.ts for what a non-loopback one needs. */
  readonly host: string;
  /** Port; 0 = a free one. */
  readonly port: number;
  readonly access: DashboardAccess;
  /** The state now (called for `/api/state`, on connect and on each broadcast). */
  readonly state: () => DashboardSnapshot;
}

/** The static files of the chart library, read once from the installed package. */
function uplotFiles(): { readonly script: string; readonly style: string } {
  const require = createRequire(import.meta.url);
  return {
    script: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    style: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** An event-stream client: its stream, and whether a write to it is still under way (a slow reader skips snapshots). */
interface Client {
  readonly stream: SSEStreamingApi;
  isWriting: boolean;
  readonly end: () => void;
}

/** See the file comment. */
export class DashboardServer {
  private readonly clients = new Set<Client>();
  private server: Server | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: DashboardServerOptions) {}

  /** Listens; resolves to the page's URL (with `?token=` when there is a token). */
  async start(): Promise<{ readonly url: string; readonly port: number }> {
    if (this.server !== null) throw new Error('DashboardServer.start called twice');
    const app = this.app();
    const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as Server;
    this.server = server;
    const { host, port } = this.options;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void =>
        reject(new ShoalError('PORT_UNAVAILABLE', `dashboard: cannot listen on ${host}:${port}: ${err.message}`, { cause: err }));
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    const token = this.options.access.token;
    return { url: `http://${shownHost}:${bound}/${token === null ? '' : `?token=${encodeURIComponent(token)}`}`, port: bound };
  }

  /** Sends the current state to every event-stream client; resolves once it is written (a slow client is skipped). */
  broadcast(): Promise<void> {
    if (this.clients.size === 0) return Promise.resolve();
    const data = JSON.stringify(this.options.state());
    return Promise.all([...this.clients].map((client) => this.send(client, data))).then(() => {});
  }

  /** Ends the event streams and closes every connection and the socket. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    for (const client of this.clients) client.end();
    this.clients.clear();
    const server = this.server;
    if (server === null || !server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private send(client: Client, data: string): Promise<void> {
    if (client.isWriting) return Promise.resolve();
    client.isWriting = true;
    return client.stream.writeSSE({ event: 'snapshot', data }).then(
      () => {
        client.isWriting = false;
      },
      () => client.end(),
    );
  }

  private app(): Hono {
    const app = new Hono();
    const access = this.options.access;
    app.use('*', async (c, next) => {
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
      const refused = refusal(access, {
        queryToken: c.req.query('token'),
        authorization: c.req.header('authorization'),
        host: c.req.header('host'),
      });
      if (refused === 401) {
        c.header('WWW-Authenticate', 'Bearer realm="shoal dashboard"');
        return c.json({ error: 'a valid token is required (?token= or Authorization: Bearer)' }, 401);
      }
      if (refused === 403) return c.json({ error: 'the dashboard answers only to a loopback host name' }, 403);
      await next();
    });
    const tokenQuery = access.token === null ? '' : `?token=${encodeURIComponent(access.token)}`;
    const uplot = uplotFiles();
    app.get('/', (c) => c.html(pageHtml(tokenQuery)));
    app.get('/app.js', (c) => c.body(PAGE_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
    app.get('/app.css', (c) => c.body(PAGE_STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
    app.get('/static/uPlot.iife.min.js', (c) => c.body(uplot.script, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
    app.get('/static/uPlot.min.css', (c) => c.body(uplot.style, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
    app.get('/api/state', (c) => c.json(this.options.state()));
    app.get('/events', (c) =>
      streamSSE(c, async (stream) => {
        let end = (): void => {};
        const ended = new Promise<void>((resolve) => {
          end = resolve;
        });
        const client: Client = { stream, isWriting: false, end };
        stream.onAbort(() => end());
        if (this.closing !== null) return;
        this.clients.add(client);
        // Ask the browser to come back soon if the connection drops while the crawl goes on.
        await stream.write('retry: 2000\n\n');
        void this.send(client, JSON.stringify(this.options.state()));
        await ended;
        this.clients.delete(client);
      }),
    );
    app.notFound((c) => c.json({ error: 'not found' }, 404));
    return app;
  }
}
