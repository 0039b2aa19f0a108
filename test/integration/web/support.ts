/**
 * Shared helpers of the test-web integration tests: finding pages in the model, fetching them
 * over real sockets, and reading HTML the way a crawler would (declared charset, visible text).
 */
import { request, type IncomingMessage } from 'node:http';
import type { WebModel } from '../../../src/web/model.js';
import type { TestWeb } from '../../../src/web/start.js';
import { decodeHtml as decodeHtmlBytes } from '../../../src/parse/charset.js';
import { get, type RawResponse } from '../../helpers/http.js';

/** The first page (in id order) that satisfies `pred`; throws when none does (the config is wrong). */
export function firstPage(model: WebModel, pred: (g: number) => boolean, what: string): number {
  for (let g = 0; g < model.pageCount; g++) if (pred(g)) return g;
  throw new Error(`the test web has no ${what}: raise its rate in the test config`);
}

/** Every page that satisfies `pred`, at most `limit`. */
export function pagesWhere(model: WebModel, pred: (g: number) => boolean, limit = Infinity): number[] {
  const out: number[] = [];
  for (let g = 0; g < model.pageCount && out.length < limit; g++) if (pred(g)) out.push(g);
  return out;
}

/** GETs page g on its own host's address. */
export function fetchPage(web: TestWeb, g: number, headers: Record<string, string> = {}): Promise<RawResponse> {
  return get(web.url(g), web.hostsMap, { headers });
}

/** GETs `path` on host `name`. */
export function fetchPath(web: TestWeb, name: string, path: string, options: Parameters<typeof get>[2] = {}): Promise<RawResponse> {
  return get(`http://${name}:${web.port}${path}`, web.hostsMap, options);
}

/** The charset a page declares: Content-Type parameter first, then `<meta charset>`, else ''. */
export function declaredCharset(res: RawResponse): string {
  const header = /charset=([^;\s]+)/i.exec(String(res.headers['content-type'] ?? ''));
  if (header !== null) return (header[1] as string).toLowerCase();
  const meta = /<meta charset="([^"]+)">/i.exec(res.body.subarray(0, 1024).toString('latin1'));
  return meta === null ? '' : (meta[1] as string).toLowerCase();
}

/** The page's text decoded as its declared charset (UTF-8 when undeclared; a BOM is dropped). */
export function decodeHtml(res: RawResponse): string {
  // shoal's decoder: Node 20's TextDecoder reads windows-1252 as ISO-8859-1 (0x80-0x9F wrong).
  return decodeHtmlBytes(res.body, declaredCharset(res) || 'utf-8');
}

/** The visible text of the body: tags and the head removed, entities `&amp;` undone, spaces collapsed. */
export function visibleText(html: string): string {
  const body = html.replace(/^[\s\S]*?<body>/, '');
  return body
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The href values of every `<a>` element, with `&amp;` undone. */
export function anchorHrefs(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&amp;/g, '&'));
}

/** The page an absolute URL names in the model (percent-escapes undone, fragment dropped), or -1. */
export function pageOfUrl(model: WebModel, url: URL): number {
  const h = model.hostByName(url.hostname.toLowerCase());
  if (h === undefined || url.search !== '') return -1;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return -1;
  }
  const { page, slashless } = model.pageAtPath(h, path);
  return slashless ? -1 : page;
}

/** A request whose response is read by hand: resolves with the response as soon as headers arrive. */
export function openResponse(url: string, hostsMap: ReadonlyMap<string, string>): Promise<IncomingMessage> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostsMap.get(u.hostname), port: Number(u.port), path: u.pathname, headers: { host: u.host }, agent: false },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}
