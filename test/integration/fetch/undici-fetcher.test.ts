/**
 * The undici fetcher against the test web on loopback: every outcome kind the Web can cause, the
 * bytes a WARC writer needs, connection reuse, the address guard at connect time, the forward
 * proxy, and cancellation. Timeouts use the test web's hang and latency faults with small limits
 * and assert the outcome and its phase, never elapsed time.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import { ResolveSource, type ResolveResult, type Resolver } from '../../../src/dns/resolver.js';
import type { AddressPolicy } from '../../../src/fetch/address-guard.js';
import { isRetryable, type FetchOutcome } from '../../../src/fetch/fetcher.js';
import { UndiciFetcher, type UndiciFetcherOptions } from '../../../src/fetch/undici-fetcher.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { PageKind, redirectInfo } from '../../../src/web/model.js';
import { encodePage } from '../../../src/web/respond.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';

const MiB = 1024 * 1024;
const USER_AGENT = 'shoalbot/1.0 (+https://example.org/bot)';
const LOOPBACK: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const CONFIG = {
  seed: 1,
  hosts: 20,
  pages: 2000,
  server: { addressCount: 4, proxyPort: 0 },
  latency: { slowHostRate: 0 },
  faults: {
    redirectRate: 0.05,
    maxRedirectChain: 3,
    notFoundRate: 0.005,
    goneRate: 0.005,
    serverErrorRate: 0.005,
    unavailableRate: 0.005,
    unavailableAttempts: 2,
    retryAfterSeconds: 7,
    resetRate: 0.005,
    resetAttempts: 1,
    hangRate: 0.01,
    hangMs: 20_000,
    oversizedRate: 0.005,
    oversizedBytes: 300_000,
    bombRate: 0.005,
    bombBytes: 4 * MiB,
  },
  encoding: { gzipRate: 0.5, brotliRate: 0.4 },
} satisfies WebConfigInput;

let web: TestWeb;
let resolver: CachingResolver;
const fetchers: UndiciFetcher[] = [];

/** A fetcher on the test web's hosts map; closed after the suite. */
function fetcher(options: Partial<UndiciFetcherOptions> = {}): UndiciFetcher {
  const f = new UndiciFetcher({ userAgent: USER_AGENT, resolver, addressPolicy: LOOPBACK, ...options });
  fetchers.push(f);
  return f;
}

/** Pages (in id order) of `kind` whose host satisfies `hostPred`, at most `limit`. */
function pages(kind: number, limit: number, hostPred: (h: { gzip: boolean; brotli: boolean }) => boolean = () => true): number[] {
  const out: number[] = [];
  for (let g = 0; g < web.model.pageCount && out.length < limit; g++) {
    if (web.model.pageKind[g] === kind && hostPred(web.model.hostOf(g))) out.push(g);
  }
  assert.ok(out.length > 0, `the test web has no page of kind ${kind}: raise its rate`);
  return out;
}
const page = (kind: number, hostPred?: (h: { gzip: boolean; brotli: boolean }) => boolean): number => pages(kind, 1, hostPred)[0] as number;

function expectKind<K extends FetchOutcome['kind']>(o: FetchOutcome, kind: K): Extract<FetchOutcome, { kind: K }> {
  assert.equal(
    o.kind,
    kind,
    `expected ${kind}, got ${JSON.stringify({ ...o, request: undefined, response: undefined, body: undefined, rawBody: undefined })}`,
  );
  return o as Extract<FetchOutcome, { kind: K }>;
}

/** Resolves when undici next receives a response head (its public diagnostics channel). */
function nextResponseHead(): Promise<void> {
  const headers = channel('undici:request:headers');
  return new Promise((resolve) => {
    const once = (): void => {
      headers.unsubscribe(once);
      resolve();
    };
    headers.subscribe(once);
  });
}

before(async () => {
  web = await startTestWeb(CONFIG);
  resolver = new CachingResolver({ hostsMap: HostsMap.fromHostsFile(readFileSync(web.hostsFile, 'utf8')), isSystemAllowed: false });
});
after(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await web.close();
});

