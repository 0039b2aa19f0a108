/**
 * A tiny HTTP/1.1 client for tests: connects to the IP a hosts map gives for the URL's host (as
 * a crawler with `--resolve` would), sends the request, and returns status, headers and raw body.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

/** A response as bytes. */
export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** GETs `url`, connecting to `hostsMap.get(host)` (or the proxy when `proxy` is set). */
export function get(
  url: string,
  hostsMap: ReadonlyMap<string, string>,
  options: { headers?: Record<string, string>; method?: string; proxy?: string; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  const proxy = options.proxy === undefined ? null : new URL(options.proxy);
  const ip = proxy?.hostname ?? hostsMap.get(u.hostname);
  if (ip === undefined) return Promise.reject(new Error(`no address for ${u.hostname}`));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: ip,
        port: proxy === null ? Number(u.port || 80) : Number(proxy.port),
        method: options.method ?? 'GET',
        path: proxy === null ? `${u.pathname}${u.search}` : url,
        headers: { host: u.host, ...options.headers },
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
