/**
 * A small HTTP server on 127.0.0.1 for tests of slow responses: each path answers a whole body at
 * once, or sends its head and then drips its body a few bytes at a time on a timer, until it has
 * sent everything or the client goes away. Every request is logged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a path answers. */
export type DripRoute =
  | { readonly kind: 'whole'; readonly status?: number; readonly contentType?: string; readonly body: string }
  /** The head at once, then `bytesPerTick` bytes every `tickMs`; `totalBytes` in all (default: until the client leaves). */
  | {
      readonly kind: 'drip';
      readonly status?: number;
      readonly bytesPerTick: number;
      readonly tickMs: number;
      readonly totalBytes?: number;
    };

/** A running server. */
export interface DripServer {
  readonly port: number;
  /** Paths requested, in order (the request line's target). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Starts a server answering `route(path)`; unknown paths (null) get a 404. */
export async function startDripServer(route: (path: string) => DripRoute | null): Promise<DripServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    const r = route(path);
    if (r === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here\n');
      return;
    }
    if (r.kind === 'whole') {
      res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'text/html; charset=utf-8' }).end(r.body);
      return;
    }
    res.writeHead(r.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
    res.flushHeaders();
    let sent = 0;
    const total = r.totalBytes ?? Number.POSITIVE_INFINITY;
    const timer = setInterval(() => {
      const n = Math.min(r.bytesPerTick, total - sent);
      sent += n;
      res.write('x'.repeat(n));
      if (sent >= total) {
        clearInterval(timer);
        res.end();
      }
    }, r.tickMs);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