describe('pages', () => {
  test('ok: the decoded body is the page the model renders, for br, gzip and identity hosts', async () => {
    const f = fetcher();
    const cases = [
      { encoding: 'br', g: page(PageKind.ok, (h) => h.brotli) },
      { encoding: 'gzip', g: page(PageKind.ok, (h) => h.gzip && !h.brotli) },
      { encoding: null, g: page(PageKind.ok, (h) => !h.gzip && !h.brotli) },
    ];
    for (const { encoding, g } of cases) {
      const ok = expectKind(await f.fetch({ url: web.url(g) }), 'ok');
      const expected = encodePage(web.model, g, web.port);
      assert.ok(ok.body.equals(expected.body), `${web.url(g)}: decoded body differs (${encoding})`);
      assert.deepEqual(ok.contentEncodings, encoding === null ? [] : [encoding]);
      assert.equal(ok.response.headers['content-encoding'], encoding ?? undefined);
      assert.equal(ok.rawBody.length, Number(ok.response.headers['content-length']), 'raw body is the bytes as sent');
      if (encoding !== null) assert.ok(ok.rawBody.length < ok.body.length, 'raw body is still compressed');
      const expectedType = /^([^;]+)(?:; charset=(.*))?$/.exec(expected.contentType);
      assert.equal(ok.contentType, expectedType?.[1]);
      assert.equal(ok.charset, expectedType?.[2] ?? null);
      assert.equal(ok.ip, web.model.hostOf(g).ip);
      assert.equal(ok.response.status, 200);
      assert.ok(ok.timings.totalMs >= (ok.timings.firstByteMs ?? 0));
    }
  });

  test('request bytes and the raw response head are well-formed and match what the server saw', async () => {
    const f = fetcher();
    const g = page(PageKind.ok);
    const url = new URL(web.url(g));
    const referer = web.url(0);
    const ok = expectKind(await f.fetch({ url: url.href, referer }), 'ok');
    const request = ok.request.toString('latin1');
    assert.match(request, /^GET \S+ HTTP\/1\.1\r\n(?:[a-z-]+: [^\r\n]*\r\n)+\r\n$/);
    assert.ok(request.startsWith(`GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n`), request);
    for (const line of [
      `user-agent: ${USER_AGENT}`,
      'accept-encoding: gzip, deflate, br',
      `referer: ${referer}`,
      'connection: keep-alive',
    ]) {
      assert.ok(request.includes(`\r\n${line}\r\n`), `request has ${line}`);
    }
    const head = ok.response.raw.toString('latin1');
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+: [^\r\n]*\r\n)+\r\n$/);
    const lines = head
      .split('\r\n')
      .slice(1, -2)
      .map((l) => l.split(': ') as [string, string]);
    assert.ok(
      lines.some(([n]) => n === 'Keep-Alive'),
      'header case is kept as received',
    );
    assert.deepEqual(Object.fromEntries(lines.map(([n, v]) => [n.toLowerCase(), v])), { ...ok.response.headers });
    const seen = web.log
      .entries()
      .filter((r) => r.path === url.pathname)
      .at(-1);
    assert.equal(seen?.userAgent, USER_AGENT);
    assert.equal(seen?.method, 'GET');
  });

  test('HEAD: status and headers, no body', async () => {
    const g = page(PageKind.ok, (h) => !h.gzip && !h.brotli);
    const ok = expectKind(await fetcher().fetch({ url: web.url(g), method: 'HEAD' }), 'ok');
    assert.equal(ok.body.length, 0);
    assert.equal(Number(ok.response.headers['content-length']), encodePage(web.model, g, web.port).body.length);
    assert.match(ok.request.toString('latin1'), /^HEAD /);
  });

  test('conditional GET: a matching ETag or Last-Modified gives not-modified', async () => {
    const f = fetcher();
    const g = page(PageKind.ok);
    const ok = expectKind(await f.fetch({ url: web.url(g) }), 'ok');
    const etag = ok.response.headers['etag'];
    const lastModified = ok.response.headers['last-modified'];
    assert.ok(etag !== undefined && lastModified !== undefined);
    const byTag = expectKind(await f.fetch({ url: web.url(g), etag }), 'not-modified');
    assert.equal(byTag.response.status, 304);
    assert.ok(byTag.request.toString('latin1').includes(`\r\nif-none-match: ${etag}\r\n`));
    expectKind(await f.fetch({ url: web.url(g), lastModified }), 'not-modified');
    expectKind(await f.fetch({ url: web.url(g), etag: '"other"' }), 'ok');
  });
});

