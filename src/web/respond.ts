/**
 * What the test web answers to one request on one synthetic host: robots.txt, sitemaps, pages,
 * redirects and their hops, errors and transient faults, and crawler-trap spaces. Transport
 * concerns (latency, compression, sockets, logging) are the server's.
 */
import iconv from 'iconv-lite';
import type { HostInfo, TrapKind } from './hosts.js';
import { PageKind, finalStatus, redirectInfo, type WebModel } from './model.js';
import { Purpose, Rng, hash32 } from '../core/prng.js';
import { renderPage } from './render.js';
import { MOVED_ROBOTS_PATH, TRAP_PREFIX, robotsText, sitemapXml } from './robots.js';
import { languageVocab } from './vocab.js';
import { versionedBody, type PageChanges } from './changes.js';

/**
 * A reply the server turns into bytes on the wire. `page` is the page id the request named (-1 when
 * it named none: robots.txt, sitemaps, redirect hops, trap URLs, unknown paths); the request log
 * records it.
 */
export type Reply =
  | {
      readonly kind: 'body';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Buffer;
      /** Whether the server may compress it (per host, when the client accepts it). */
      readonly isCompressible: boolean;
      /** Stable key for the render cache, or null when the reply must not be cached. */
      readonly cacheKey: string | null;
      readonly outcome: string;
      readonly page: number;
      /** The trap kind of a trap page, else null. */
      readonly trap: TrapKind | null;
    }
  | { readonly kind: 'reset'; readonly outcome: string; readonly page: number }
  | { readonly kind: 'hang'; readonly headers: Readonly<Record<string, string>>; readonly prefix: Buffer; readonly page: number }
  | { readonly kind: 'bomb'; readonly page: number }
  /** A slow drip: the head at once, then `body` at `faults.dripBytesPerSecond` (server.ts). */
  | { readonly kind: 'drip'; readonly contentType: string; readonly body: Buffer; readonly page: number };

const TEXT = 'text/plain; charset=utf-8';

function text(status: number, body: string, outcome: string, extra: Record<string, string> = {}, page = -1): Reply {
  return {
    kind: 'body',
    status,
    headers: { 'content-type': TEXT, ...extra },
    body: Buffer.from(body),
    isCompressible: false,
    cacheKey: null,
    outcome,
    page,
    trap: null,
  };
}

/** Per-server memory of transient faults (attempts so far per page and per robots.txt). */
export class FaultState {
  private readonly attempts = new Map<string, number>();
  /** Counts this attempt and tells whether it is still within the first `n` (failing) ones. */
  isFailing(key: string, n: number): boolean {
    const a = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, a);
    return a <= n;
  }
}

/** Everything `respond` needs besides the request. */
export interface RespondContext {
  readonly model: WebModel;
  readonly port: number;
  readonly faults: FaultState;
  /** Renders (or fetches from cache) the encoded body of a content page. */
  readonly pageBody: (g: number) => { body: Buffer; contentType: string };
  /** Pages that change over time, and the wall clock they change by; null for a static Web. */
  readonly changes?: { readonly pages: PageChanges; readonly nowMs: () => number } | null;
}

/** Origin of a host as the server is reached: `http://name:port`. */
export function originOf(h: HostInfo, port: number): string {
  return `http://${h.name}${port === 80 ? '' : `:${port}`}`;
}

/**
 * Request targets that WHATWG URL parsing leaves exactly as they are: a path of unreserved and
 * sub-delimiter characters, optionally a non-empty query of the same (but `'`, which the URL
 * parser escapes there) plus '/', '?' and escapes; no dot segments.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]+)?$/;

/** Whether URL parsing would leave an origin-form request target exactly as it is. */
export function isPlainTarget(raw: string): boolean {
  return PLAIN_TARGET.test(raw) && !raw.includes('/.');
}

/** Decodes a request path: percent-escapes undone, dot segments resolved, query split off. */
export function decodeTarget(raw: string): { path: string; query: string } | null {
  if (isPlainTarget(raw)) {
    // Nothing to decode or resolve (the common case): skip the URL parser.
    const q = raw.indexOf('?');
    return q < 0 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q) };
  }
  let url: URL;
  try {
    url = new URL(raw, 'http://x');
  } catch {
    return null;
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  return { path, query: url.search };
}

