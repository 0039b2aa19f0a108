/**
 * The undici fetcher against a raw TCP server on 127.0.0.1 that sends `100 Continue` responses
 * nobody asked for before the final one (RFC 9110 §15.2 requires a client to take them): one, two,
 * mixed with `103 Early Hints`, written a byte at a time, on a kept-alive connection, and a 100
 * followed by nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import type { FetchOutcome } from '../../../src/fetch/fetcher.js';
import { UndiciFetcher } from '../../../src/fetch/undici-fetcher.js';

const body = Buffer.from('<!DOCTYPE html><p>after the interim responses</p>');
const final = Buffer.concat([
  Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'),
  body,
]);
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

/** What the server writes for each path: pieces, each its own write after a short pause. */
const RESPONSES: Record<string, readonly (string | Buffer)[]> = {
  '/one': [CONTINUE, final],
  '/two-and-hints': [
    CONTINUE,
    'HTTP/1.1 100 Continue\r\nServer: odd\r\n\r\n',
    'HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n',
    final,
  ],
  '/bytewise': [...CONTINUE, final],
  '/together': [Buffer.concat([Buffer.from(CONTINUE + CONTINUE, 'latin1'), final])],
};

describe('unsolicited 100 Continue responses', () => {
  let server: Server;
  let origin: string;
  let f: UndiciFetcher;

  async function respond(sock: Socket, path: string): Promise<void> {
    if (path === '/continue-then-close') {
      sock.end(CONTINUE);
      return;
    }
    for (const piece of RESPONSES[path] ?? ['HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n']) {
      if (sock.destroyed) return;
      sock.write(piece);
      await sleep(2);
    }
  }

  before(async () => {
    server = createServer((sock) => {
      sock.setNoDelay(true);
      sock.on('data', (chunk: Buffer) => {
        const path = /^[A-Z]+ (\S+)/.exec(chunk.toString('latin1'))?.[1] ?? '';
        void respond(sock, path);
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://interim.test:${(server.address() as AddressInfo).port}`;
    const hosts = HostsMap.fromEntries(['interim.test=127.0.0.1']);
    f = new UndiciFetcher({
      userAgent: 'shoalbot/1.0 (+https://example.org/bot)',
      resolver: new CachingResolver({ hostsMap: hosts, isSystemAllowed: false }),
      addressPolicy: { allowLoopback: true, allowPrivate: false },
      firstByteTimeoutMs: 5_000,
    });
  });
  after(async () => {
    await f.close();
    await new Promise((resolve) => server.close(resolve));
  });

  function expectOk(o: FetchOutcome, what: string): Extract<FetchOutcome, { kind: 'ok' }> {
    assert.equal(o.kind, 'ok', `${what}: ${JSON.stringify(o).slice(0, 300)}`);
    return o as Extract<FetchOutcome, { kind: 'ok' }>;
  }

  test('the final response is the page, whatever interim responses came before it, on one kept-alive connection', async () => {
    const opened = f.connectionsOpened;
    for (const path of ['/one', '/two-and-hints', '/bytewise', '/together', '/one']) {
      const ok = expectOk(await f.fetch({ url: `${origin}${path}` }), path);
      assert.equal(ok.response.status, 200, path);
      assert.ok(ok.body.equals(body), `${path}: the body`);
      // The head a WARC response record is written from is the final one's.
      assert.match(ok.response.raw.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/, path);
    }
    assert.equal(f.connectionsOpened - opened, 1, 'every response on the connection the first opened');
  });

  test('a 100 and then nothing fails the fetch as the connection closes, without waiting for a timeout', async () => {
    const o = await f.fetch({ url: `${origin}/continue-then-close` });
    // A reset, not a first-byte timeout: the close reached undici though the 100 was held back.
    assert.equal(o.kind, 'reset', JSON.stringify(o).slice(0, 300));
  });
});