describe('redirects and HTTP errors', () => {
  test('redirects are returned with their status and Location resolved, not followed', async () => {
    const f = fetcher();
    const before = web.log.count;
    const gs = pages(PageKind.redirect, 12);
    for (const g of gs) {
      const info = redirectInfo(web.model, g);
      const r = expectKind(await f.fetch({ url: web.url(g) }), 'redirect');
      assert.equal(r.response.status, info.status);
      const origin = new URL(web.url(g)).origin;
      assert.equal(r.location, info.hops > 0 ? `${origin}/go/${g}/1` : web.url(info.target), web.url(g));
      assert.equal(isRetryable(r), false);
    }
    assert.equal(web.log.count - before, gs.length, 'one request per redirect: none was followed');
  });

  test('404, 410 and 500 are http-errors with their short body; only 500 is retryable', async () => {
    const f = fetcher();
    for (const [kind, status] of [
      [PageKind.notFound, 404],
      [PageKind.gone, 410],
      [PageKind.serverError, 500],
    ] as const) {
      const e = expectKind(await f.fetch({ url: web.url(page(kind)) }), 'http-error');
      assert.equal(e.response.status, status);
      assert.equal(e.body.toString(), 'error\n');
      assert.equal(e.isBodyTruncated, false);
      assert.equal(e.retryAfterMs, null);
      assert.equal(isRetryable(e), status === 500);
    }
  });

  test('an error body longer than the cap is truncated', async () => {
    const e = expectKind(await fetcher({ maxErrorBodyBytes: 4 }).fetch({ url: web.url(page(PageKind.notFound)) }), 'http-error');
    assert.equal(e.body.toString(), 'erro');
    assert.equal(e.isBodyTruncated, true);
  });

  test('503 carries Retry-After in ms, then the page recovers', async () => {
    const f = fetcher();
    const g = page(PageKind.unavailable);
    for (let i = 0; i < CONFIG.faults.unavailableAttempts; i++) {
      const e = expectKind(await f.fetch({ url: web.url(g) }), 'http-error');
      assert.equal(e.response.status, 503);
      assert.equal(e.retryAfterMs, CONFIG.faults.retryAfterSeconds * 1000);
      assert.equal(isRetryable(e), true);
    }
    expectKind(await f.fetch({ url: web.url(g) }), 'ok');
  });
});

