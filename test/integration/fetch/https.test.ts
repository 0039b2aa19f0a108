/**
 * The undici fetcher over HTTPS, against node:https servers on 127.0.0.1 with the certificates of
 * test/fixtures/tls/ (a test CA; a leaf for `secure.test`, `*.secure.test` and 127.0.0.1; the same
 * leaf expired). The names resolve through a hosts map, so every connection goes to the IP while
 * TLS must use the name: the servers record the SNI each handshake offered (SNICallback) and each
 * request's `servername`, and the name-mismatch case connects to an IP that the certificate does
 * cover, so it fails only if the check is made against the name.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import type { AddressPolicy } from '../../../src/fetch/address-guard.js';
import { isRetryable, type FetchOutcome } from '../../../src/fetch/fetcher.js';
import { UndiciFetcher, type UndiciFetcherOptions } from '../../../src/fetch/undici-fetcher.js';

const TLS_DIR = new URL('../../fixtures/tls/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, TLS_DIR), 'utf8');
const CA = fixture('ca.pem');
const KEY = fixture('server.key');
const USER_AGENT = 'shoalbot/1.0 (+https://example.org/bot)';
const LOOPBACK: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const PAGE = Buffer.from(`<!DOCTYPE html><title>secure</title><p>${'over TLS '.repeat(300)}</p>`);
const GZIPPED = gzipSync(PAGE);

/** An https server on 127.0.0.1 with what it saw: SNI per handshake, TLS sessions, requests. */
interface TlsServer {
  readonly port: number;
  /** The SNI of every handshake that offered one, in order (failed handshakes included). */
  readonly sniOffered: string[];
  /** Handshakes completed on the server side: one per TLS connection. */
  secureConnections: number;
  /** Requests received, with `req.socket.servername` and the request head rebuilt from the raw header pairs. */
  readonly requests: Array<{ readonly path: string; readonly servername: string | false; readonly head: string }>;
  close(): Promise<void>;
}

/** The request head as a server received it: request line, header pairs as sent (case, order), empty line. */
function headOf(req: IncomingMessage): string {
  let head = `${req.method ?? ''} ${req.url ?? ''} HTTP/${req.httpVersion}\r\n`;
  for (let i = 0; i < req.rawHeaders.length; i += 2) head += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

async function startTlsServer(certFile: string): Promise<TlsServer> {
  const state = { sniOffered: [] as string[], secureConnections: 0, requests: [] as TlsServer['requests'][number][] };
  const server: Server = createServer(
    {
      key: KEY,
      cert: fixture(certFile),
      // Called for every ClientHello with SNI, before the client judges the certificate.
      SNICallback: (servername, cb) => {
        state.sniOffered.push(servername);
        cb(null, undefined);
      },
    },
    (req, res) => {
      const socket = req.socket as typeof req.socket & { servername?: string | false };
      state.requests.push({ path: req.url ?? '', servername: socket.servername ?? false, head: headOf(req) });
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': GZIPPED.length });
        res.end(GZIPPED);
      } else if (req.url === '/to-http') {
        res.writeHead(301, { location: 'http://secure.test:8080/landing', 'content-length': 0 });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`you asked for ${req.url ?? ''}\n`);
      }
    },
  );
  server.on('secureConnection', () => {
    state.secureConnections++;
  });
  // A client that rejects the certificate resets the handshake: expected here, not a failure.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

let good: TlsServer;
let expired: TlsServer;
const fetchers: UndiciFetcher[] = [];
const resolver = new CachingResolver({
  hostsMap: HostsMap.fromEntries(['secure.test=127.0.0.1', 'www.secure.test=127.0.0.1', 'other.test=127.0.0.1']),
  isSystemAllowed: false,
});

