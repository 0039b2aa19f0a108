/**
 * The test web's HTTP side: one listener per loopback address (the same port on each, hosts
 * answering only on their own address), an optional forward proxy for absolute-form requests,
 * replay hosts, latency, compression, conditional GET, faults, and the request log.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { ShoalError } from '../core/errors.js';
import type { HostInfo } from './hosts.js';
import type { WebModel } from './model.js';
import { Purpose, Rng } from '../core/prng.js';
import { RequestLog, type RequestRecord } from './request-log.js';
import { FaultState, encodePage, isPlainTarget, respond, type Reply, type RespondContext } from './respond.js';
import { serveReplay, type ReplayHost } from './replay.js';
import { serveWarc, type WarcHost, type WarcReplay } from './warc-replay.js';

/** The host name of a Host header value: port and trailing dot removed. */
export function hostName(authority: string): string {
  let end = authority.length;
  const colon = authority.lastIndexOf(':');
  if (colon >= 0 && colon < end - 1) {
    let digits = true;
    for (let i = colon + 1; i < end && digits; i++) {
      const c = authority.charCodeAt(i);
      digits = c >= 48 && c <= 57;
    }
    if (digits) end = colon;
  }
  if (end > 0 && authority.charCodeAt(end - 1) === 46) end--;
  return end === authority.length ? authority : authority.slice(0, end);
}

/** An absolute-form target with an ASCII host name: authority and path (if any). */
const PLAIN_ABSOLUTE = /^http:\/\/([A-Za-z0-9.-]+(?::\d{1,5})?)(\/.*)?$/i;

/** A body cache bounded in bytes (least recently used out first). */
interface CachedBody {
  readonly body: Buffer;
  readonly contentType: string;
}

class BodyCache {
  private readonly map = new Map<string, CachedBody>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}
  get(key: string): CachedBody | undefined {
    if (this.maxBytes === 0) return undefined;
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: CachedBody): void {
    if (value.body.length > this.maxBytes / 8 || this.map.has(key)) return;
    this.map.set(key, value);
    this.bytes += value.body.length;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.body.length;
    }
  }
}

/**
 * Whether a conditional GET may be answered 304 (RFC 9110 §13.1): If-None-Match against the ETag
 * (weak comparison, `*` or a list), else If-Modified-Since against Last-Modified.
 */
export function isNotModified(req: IncomingMessage, headers: Readonly<Record<string, string>>): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) {
    const etag = headers['etag'];
    if (etag === undefined) return false;
    const opaque = etag.replace(/^W\//, '');
    return inm.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === opaque;
    });
  }
  const ims = req.headers['if-modified-since'];
  const lastModified = headers['last-modified'];
  if (ims === undefined || lastModified === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && Date.parse(lastModified) <= since;
}

/** Options of {@link TestWebServer} beyond the model's own configuration. */
export interface TestWebServerOptions {
  readonly replay: readonly ReplayHost[];
  /** WARC files served as hosts, or null. */
  readonly warc?: WarcReplay | null;
}

/** Serves a {@link WebModel} over real sockets. */
export class TestWebServer {
  readonly log: RequestLog;
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly faults = new FaultState();
  private readonly cache: BodyCache;
  private readonly replayByName = new Map<string, ReplayHost>();
  private readonly warcByName = new Map<string, WarcHost>();
  private bomb: Buffer | null = null;
  private port = 0;
  private proxyPort: number | null = null;
  private requestCounter = 0;
  private isClosed = false;
  private ctx: RespondContext | null = null;

  constructor(
    readonly model: WebModel,
    private readonly options: TestWebServerOptions,
  ) {
    const s = model.config.server;
    this.log = new RequestLog(s.requestLogLimit, s.requestLogFile);
    this.cache = new BodyCache(s.renderCacheBytes);
    for (const r of options.replay) this.replayByName.set(r.name, r);
    for (const h of options.warc?.hosts ?? []) this.warcByName.set(h.name, h);
  }

  /** The port every host listens on (after {@link listen}). */
  get listenPort(): number {
    return this.port;
  }