describe('network faults', () => {
  test('a connection reset before the response is `reset`, and retryable', async () => {
    const f = fetcher();
    const g = page(PageKind.reset);
    const r = expectKind(await f.fetch({ url: web.url(g) }), 'reset');
    assert.equal(r.response, null);
    assert.match(r.request?.toString('latin1') ?? '', /^GET /, 'the request had been written');
    assert.equal(isRetryable(r), true);
    expectKind(await f.fetch({ url: web.url(g) }), 'ok');
  });

  test('a stalled body times out in the body phase, with the head recorded', async () => {
    const t = expectKind(await fetcher({ bodyTimeoutMs: 100 }).fetch({ url: web.url(page(PageKind.hang)) }), 'timeout');
    assert.equal(t.phase, 'body');
    assert.equal(t.response?.status, 200);
    assert.equal(isRetryable(t), true);
  });

  test('the total limit ends a stalled body even when the gap limit is long', async () => {
    const t = expectKind(
      await fetcher({ bodyTimeoutMs: 60_000, totalTimeoutMs: 150 }).fetch({ url: web.url(page(PageKind.hang)) }),
      'timeout',
    );
    assert.equal(t.phase, 'total');
  });

  test('a server slow to answer times out in the first-byte phase', async () => {
    const slow = await startTestWeb({
      seed: 2,
      hosts: 2,
      pages: 20,
      server: { addressCount: 1 },
      latency: { baseMs: 5_000, slowHostRate: 0 },
    });
    try {
      const f = new UndiciFetcher({
        userAgent: USER_AGENT,
        addressPolicy: LOOPBACK,
        firstByteTimeoutMs: 100,
        resolver: new CachingResolver({ hostsMap: HostsMap.fromHostsFile(readFileSync(slow.hostsFile, 'utf8')), isSystemAllowed: false }),
      });
      const t = expectKind(await f.fetch({ url: slow.url(0) }), 'timeout');
      assert.equal(t.phase, 'first-byte');
      assert.equal(t.response, null);
      await f.close();
    } finally {
      await slow.close();
    }
  });

  test('a gzip bomb stops at the decoded limit', async () => {
    const t = expectKind(await fetcher({ maxDecodedBytes: MiB }).fetch({ url: web.url(page(PageKind.bomb)) }), 'too-large');
    assert.equal(t.limit, 'decoded');
    assert.equal(t.limitBytes, MiB);
    assert.equal(t.response.headers['content-encoding'], 'gzip');
    assert.equal(isRetryable(t), false);
  });

  test('an oversized page: too-large on raw bytes without compression, on decoded bytes with it', async () => {
    const plain = page(PageKind.oversized, (h) => !h.gzip && !h.brotli);
    const raw = expectKind(await fetcher({ maxBodyBytes: 100_000 }).fetch({ url: web.url(plain) }), 'too-large');
    assert.equal(raw.limit, 'raw');
    assert.equal(raw.limitBytes, 100_000);
    const packed = page(PageKind.oversized, (h) => h.gzip || h.brotli);
    const decoded = expectKind(await fetcher({ maxDecodedBytes: 100_000 }).fetch({ url: web.url(packed) }), 'too-large');
    assert.equal(decoded.limit, 'decoded');
    // Within the limits the same page arrives whole.
    const ok = expectKind(await fetcher().fetch({ url: web.url(packed) }), 'ok');
    assert.ok(ok.body.equals(encodePage(web.model, packed, web.port).body));
  });

  test('an unknown host is a dns-error; a closed port is a connect-error', async () => {
    const d = expectKind(await fetcher().fetch({ url: `http://not-in-the-web.test:${web.port}/` }), 'dns-error');
    assert.equal(d.host, 'not-in-the-web.test');
    assert.equal(d.code, 'ENOHOSTSMAP');
    const hosts = HostsMap.fromHostsFile(`${readFileSync(web.hostsFile, 'utf8')}\n127.0.9.9 nobody-listens.test\n`);
    const f = fetcher({ resolver: new CachingResolver({ hostsMap: hosts, isSystemAllowed: false }) });
    const c = expectKind(await f.fetch({ url: `http://nobody-listens.test:${web.port}/` }), 'connect-error');
    assert.equal(c.code, 'ECONNREFUSED');
    assert.equal(c.ip, '127.0.9.9');
    assert.equal(isRetryable(c), true);
  });
});