/** A fetcher on the hosts map above, trusting the test CA unless told otherwise; closed after the suite. */
function fetcher(options: Partial<UndiciFetcherOptions> = {}): UndiciFetcher {
  const f = new UndiciFetcher({ userAgent: USER_AGENT, resolver, addressPolicy: LOOPBACK, caCertificates: CA, ...options });
  fetchers.push(f);
  return f;
}

function expectKind<K extends FetchOutcome['kind']>(o: FetchOutcome, kind: K): Extract<FetchOutcome, { kind: K }> {
  assert.equal(
    o.kind,
    kind,
    `expected ${kind}, got ${JSON.stringify({ ...o, request: undefined, response: undefined, body: undefined, rawBody: undefined })}`,
  );
  return o as Extract<FetchOutcome, { kind: K }>;
}

before(async () => {
  good = await startTlsServer('server.pem');
  expired = await startTlsServer('expired.pem');
});
after(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await Promise.all([good.close(), expired.close()]);
});

describe('https with the test CA trusted', () => {
  test('a page: ok, status, gzip undone, IP, SNI secure.test, the request bytes the server received', async () => {
    const before = good.requests.length;
    const url = `https://secure.test:${good.port}/page`;
    const ok = expectKind(await fetcher().fetch({ url }), 'ok');
    assert.equal(ok.response.status, 200);
    assert.ok(ok.body.equals(PAGE), 'decoded body is the page');
    assert.ok(ok.rawBody.equals(GZIPPED), 'raw body is the bytes as sent');
    assert.ok(gunzipSync(ok.rawBody).equals(PAGE));
    assert.deepEqual(ok.contentEncodings, ['gzip']);
    assert.equal(ok.contentType, 'text/html');
    assert.equal(ok.charset, 'utf-8');
    assert.equal(ok.ip, '127.0.0.1');
    assert.ok(ok.timings.connectMs !== undefined, 'this fetch opened the connection (TCP and TLS)');
    const seen = good.requests.slice(before);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.servername, 'secure.test', 'the TLS connection was made for the name, not the IP');
    assert.equal(good.sniOffered.at(-1), 'secure.test');
    const request = ok.request.toString('latin1');
    assert.ok(request.startsWith(`GET /page HTTP/1.1\r\nhost: secure.test:${good.port}\r\n`), request);
    assert.ok(request.includes(`\r\nuser-agent: ${USER_AGENT}\r\n`));
    assert.equal(request, seen[0]?.head, 'the recorded request is what the server received');
  });

  test('keep-alive: two requests share one TLS connection', async () => {
    const f = fetcher({ keepAliveMs: 30_000 });
    const handshakes = good.secureConnections;
    const first = expectKind(await f.fetch({ url: `https://secure.test:${good.port}/one` }), 'ok');
    const second = expectKind(await f.fetch({ url: `https://secure.test:${good.port}/two` }), 'ok');
    assert.equal(first.body.toString(), 'you asked for /one\n');
    assert.equal(second.body.toString(), 'you asked for /two\n');
    assert.equal(good.secureConnections - handshakes, 1, 'one TLS handshake on the server');
    assert.equal(f.connectionsOpened, 1);
    assert.ok(first.timings.connectMs !== undefined);
    assert.equal(second.timings.connectMs, undefined, 'the second request reused the connection');
  });

  test('a redirect from https to http is a redirect outcome, not followed', async () => {
    const before = good.requests.length;
    const r = expectKind(await fetcher().fetch({ url: `https://secure.test:${good.port}/to-http` }), 'redirect');
    assert.equal(r.response.status, 301);
    assert.equal(r.location, 'http://secure.test:8080/landing');
    assert.equal(r.ip, '127.0.0.1');
    assert.match(r.request.toString('latin1'), /^GET \/to-http HTTP\/1\.1\r\n/);
    assert.equal(isRetryable(r), false);
    assert.equal(good.requests.length - before, 1, 'one request: the redirect was not followed');
  });

  test('the certificate is checked against the name: a wildcard name passes, an IP-literal URL against the IP', async () => {
    const f = fetcher();
    const www = expectKind(await f.fetch({ url: `https://www.secure.test:${good.port}/www` }), 'ok');
    assert.equal(www.body.toString(), 'you asked for /www\n');
    assert.equal(good.requests.at(-1)?.servername, 'www.secure.test');
    const offered = good.sniOffered.length;
    const literal = expectKind(await f.fetch({ url: `https://127.0.0.1:${good.port}/literal` }), 'ok');
    assert.equal(literal.body.toString(), 'you asked for /literal\n');
    assert.equal(good.sniOffered.length, offered, 'no SNI for an IP address (RFC 6066)');
    assert.equal(good.requests.at(-1)?.servername, false);
  });
});

