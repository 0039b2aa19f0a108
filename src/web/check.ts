/**
 * A self-check of a running test web: fetches a sample of pages over real sockets (connecting to
 * each host's own address, as a crawler using the hosts map would) and counts what came back.
 * `shoal web --check N` prints it; it is also how `npm run demo` shows the web working.
 */
import { Agent, request } from 'node:http';
import type { TestWeb } from './start.js';

/** What a check saw. */
export interface CheckReport {
  readonly requested: number;
  /** Responses by status code (0 = connection refused or reset, or no complete answer in time). */
  readonly byStatus: ReadonlyMap<number, number>;
  readonly bytes: number;
  readonly elapsedMs: number;
}

/** One GET; `timeoutMs` bounds the whole exchange (a drip page is never idle, yet never done). */
function fetchOnce(
  agent: Agent,
  ip: string,
  port: number,
  host: string,
  path: string,
  timeoutMs: number,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    const done = (r: { status: number; bytes: number }): void => {
      clearTimeout(timer);
      resolve(r);
    };
    const req = request(
      { agent, host: ip, port, path, headers: { host, 'user-agent': 'shoal-web-check/1.0', 'accept-encoding': 'gzip, br' } },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, bytes }));
        res.on('close', () => {
          if (!res.complete) done({ status: 0, bytes });
        });
      },
    );
    const timer = setTimeout(() => req.destroy(), timeoutMs);
    req.on('error', () => done({ status: 0, bytes: 0 }));
    req.end();
  });
}

/** Fetches `count` pages spread evenly over the web, `concurrency` at a time. */
export async function checkTestWeb(web: TestWeb, count: number, concurrency = 16, timeoutMs = 5000): Promise<CheckReport> {
  const n = web.model.pageCount;
  const step = Math.max(1, Math.floor(n / Math.max(1, count)));
  const pages = Array.from({ length: Math.min(count, n) }, (_, i) => (i * step) % n);
  const byStatus = new Map<number, number>();
  let bytes = 0;
  let next = 0;
  const started = performance.now();
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const worker = async (): Promise<void> => {
    while (next < pages.length) {
      const g = pages[next++] as number;
      const h = web.model.hostOf(g);
      const r = await fetchOnce(agent, h.ip, web.port, `${h.name}:${web.port}`, web.model.path(g), timeoutMs);
      byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      bytes += r.bytes;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { requested: pages.length, byStatus, bytes, elapsedMs: performance.now() - started };
}
