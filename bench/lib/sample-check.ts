/**
 * A spot check before load: fetches a few of the pages the load will request, the same way (proxy
 * or direct), and tells how many answered 200 with an HTML body.
 */
import { request } from 'node:http';
import type { AddressMode, PageRef } from './protocol.js';

/** Outcome of a spot check. */
export interface SampleCheck {
  readonly checked: number;
  /** Pages that answered 200 with `text/html` and a non-empty body. */
  readonly ok: number;
  /** Status counts (0 = connection error). */
  readonly statuses: Readonly<Record<string, number>>;
}

function fetchStatus(
  page: PageRef,
  mode: AddressMode,
  port: number,
  proxyUrl: string | null,
): Promise<{ status: number; isHtml: boolean }> {
  const proxy = mode === 'proxy' && proxyUrl !== null ? new URL(proxyUrl) : null;
  return new Promise((resolve) => {
    const req = request(
      {
        host: proxy?.hostname ?? page.ip,
        port: proxy === null ? port : Number(proxy.port),
        path: proxy === null ? page.path : `http://${page.authority}${page.path}`,
        headers: { host: page.authority },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, isHtml: bytes > 0 && /^text\/html/.test(res.headers['content-type'] ?? '') }),
        );
        res.on('error', () => resolve({ status: 0, isHtml: false }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, isHtml: false }));
    req.end();
  });
}

/** Fetches up to `n` pages spread over the list, one after the other. */
export async function sampleCheck(
  pages: readonly PageRef[],
  n: number,
  mode: AddressMode,
  port: number,
  proxyUrl: string | null,
): Promise<SampleCheck> {
  const statuses: Record<string, number> = {};
  let ok = 0;
  const count = Math.min(n, pages.length);
  for (let i = 0; i < count; i++) {
    const page = pages[Math.floor((i * pages.length) / count)] as PageRef;
    const { status, isHtml } = await fetchStatus(page, mode, port, proxyUrl);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === 200 && isHtml) ok++;
  }
  return { checked: count, ok, statuses };
}