describe('certificate failures are connect-error outcomes, never exceptions', () => {
  test('CA not trusted: UNABLE_TO_VERIFY_LEAF_SIGNATURE, nothing sent', async () => {
    const before = good.requests.length;
    const e = expectKind(
      await fetcher({ caCertificates: undefined }).fetch({ url: `https://secure.test:${good.port}/page` }),
      'connect-error',
    );
    assert.equal(e.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    assert.match(e.message, /verify/);
    assert.equal(e.ip, '127.0.0.1');
    assert.equal(good.sniOffered.at(-1), 'secure.test');
    assert.equal(good.requests.length, before, 'no request was written');
  });

  test('a name the certificate does not cover: ERR_TLS_CERT_ALTNAME_INVALID, though it covers the IP dialled', async () => {
    const before = good.requests.length;
    const e = expectKind(await fetcher().fetch({ url: `https://other.test:${good.port}/page` }), 'connect-error');
    assert.equal(e.code, 'ERR_TLS_CERT_ALTNAME_INVALID');
    assert.match(e.message, /other\.test/);
    assert.equal(e.ip, '127.0.0.1');
    assert.equal(good.sniOffered.at(-1), 'other.test', 'SNI carried the name asked for');
    assert.equal(good.requests.length, before);
  });

  test('an expired certificate: CERT_HAS_EXPIRED', async () => {
    const e = expectKind(await fetcher().fetch({ url: `https://secure.test:${expired.port}/page` }), 'connect-error');
    assert.equal(e.code, 'CERT_HAS_EXPIRED');
    assert.equal(expired.requests.length, 0);
  });

  test('caCertificates without a readable certificate is a ConfigError naming the entry', () => {
    assert.throws(
      () => fetcher({ caCertificates: [CA, 'not a certificate'] }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          ['caCertificates[1]'],
        );
        return true;
      },
    );
    const corrupt = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    assert.throws(
      () => fetcher({ caCertificates: corrupt }),
      (err: unknown) => err instanceof ConfigError && err.issues[0]?.path === 'caCertificates',
    );
  });
});

/** A forward proxy that only tunnels (CONNECT), to 127.0.0.1 whatever the name; it records each CONNECT target. */
describe('https through a forward proxy (CONNECT tunnel)', () => {
  let proxy: HttpServer;
  let proxyUrl: string;
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();

  before(async () => {
    proxy = createHttpServer((_req, res) => {
      res.writeHead(501).end();
    });
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const port = Number(new URL(`http://${req.url ?? ''}`).port);
      const upstream = connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  test('the TLS inside the tunnel uses the name and trusts caCertificates; without them it fails cleanly', async () => {
    const url = `https://secure.test:${good.port}/via-proxy`;
    const ok = expectKind(await fetcher({ proxyUrl }).fetch({ url }), 'ok');
    assert.equal(ok.body.toString(), 'you asked for /via-proxy\n');
    assert.equal(tunnels.at(-1), `secure.test:${good.port}`, 'the proxy was asked for the name');
    assert.equal(good.requests.at(-1)?.servername, 'secure.test');
    const e = expectKind(await fetcher({ proxyUrl, caCertificates: undefined }).fetch({ url }), 'connect-error');
    assert.equal(e.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});