/** The encoded body and content type of a content page. */
export function encodePage(model: WebModel, g: number, port: number): { body: Buffer; contentType: string } {
  const r = renderPage(model, g, port);
  const cs = r.charset === '' ? 'utf-8' : r.charset;
  let body = cs === 'utf-8' ? Buffer.from(r.html, 'utf8') : iconv.encode(r.html, cs);
  if (r.hasBom) body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
  if (model.pageKind[model.contentId(g)] === PageKind.oversized) body = pad(model, g, body, cs);
  const contentType = r.isCharsetInHeader ? `text/html; charset=${cs}` : 'text/html';
  return { body, contentType };
}

function pad(model: WebModel, g: number, body: Buffer, charset: string): Buffer {
  const target = model.config.faults.oversizedBytes;
  const vocab = languageVocab(model.langOf(g));
  const rng = new Rng(model.config.seed, Purpose.pageText, model.contentId(g), 5);
  const chunk = `<p>${Array.from({ length: 200 }, () => rng.pick(vocab.filler)).join(' ')}</p>\n`;
  const encoded = charset === 'utf-8' ? Buffer.from(chunk) : iconv.encode(chunk, charset);
  const close = body.lastIndexOf('</body>');
  const headPart = close < 0 ? body : body.subarray(0, close);
  const tail = close < 0 ? Buffer.alloc(0) : body.subarray(close);
  const n = Math.max(0, Math.ceil((target - body.length) / encoded.length));
  return Buffer.concat([headPart, ...Array<Buffer>(n).fill(encoded), tail]);
}

/** Answers one request for host h. */
export function respond(ctx: RespondContext, h: HostInfo, rawTarget: string): Reply {
  const { model, port } = ctx;
  const target = decodeTarget(rawTarget);
  if (target === null) return text(400, 'bad request target\n', 'bad-request');
  const { path, query } = target;
  const origin = originOf(h, port);

  if (path === '/robots.txt') return robots(ctx, h, origin);
  if (path === MOVED_ROBOTS_PATH && h.robots === 'redirect') {
    return text(200, robotsText(model, h, origin), 'robots');
  }
  if (path.startsWith('/sitemap')) {
    const xml = sitemapXml(model, h, path, origin);
    if (xml !== null) {
      return {
        kind: 'body',
        status: 200,
        headers: { 'content-type': 'application/xml' },
        body: Buffer.from(xml),
        isCompressible: true,
        cacheKey: null,
        outcome: 'sitemap',
        page: -1,
        trap: null,
      };
    }
  }
  const hop = path.startsWith('/go/') ? /^\/go\/(\d+)\/(\d+)$/.exec(path) : null;
  if (hop !== null) return redirectHop(ctx, h, Number(hop[1]), Number(hop[2]));
  const loop = path.startsWith('/loop/') ? /^\/loop\/(\d+)\/(\d+)$/.exec(path) : null;
  if (loop !== null) {
    const g = Number(loop[1]);
    if (g >= h.firstPage && g < h.firstPage + h.pageCount && model.pageKind[g] === PageKind.redirectLoop) {
      return text(302, 'moved\n', 'redirect-hop', { location: `/loop/${g}/${(Number(loop[2]) + 1) % 3}` });
    }
  }
  if (h.trap !== null) {
    const trap = trapPage(ctx, h, path, query);
    if (trap !== null) return trap;
  }
  const { page, slashless } = model.pageAtPath(h, path);
  if (page < 0) return text(404, 'not found\n', 'not-found');
  if (slashless) return text(301, 'moved\n', 'slash-redirect', { location: `${model.path(page)}${query}` }, page);
  return pageReply(ctx, h, page);
}