describe('address guard', () => {
  test('loopback is refused unless allowed, and nothing reaches the server', async () => {
    const f = fetcher({ addressPolicy: { allowLoopback: false, allowPrivate: false } });
    const before = web.log.count;
    const g = page(PageKind.ok);
    const d = expectKind(await f.fetch({ url: web.url(g) }), 'address-denied');
    assert.equal(d.reason, 'loopback');
    assert.equal(d.ip, web.model.hostOf(g).ip);
    assert.equal(d.host, web.model.hostOf(g).name);
    expectKind(await f.fetch({ url: `http://127.0.0.1:${web.port}/` }), 'address-denied');
    assert.equal(web.log.count, before, 'no request reached the test web');
    assert.equal(f.connectionsOpened, 0);
  });

  test('each new connection is checked on the address it resolves to then (DNS rebinding)', async () => {
    const g = page(PageKind.ok);
    const host = web.model.hostOf(g);
    let lookups = 0;
    // The first answer is the real address; every later one points at a cloud metadata endpoint.
    const rebinding: Resolver = {
      resolve: async (): Promise<ResolveResult> => ({
        kind: 'ok',
        ip: lookups++ === 0 ? host.ip : '169.254.169.254',
        family: 4,
        source: ResolveSource.dns,
      }),
      close: () => undefined,
    };
    const f = fetcher({ resolver: rebinding, connectionsPerOrigin: 2 });
    const before = web.log.count;
    const outcomes = await Promise.all([f.fetch({ url: web.url(g) }), f.fetch({ url: web.url(g) })]);
    assert.deepEqual(outcomes.map((o) => o.kind).sort(), ['address-denied', 'ok']);
    const denied = outcomes.find((o) => o.kind === 'address-denied');
    assert.equal(denied?.kind === 'address-denied' ? denied.reason : null, 'link-local');
    assert.equal(web.log.count - before, 1, 'only the allowed connection sent a request');
  });
});

describe('connections, proxy and cancellation', () => {
  test('sequential fetches to one host reuse one kept-alive connection', async () => {
    const connected = channel('undici:client:connected');
    let connects = 0;
    const count = (): void => {
      connects++;
    };
    connected.subscribe(count);
    try {
      const f = fetcher({ keepAliveMs: 30_000 });
      const host = web.model.hostOf(page(PageKind.ok));
      let fetched = 0;
      for (let g = host.firstPage; g < host.firstPage + host.pageCount && fetched < 40; g++) {
        if (web.model.pageKind[g] !== PageKind.ok) continue;
        const o = expectKind(await f.fetch({ url: web.url(g) }), 'ok');
        if (fetched === 0) assert.ok(o.timings.connectMs !== undefined, 'the first fetch opened the connection');
        else assert.equal(o.timings.connectMs, undefined, 'later fetches reused it');
        fetched++;
      }
      assert.ok(fetched >= 20, `${fetched} pages fetched`);
      assert.equal(f.connectionsOpened, 1);
      assert.equal(connects, 1, 'undici reports one connection too');
    } finally {
      connected.unsubscribe(count);
    }
  });

  test('concurrent fetches to one origin use at most connectionsPerOrigin connections', async () => {
    const f = fetcher({ connectionsPerOrigin: 2 });
    const host = web.model.hostOf(page(PageKind.ok));
    const urls: string[] = [];
    for (let g = host.firstPage; g < host.firstPage + host.pageCount && urls.length < 30; g++) {
      if (web.model.pageKind[g] === PageKind.ok) urls.push(web.url(g));
    }
    const outcomes = await Promise.all(urls.map((url) => f.fetch({ url })));
    assert.ok(outcomes.every((o) => o.kind === 'ok'));
    assert.ok(f.connectionsOpened <= 2, `${f.connectionsOpened} connections`);
  });

  test('through the forward proxy: absolute-form requests, no name resolution by shoal', async () => {
    assert.ok(web.proxyUrl !== null);
    const noNames: Resolver = {
      resolve: async () => ({ kind: 'dns-error', code: 'ENOTFOUND', message: 'no', source: ResolveSource.dns }),
      close: () => undefined,
    };
    const f = fetcher({ proxyUrl: web.proxyUrl, resolver: noNames });
    const g = page(PageKind.ok, (h) => h.gzip);
    const url = web.url(g);
    const ok = expectKind(await f.fetch({ url }), 'ok');
    assert.ok(ok.body.equals(encodePage(web.model, g, web.port).body));
    assert.ok(ok.request.toString('latin1').startsWith(`GET ${url} HTTP/1.1\r\n`), 'absolute-form request line');
    assert.equal(ok.ip, new URL(web.proxyUrl).hostname);
    const seen = web.log.entries().at(-1);
    assert.equal(seen?.isViaProxy, true);
    assert.equal(seen?.host, web.model.hostOf(g).name);
    const unknown = expectKind(await f.fetch({ url: `http://not-in-the-web.test:${web.port}/` }), 'http-error');
    assert.equal(unknown.response.status, 502);
  });

  test('an abort signal ends the call with `aborted`', async () => {
    const f = fetcher();
    const controller = new AbortController();
    const headers = nextResponseHead();
    const pending = f.fetch({ url: web.url(page(PageKind.hang)) }, controller.signal);
    await headers; // mid-response: the head is in, the body stalls
    controller.abort();
    const a = expectKind(await pending, 'aborted');
    assert.equal(a.reason, 'signal');
    const already = expectKind(await f.fetch({ url: web.url(0) }, controller.signal), 'aborted');
    assert.equal(already.reason, 'signal');
  });

  test('close() aborts calls in flight, is idempotent, and later calls resolve `aborted`', async () => {
    const f = new UndiciFetcher({ userAgent: USER_AGENT, resolver, addressPolicy: LOOPBACK });
    const headers = nextResponseHead();
    const pending = f.fetch({ url: web.url(page(PageKind.hang)) });
    await headers;
    await Promise.all([f.close(), f.close()]);
    assert.equal(expectKind(await pending, 'aborted').reason, 'closed');
    assert.equal(expectKind(await f.fetch({ url: web.url(0) }), 'aborted').reason, 'closed');
    assert.equal(f.inFlight, 0);
  });

  test('a URL that is not http(s) is a caller bug and rejects', async () => {
    await assert.rejects(fetcher().fetch({ url: 'ftp://example.org/' }), TypeError);
  });
});

