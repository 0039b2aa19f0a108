/**
 * The Fetcher contract (fetcher-contract.ts) against UndiciFetcher and a loopback HTTP server that
 * serves the contract web as `site.test` (through a hosts map; nothing leaves 127.0.0.1). Small
 * limits make the network part quick: a 2 KiB body limit and 300 ms of silence.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CachingResolver } from '../../src/dns/caching-resolver.js';
import { HostsMap } from '../../src/dns/hosts-map.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { freePort } from '../helpers/loopback.js';
import { NETWORK_PATHS, ROUTES, fetcherContract, type FetcherWorld } from './fetcher-contract.js';

const MAX_BODY_BYTES = 2048;

/** Serves the contract web; counts requests by path and tells waiters when one arrives. */
async function startWeb(): Promise<{
  port: number;
  hits: Map<string, number>;
  requested: (path: string) => Promise<void>;
  close: () => Promise<void>;
}> {
  const hits = new Map<string, number>();
  const waiters = new Map<string, (() => void)[]>();
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    for (const wake of waiters.get(path)?.splice(0) ?? []) wake();
    const route = ROUTES[path];
    if (route !== undefined) {
      res.writeHead(route.status, route.headers).end(route.body);
      return;
    }
    switch (path) {
      case NETWORK_PATHS.big:
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('x'.repeat(MAX_BODY_BYTES + 1));
        return;
      case NETWORK_PATHS.silent:
        return;
      case NETWORK_PATHS.stalled:
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': '100' });
        res.write('x'.repeat(50));
        return;
      case NETWORK_PATHS.garbage:
        req.socket.end('HELLO THIS IS NOT HTTP\r\n\r\n');
        return;
      case NETWORK_PATHS.reset:
        req.socket.resetAndDestroy();
        return;
      case NETWORK_PATHS.conditional:
        if (req.headers['if-none-match'] === '"v1"') res.writeHead(304, { ETag: '"v1"' }).end();
        else res.writeHead(200, { ETag: '"v1"', 'Content-Type': 'text/plain' }).end('v1');
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    requested: (path) =>
      new Promise((resolve) => {
        const list = waiters.get(path) ?? [];
        list.push(resolve);
        waiters.set(path, list);
      }),
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

fetcherContract('undici', {
  make: async (): Promise<FetcherWorld> => {
    const web = await startWeb();
    const resolver = new CachingResolver({ hostsMap: HostsMap.fromEntries(['site.test=127.0.0.1']), isSystemAllowed: false });
    const fetcher = new UndiciFetcher({
      userAgent: 'shoalbot/1.0 (+https://example.org/bot)',
      resolver,
      addressPolicy: { allowLoopback: true, allowPrivate: false },
      maxBodyBytes: MAX_BODY_BYTES,
      firstByteTimeoutMs: 300,
      bodyTimeoutMs: 300,
      connectTimeoutMs: 2000,
      totalTimeoutMs: 10_000,
      minBytesPerSecond: 0,
    });
    return {
      fetcher,
      origin: `http://site.test:${web.port}`,
      run: (call) => call,
      hits: (path) => web.hits.get(path) ?? 0,
      requested: web.requested,
      close: async () => {
        await fetcher.close();
        resolver.close();
        await web.close();
      },
    };
  },
  network: {
    maxBodyBytes: MAX_BODY_BYTES,
    unknownHostUrl: 'http://nowhere.test/',
    closedPortUrl: async () => `http://127.0.0.1:${await freePort()}/`,
  },
});