function robots(ctx: RespondContext, h: HostInfo, origin: string): Reply {
  const { model } = ctx;
  switch (h.robots) {
    case 'not-found':
      return text(404, 'not found\n', 'robots');
    case 'server-error':
      return text(500, 'internal error\n', 'robots');
    case 'empty':
      return text(200, '', 'robots');
    case 'garbage':
      return {
        kind: 'body',
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from('<html><body><h1>Welcome</h1><p>Disallow everything? <b>No</b>.</p></body></html>\n'),
        isCompressible: false,
        cacheKey: null,
        outcome: 'robots',
        page: -1,
        trap: null,
      };
    case 'redirect':
      return text(301, 'moved\n', 'robots', { location: `${origin}${MOVED_ROBOTS_PATH}` });
    case 'unavailable':
      if (ctx.faults.isFailing(`robots:${h.index}`, model.config.robots.unavailableAttempts)) {
        return text(503, 'unavailable\n', 'robots', { 'retry-after': String(model.config.faults.retryAfterSeconds) });
      }
      return text(200, robotsText(model, h, origin), 'robots');
    default:
      return text(200, robotsText(model, h, origin), 'robots');
  }
}

function locationOf(ctx: RespondContext, from: HostInfo, g: number): string {
  const t = ctx.model.hostOf(g);
  return t.index === from.index ? ctx.model.path(g) : ctx.model.url(g, ctx.port);
}

function redirectHop(ctx: RespondContext, h: HostInfo, g: number, k: number): Reply {
  const { model } = ctx;
  if (g < h.firstPage || g >= h.firstPage + h.pageCount || model.pageKind[g] !== PageKind.redirect) {
    return text(404, 'not found\n', 'not-found');
  }
  const info = redirectInfo(model, g);
  if (k < 1 || k > info.hops) return text(404, 'not found\n', 'not-found');
  const location = k < info.hops ? `/go/${g}/${k + 1}` : locationOf(ctx, h, info.target);
  return text(info.status, 'moved\n', 'redirect-hop', { location });
}

function pageReply(ctx: RespondContext, h: HostInfo, g: number): Reply {
  const { model } = ctx;
  const f = model.config.faults;
  const kind = model.pageKind[g] as number;
  switch (kind) {
    case PageKind.redirect: {
      const info = redirectInfo(model, g);
      const location = info.hops > 0 ? `/go/${g}/1` : locationOf(ctx, h, info.target);
      return text(info.status, 'moved\n', 'redirect', { location }, g);
    }
    case PageKind.redirectLoop:
      return text(302, 'moved\n', 'redirect', { location: `/loop/${g}/0` }, g);
    case PageKind.notFound:
    case PageKind.gone:
    case PageKind.serverError:
      return text(finalStatus(model, g), 'error\n', 'error', {}, g);
    case PageKind.unavailable:
      if (ctx.faults.isFailing(`page:${g}`, f.unavailableAttempts)) {
        return text(503, 'unavailable\n', 'unavailable', { 'retry-after': String(f.retryAfterSeconds) }, g);
      }
      break;
    case PageKind.reset:
      if (ctx.faults.isFailing(`page:${g}`, f.resetAttempts)) return { kind: 'reset', outcome: 'reset', page: g };
      break;
    case PageKind.bomb:
      return { kind: 'bomb', page: g };
    case PageKind.hang: {
      const { body, contentType } = ctx.pageBody(g);
      return { kind: 'hang', headers: { 'content-type': contentType }, prefix: body.subarray(0, Math.min(512, body.length)), page: g };
    }
    case PageKind.drip: {
      const { body, contentType } = ctx.pageBody(g);
      return { kind: 'drip', contentType, body, page: g };
    }
    default:
      break;
  }
  const { body: staticBody, contentType } = ctx.pageBody(g);
  const cid = model.contentId(g);
  const changes = ctx.changes ?? null;
  const nowMs = changes === null ? 0 : changes.nowMs();
  const version = changes === null ? 0 : changes.pages.versionAt(g, nowMs);
  const body = versionedBody(staticBody, model.config.seed, g, version);
  const tag = hash32(model.config.seed, cid, body.length, ctx.port).toString(16);
  const etag = version === 0 ? `"${tag}"` : `"${tag}-${version}"`;
  const changedMs = version === 0 ? null : changes?.pages.lastChangeMs(g, nowMs);
  return {
    kind: 'body',
    status: 200,
    headers: {
      'content-type': contentType,
      etag,
      'last-modified': changedMs === null || changedMs === undefined ? lastModified(model, cid) : new Date(changedMs).toUTCString(),
    },
    body,
    isCompressible: true,
    cacheKey: version === 0 ? String(g) : `${g}@${version}`,
    outcome: 'page',
    page: g,
    trap: null,
  };
}