/**
 * Responses the test web does not serve, written byte by byte by a raw TCP server on 127.0.0.1:
 * both forms of deflate, stacked codings, an unknown coding, corrupt gzip, a body cut short, a
 * UTF-8 Location and a Retry-After date.
 */
describe('wire details beyond the test web', () => {
  const text = Buffer.from('<!DOCTYPE html><p>' + 'wire details '.repeat(200) + '</p>');
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  const reply = (head: string, body: Buffer = Buffer.alloc(0)): Buffer =>
    Buffer.concat([Buffer.from(`${head}\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'), body]);
  /** The body in chunks of 100,000 bytes, without a length. */
  const chunked = (head: string, body: Buffer): Buffer => {
    const parts: Buffer[] = [Buffer.from(`${head}\r\ntransfer-encoding: chunked\r\n\r\n`, 'latin1')];
    for (let at = 0; at < body.length; at += 100_000) {
      const piece = body.subarray(at, at + 100_000);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
    }
    parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
    return Buffer.concat(parts);
  };
  // 1.5 MB of page that gzip shrinks to about 1.1 MB: over 1 MiB as received.
  const large = Buffer.concat([
    Buffer.from('<!DOCTYPE html><p>'),
    Buffer.from(randomBytes(1_100_000).toString('base64')),
    Buffer.from('</p>'),
  ]);
  const largeGzip = gzipSync(large);
  const responses: Record<string, Buffer> = {
    '/deflate': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html; charset="UTF-8"\r\ncontent-encoding: deflate', deflateSync(text)),
    '/raw-deflate': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: deflate', deflateRawSync(text)),
    '/stacked': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: gzip, br', brotliCompressSync(gzipSync(text))),
    '/zstd': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: zstd', Buffer.from('not really zstd')),
    '/corrupt': reply(
      'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: gzip',
      Buffer.concat([gzipSync(text).subarray(0, 20), Buffer.alloc(200, 7)]),
    ),
    '/cut': Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${text.length}\r\n\r\n${text.subarray(0, 100).toString('latin1')}`,
      'latin1',
    ),
    '/utf8-location': reply(
      `HTTP/1.1 301 Moved\r\nLocation: ${Buffer.from('/caffè menù', 'utf8').toString('latin1')}\r\nX-Twice: a\r\nx-twice: b`,
    ),
    '/busy': reply(`HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${new Date(now + 90_000).toUTCString()}`, Buffer.from('slow down')),
    // Bodies past 256 KiB move into one buffer of their own (received-bytes.ts); past 1 MiB as received a gzip body decodes as a stream.
    '/large': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html', large),
    '/large-chunked': chunked('HTTP/1.1 200 OK\r\ncontent-type: text/html', large),
    '/large-gzip': reply('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: gzip', largeGzip),
    '/large-gzip-chunked': chunked('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-encoding: gzip', largeGzip),
  };
  let server: Server;
  let origin: string;
  let f: UndiciFetcher;

  before(async () => {
    server = createServer((sock) => {
      // One request per chunk: enough for a client that waits for each response (no pipelining).
      sock.on('data', (chunk: Buffer) => {
        const path = /^[A-Z]+ (\S+)/.exec(chunk.toString('latin1'))?.[1] ?? '';
        const bytes = responses[path] ?? reply('HTTP/1.1 404 Not Found');
        // The cut body closes the connection before Content-Length is reached.
        if (path === '/cut') sock.end(bytes);
        else sock.write(bytes);
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://wire.test:${(server.address() as AddressInfo).port}`;
    const hosts = HostsMap.fromEntries(['wire.test=127.0.0.1']);
    f = fetcher({ resolver: new CachingResolver({ hostsMap: hosts, isSystemAllowed: false }), now: () => now });
  });
  after(async () => {
    await f.close();
    await new Promise((resolve) => server.close(resolve));
  });

  test('deflate with and without the zlib wrapper, and stacked codings, decode to the text', async () => {
    for (const [path, codings] of [
      ['/deflate', ['deflate']],
      ['/raw-deflate', ['deflate']],
      ['/stacked', ['gzip', 'br']],
    ] as const) {
      const ok = expectKind(await f.fetch({ url: `${origin}${path}` }), 'ok');
      assert.ok(ok.body.equals(text), path);
      assert.deepEqual(ok.contentEncodings, codings);
    }
    const quoted = expectKind(await f.fetch({ url: `${origin}/deflate` }), 'ok');
    assert.equal(quoted.charset, 'utf-8');
  });

  test('large bodies, with and without a length, plain and gzip, arrive whole', async () => {
    assert.ok(largeGzip.length > 1024 * 1024, 'the gzip body is decoded as a stream');
    for (const path of ['/large', '/large-chunked', '/large-gzip', '/large-gzip-chunked']) {
      const ok = expectKind(await f.fetch({ url: `${origin}${path}` }), 'ok');
      assert.ok(ok.body.equals(large), `${path}: the decoded body`);
      assert.ok(ok.rawBody.equals(path.includes('gzip') ? largeGzip : large), `${path}: the body as received`);
    }
  });

  test('an unknown coding is kept raw; a corrupt one is a protocol error', async () => {
    const u = expectKind(await f.fetch({ url: `${origin}/zstd` }), 'unsupported-encoding');
    assert.equal(u.encoding, 'zstd');
    assert.equal(u.rawBody.toString(), 'not really zstd');
    const p = expectKind(await f.fetch({ url: `${origin}/corrupt` }), 'protocol-error');
    assert.equal(p.code, 'EBADCODING');
    assert.equal(p.response?.status, 200);
  });

  test('a body cut short by the server is a reset after the head', async () => {
    const r = expectKind(await f.fetch({ url: `${origin}/cut` }), 'reset');
    assert.equal(r.response?.status, 200);
  });

  test('a raw UTF-8 Location is resolved and escaped; repeated headers are kept in the head', async () => {
    const r = expectKind(await f.fetch({ url: `${origin}/utf8-location` }), 'redirect');
    assert.equal(r.location, `${origin}/caff%C3%A8%20men%C3%B9`);
    assert.equal(r.response.headers['x-twice'], 'a, b');
    assert.equal(r.response.statusText, 'Moved');
    assert.ok(r.response.raw.toString('latin1').includes('\r\nX-Twice: a\r\nx-twice: b\r\n'));
  });

  test('Retry-After as an HTTP-date becomes a delay from now', async () => {
    const e = expectKind(await f.fetch({ url: `${origin}/busy` }), 'http-error');
    assert.equal(e.response.status, 429);
    assert.equal(e.retryAfterMs, 90_000);
    assert.equal(e.body.toString(), 'slow down');
  });
});