  /** The forward proxy's port, or null. */
  get forwardProxyPort(): number | null {
    return this.proxyPort;
  }

  /** Every address served, with the hosts on it (never the address of a host that refuses connections). */
  addresses(): string[] {
    const ips = new Set<string>();
    for (const h of this.model.hosts) if (!h.isRefusing) ips.add(h.ip);
    for (const r of this.options.replay) ips.add(r.ip);
    for (const h of this.warcByName.values()) ips.add(h.ip);
    return [...ips].sort();
  }

  /** Binds every address on one port (the configured one, or a free one found by trying). */
  async listen(): Promise<void> {
    const ips = this.addresses();
    const wanted = this.model.config.server.port;
    for (let attempt = 0; ; attempt++) {
      const first = await this.bind(ips[0] ?? '127.0.0.1', wanted, false);
      const port = first.port;
      try {
        for (const ip of ips.slice(1)) await this.bind(ip, port, false);
        this.port = port;
        break;
      } catch (err) {
        await this.closeServers();
        if (wanted !== 0 || attempt >= 20) throw err;
      }
    }
    const proxyPort = this.model.config.server.proxyPort;
    if (proxyPort !== null) {
      this.proxyPort = (await this.bind(this.model.config.server.proxyAddress, proxyPort, true)).port;
    }
    this.ctx = {
      model: this.model,
      port: this.port,
      faults: this.faults,
      pageBody: (g) => this.pageBody(g),
    };
  }