/** Last-Modified dates: one of the 2,190 days from 2020-01-01, formatted once each. */
const LAST_MODIFIED_DAYS = 6 * 365;
const lastModifiedText: string[] = [];

function lastModified(model: WebModel, cid: number): string {
  const day = new Rng(model.config.seed, Purpose.pageAttrs, cid, 3).int(LAST_MODIFIED_DAYS);
  let text = lastModifiedText[day];
  if (text === undefined) {
    text = new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toUTCString();
    lastModifiedText[day] = text;
  }
  return text;
}

/** Pages of the crawler-trap spaces: valid forever, each linking deeper. */
function trapPage(ctx: RespondContext, h: HostInfo, path: string, query: string): Reply | null {
  const trap = h.trap;
  if (trap === null || !path.startsWith(TRAP_PREFIX[trap])) return null;
  const links: string[] = ['/'];
  if (trap === 'calendar') {
    const m = /^\/calendar\/(\d{1,6})\/(\d{1,2})\/(?:(\d{1,2})\/)?$/.exec(path);
    if (m === null) return null;
    const y = Number(m[1]);
    const mo = Number(m[2]);
    if (mo < 1 || mo > 12) return null;
    const prev = mo === 1 ? `/calendar/${y - 1}/12/` : `/calendar/${y}/${mo - 1}/`;
    const next = mo === 12 ? `/calendar/${y + 1}/1/` : `/calendar/${y}/${mo + 1}/`;
    links.push(prev, next, `/calendar/${y}/${mo}/1/`, `/calendar/${y}/${mo}/15/`);
  } else if (trap === 'session') {
    const m = /^\/s\/([0-9a-f]{1,16})\/$/.exec(path);
    if (m === null) return null;
    const sid = parseInt(m[1]!.slice(0, 8), 16);
    for (let i = 1; i <= 2; i++) links.push(`/s/${hash32(sid, i, h.index).toString(16)}/`);
  } else if (trap === 'repeat') {
    if (!/^\/archive\/(archive\/)*$/.test(path)) return null;
    links.push('archive/');
  } else if (trap === 'query') {
    if (path !== '/search') return null;
    const n = (query.match(/&/g)?.length ?? 0) + 1;
    links.push(`/search${query === '' ? '?q=1' : query}&p${n}=${hash32(n, h.index) % 1000}`);
  } else {
    // One short parameter and a growing number: the URL hardly grows, no parameter is added.
    const m = path === '/q' ? /^\?p=([1-9]\d{0,15})$/.exec(query) : null;
    const p = m === null ? 0 : Number(m[1]);
    if (!Number.isSafeInteger(p + 1) || p === 0) return null;
    if (p > 1) links.push(`/q?p=${p - 1}`);
    links.push(`/q?p=${p + 1}`);
  }
  const vocab = languageVocab(ctx.model.langOf(h.firstPage));
  const rng = new Rng(ctx.model.config.seed, Purpose.trap, h.index, path.length + query.length);
  const words = Array.from({ length: 60 }, () => rng.pick(vocab.filler)).join(' ');
  const html =
    `<!DOCTYPE html>\n<html><head><meta ` +
    `charset="utf-8"><title>${path}</title></head>\n<body><p>${words}</p>\n${links.map((l) => `<a href="${l.replace(/&/g, '&amp;')}">${l}</a>`).join('\n')}\n</body></html>\n`;
  return {
    kind: 'body',
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: Buffer.from(html),
    isCompressible: true,
    cacheKey: null,
    outcome: 'trap',
    page: -1,
    trap,
  };
}