  private bind(ip: string, port: number, isProxy: boolean): Promise<{ port: number }> {
    const server = createServer({ keepAliveTimeout: 30_000, requestTimeout: 60_000 }, (req, res) => this.handle(req, res, isProxy));
    // Node hands CONNECT to a 'connect' listener, never to the request handler; without one the
    // socket is closed with no answer. The test web is plain HTTP: say so.
    server.on('connect', (_req: IncomingMessage, sock: Socket) => {
      const body = 'CONNECT is not supported: the test web is plain HTTP\n';
      sock.end(
        `HTTP/1.1 501 Not Implemented\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    server.on('connection', (sock) => {
      this.sockets.add(sock);
      sock.on('close', () => this.sockets.delete(sock));
    });
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', (err) =>
        reject(new ShoalError('PORT_UNAVAILABLE', `cannot listen on ${ip}:${port}: ${err.message}`, { cause: err })),
      );
      server.listen({ host: ip, port, exclusive: true }, () => {
        const addr = server.address();
        resolve({ port: typeof addr === 'object' && addr !== null ? addr.port : port });
      });
    });
  }

  private pageBody(g: number): { body: Buffer; contentType: string } {
    const key = `${g}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const out = encodePage(this.model, g, this.port);
    this.cache.set(key, out);
    return out;
  }

  private handle(req: IncomingMessage, res: ServerResponse, isProxy: boolean): void {
    res.sendDate = false;
    const local = req.socket.localAddress?.replace(/^::ffff:/, '') ?? '';
    let hostHeader = (req.headers.host ?? '').toLowerCase();
    let target = req.url ?? '/';
    const plain = isProxy ? PLAIN_ABSOLUTE.exec(target) : null;
    if (plain !== null && isPlainTarget(plain[2] ?? '/')) {
      // `http://host[:port]/path` with nothing for the URL parser to normalize (the common case).
      hostHeader = (plain[1] as string).toLowerCase();
      target = plain[2] ?? '/';
    } else if (isProxy || /^https?:\/\//i.test(target)) {
      try {
        const u = new URL(target);
        hostHeader = u.host.toLowerCase();
        target = `${u.pathname}${u.search}`;
      } catch {
        if (isProxy) return this.plain(req, res, null, 400, 'proxy requests must use an absolute URL\n', 'bad-request');
      }
    }
    if (req.method === 'CONNECT')
      return this.plain(req, res, null, 501, 'CONNECT is not supported: the test web is plain HTTP\n', 'bad-request');
    const name = hostName(hostHeader);
    const record = this.log.start(
      isProxy ? this.model.config.server.proxyAddress : local,
      name,
      req.method ?? 'GET',
      target,
      String(req.headers['user-agent'] ?? ''),
      isProxy,
    );
    const host = this.model.hostByName(name);
    const replay = host === undefined ? this.replayByName.get(name) : undefined;
    const warc = host === undefined && replay === undefined ? this.warcByName.get(name) : undefined;
    if (host === undefined && replay === undefined && warc === undefined) {
      return this.plain(req, res, record, isProxy ? 502 : 404, `unknown host ${name || '(none)'}\n`, 'unknown-host');
    }
    if (isProxy && host?.isRefusing === true) {
      // What a real proxy answers when the origin refuses the connection.
      return this.plain(req, res, record, 502, `${name} refused the connection\n`, 'refused');
    }
    const ip = host?.ip ?? replay?.ip ?? warc?.ip;
    if (!isProxy && ip !== local) {
      return this.plain(req, res, record, 421, `${name} is served on ${ip}, not ${local}\n`, 'misdirected');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return this.plain(req, res, record, 405, 'method not allowed\n', 'bad-request');
    }
    const delay = host === undefined ? 0 : this.latencyMs(host);
    const run = (): void => {
      if (this.isClosed) return;
      if (replay !== undefined) {
        void serveReplay(replay, target, req, res).then(({ status, bytes }) => this.log.finish(record, status, bytes, 'replay'));
        return;
      }
      if (warc !== undefined) {
        const replayed = this.options.warc as WarcReplay;
        void serveWarc(replayed, warc, target, req, res).then(({ status, bytes }) => this.log.finish(record, status, bytes, 'warc'));
        return;
      }
      const ctx = this.ctx as RespondContext;
      this.send(req, res, record, host as HostInfo, respond(ctx, host as HostInfo, target));
    };
    if (delay > 0) this.later(run, delay);
    else run();
  }

  private latencyMs(h: HostInfo): number {
    const l = this.model.config.latency;
    let ms = l.baseMs;
    if (h.slow)
      ms += new Rng(this.model.config.seed, Purpose.latency, h.index, ++this.requestCounter).logNormal(l.slowMedianMs, l.slowSigma);
    return Math.round(ms);
  }

  /** Runs `fn` in `ms` unless close() comes first; returns a function that cancels it. */
  private later(fn: () => void, ms: number): () => void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return () => {
      clearTimeout(t);
      this.timers.delete(t);
    };
  }

  private plain(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord | null,
    status: number,
    body: string,
    outcome: string,
  ): void {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
    if (record !== null) this.log.finish(record, status, Buffer.byteLength(body), outcome);
  }

  private send(req: IncomingMessage, res: ServerResponse, record: RequestRecord, host: HostInfo, reply: Reply): void {
    const page = reply.page;
    if (reply.kind === 'reset') {
      this.log.finish(record, 0, 0, 'reset', { page });
      const sock = req.socket as Socket & { resetAndDestroy?: () => void };
      if (typeof sock.resetAndDestroy === 'function') sock.resetAndDestroy();
      else sock.destroy();
      return;
    }
    if (reply.kind === 'hang') {
      res.writeHead(200, reply.headers);
      res.write(reply.prefix);
      const cancel = this.later(() => {
        this.log.finish(record, 200, reply.prefix.length, 'hang', { page });
        req.socket.destroy();
      }, this.model.config.faults.hangMs);
      res.on('close', () => {
        cancel();
        this.log.finish(record, 200, reply.prefix.length, 'hang', { page, isAborted: true });
      });
      return;
    }
    if (reply.kind === 'drip') return this.drip(req, res, record, reply);
    if (reply.kind === 'bomb') {
      const body = this.bombBody();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      this.log.finish(record, 200, body.length, 'bomb', { page });
      return;
    }
    if (reply.status === 200 && isNotModified(req, reply.headers)) {
      const etag = reply.headers['etag'];
      res.writeHead(304, etag === undefined ? { server: 'shoal-web' } : { etag, server: 'shoal-web' });
      res.end();
      this.log.finish(record, 304, 0, 'not-modified', { page });
      return;
    }
    // A flat [name, value, ...] list: cheaper for Node to write than an object built up key by key.
    const headers: (string | number)[] = ['server', 'shoal-web'];
    for (const name in reply.headers) headers.push(name, reply.headers[name] as string);
    let body = reply.body;
    if (reply.isCompressible && body.length > 256) {
      const accept = req.headers['accept-encoding'] ?? '';
      const encoding = host.brotli && /\bbr\b/.test(accept) ? 'br' : host.gzip && /\bgzip\b/.test(accept) ? 'gzip' : null;
      if (encoding !== null) {
        body = this.compress(body, encoding, reply.cacheKey);
        headers.push('content-encoding', encoding);
      }
      headers.push('vary', 'Accept-Encoding');
    }
    headers.push('content-length', body.length);
    res.writeHead(reply.status, headers as unknown as OutgoingHttpHeaders);
    res.end(req.method === 'HEAD' ? undefined : body);
    this.log.finish(record, reply.status, req.method === 'HEAD' ? 0 : body.length, reply.outcome, { page, trap: reply.trap });
  }

  /**
   * A slow drip: the head (with the full Content-Length) at once, then the body at
   * `faults.dripBytesPerSecond`, one timer per response and never more than ten writes a second;
   * after `faults.dripMs` the rest at once. It stops when the connection closes, whoever closes it.
   */
  private drip(req: IncomingMessage, res: ServerResponse, record: RequestRecord, reply: Reply & { kind: 'drip' }): void {
    const { body, page } = reply;
    res.writeHead(200, [
      'server',
      'shoal-web',
      'content-type',
      reply.contentType,
      'content-length',
      body.length,
    ] as unknown as OutgoingHttpHeaders);
    if (req.method === 'HEAD') {
      res.end();
      this.log.finish(record, 200, 0, 'drip', { page });
      return;
    }
    res.flushHeaders();
    const { dripBytesPerSecond: rate, dripMs } = this.model.config.faults;
    const stepMs = Math.max(100, Math.ceil(1000 / rate));
    const startMs = performance.now();
    let sent = 0;
    let cancel = (): void => {};
    const tick = (): void => {
      const elapsedMs = performance.now() - startMs;
      const due = elapsedMs >= dripMs ? body.length : Math.min(body.length, Math.floor((elapsedMs * rate) / 1000));
      if (due >= body.length) {
        res.end(body.subarray(sent));
        sent = body.length;
        this.log.finish(record, 200, sent, 'drip', { page });
        return;
      }
      if (due > sent) {
        res.write(body.subarray(sent, due));
        sent = due;
      }
      cancel = this.later(tick, Math.min(stepMs, Math.max(1, dripMs - elapsedMs)));
    };
    res.on('close', () => {
      cancel();
      this.log.finish(record, 200, sent, 'drip', { page, isAborted: true });
    });
    cancel = this.later(tick, Math.min(stepMs, dripMs));
  }

  private compress(body: Buffer, encoding: 'br' | 'gzip', cacheKey: string | null): Buffer {
    const key = cacheKey === null ? null : `${encoding}:${cacheKey}`;
    const hit = key === null ? undefined : this.cache.get(key);
    if (hit !== undefined) return hit.body;
    const out =
      encoding === 'br'
        ? brotliCompressSync(body, { params: { [zc.BROTLI_PARAM_QUALITY]: 4, [zc.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : gzipSync(body, { level: 6 });
    if (key !== null) this.cache.set(key, { body: out, contentType: encoding });
    return out;
  }

  private bombBody(): Buffer {
    if (this.bomb === null) {
      const size = this.model.config.faults.bombBytes;
      const raw = Buffer.alloc(size, 0x20);
      raw.write('<!DOCTYPE html><html><body><p>', 0);
      this.bomb = gzipSync(raw, { level: 9 });
    }
    return this.bomb;
  }

  private async closeServers(): Promise<void> {
    const servers = this.servers.splice(0);
    for (const s of this.sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  }

  /** Stops listening, drops open connections and pending timers. Idempotent. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.closeServers();
    await this.log.close();
  }
}
