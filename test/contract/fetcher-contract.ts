/**
 * The contract suite of the Fetcher extension point (src/fetch/fetcher.ts), run by every fetcher
 * from its own test file against the same small web, {@link ROUTES}: the undici fetcher against a
 * loopback HTTP server that serves it, the node tests' scripted fetcher from a table of it.
 *
 * Every fetcher must: resolve each call to exactly one outcome with the status, headers and body
 * as served; return redirects with `Location` resolved, not followed; end a call whose signal is
 * aborted (before or during the call) with `aborted`; abort every call in flight on `close()`,
 * which is idempotent, and answer `aborted` at once after it; reject only for a URL that is not
 * absolute, and never throw synchronously. A fetcher on the network (`network` given) must also
 * cut a body over its size limit (`too-large`), turn silent servers into `timeout` with its phase,
 * broken HTTP into `protocol-error`, a reset into `reset`, an unknown name into `dns-error`, a
 * closed port into `connect-error`, and send conditional requests. Times are never asserted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FetchOutcome, Fetcher } from '../../src/fetch/fetcher.js';

/** A reply of the contract web. */
export interface Route {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The contract web: what each path answers. */
export const ROUTES: Readonly<Record<string, Route>> = {
  '/ok': { status: 200, headers: { 'Content-Type': 'text/html; charset=UTF-8', 'X-Contract': 'yes' }, body: '<p>hello, contract</p>' },
  '/moved': { status: 301, headers: { Location: '/target/here?x=1' }, body: 'moved' },
  '/elsewhere': { status: 302, headers: { Location: 'https://other.test/page' }, body: '' },
  '/target/here': { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'target' },
  '/missing': { status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'not here' },
  '/busy': { status: 503, headers: { 'Retry-After': '7' }, body: 'later' },
};

/** Paths only a server on the network serves: their replies break or stretch HTTP. */
export const NETWORK_PATHS = {
  /** 200 whose body is one byte over `maxBodyBytes`. */
  big: '/big',
  /** Accepts the request and never answers. */
  silent: '/silent',
  /** Sends the head and half the body, then goes silent. */
  stalled: '/stalled',
  /** Answers bytes that are not HTTP. */
  garbage: '/garbage',
  /** Destroys the connection after reading the request. */
  reset: '/reset',
  /** 304 when `If-None-Match` is `"v1"`, else 200 with `ETag: "v1"`. */
  conditional: '/conditional',
} as const;

/** One fetcher under test, on the contract web. */
export interface FetcherWorld {
  readonly fetcher: Fetcher;
  /** Origin of the contract web, e.g. `http://site.test:8080`. */
  readonly origin: string;
  /** Waits for a call (a fetcher on a manual clock moves the clock meanwhile). */
  run<T>(call: Promise<T>): Promise<T>;
  /** Requests the web received for `path`. */
  hits(path: string): number;
  /** On the network: resolves once the server has received a request for `path`. */
  requested?(path: string): Promise<void>;
  /** Closes the fetcher and everything the world started. */
  close(): Promise<void>;
}

/** How the suite builds the fetchers of one implementation. */
export interface FetcherFactory {
  make(): Promise<FetcherWorld>;
  /** For a fetcher on the network: the limits it was built with, and what the network part needs. */
  readonly network?: {
    readonly maxBodyBytes: number;
    /** A URL whose host does not resolve, and one whose port nobody listens on. */
    readonly unknownHostUrl: string;
    readonly closedPortUrl: () => Promise<string>;
  };
}

function expectKind<K extends FetchOutcome['kind']>(o: FetchOutcome, kind: K): Extract<FetchOutcome, { kind: K }> {
  const response = o.kind === 'ok' ? undefined : (o as { response?: unknown }).response;
  const shown = { ...o, request: undefined, response, body: undefined, rawBody: undefined };
  assert.equal(o.kind, kind, `expected ${kind}, got ${JSON.stringify(shown)}`);
  return o as Extract<FetchOutcome, { kind: K }>;
}

/** Runs the Fetcher contract against the fetchers `factory` builds; see the file comment. */
export function fetcherContract(name: string, factory: FetcherFactory): void {
  async function withWorld(body: (w: FetcherWorld) => Promise<void>): Promise<void> {
    const world = await factory.make();
    try {
      await body(world);
    } finally {
      await world.close();
    }
  }

  describe(`Fetcher contract: ${name}`, () => {
    test('a 200 comes back with its status, lower-case headers and body as served, and the request as written', () =>
      withWorld(async (w) => {
        const url = `${w.origin}/ok`;
        const ok = expectKind(await w.run(w.fetcher.fetch({ url })), 'ok');
        const route = ROUTES['/ok'] as Route;
        assert.equal(ok.url, url);
        assert.equal(ok.response.status, 200);
        assert.equal(ok.response.headers['content-type'], route.headers['Content-Type']);
        assert.equal(ok.response.headers['x-contract'], 'yes');
        assert.equal(ok.body.toString('utf8'), route.body);
        assert.equal(ok.rawBody.toString('utf8'), route.body);
        assert.equal(ok.contentType, 'text/html');
        assert.match(ok.response.raw.toString('latin1'), /^HTTP\/1\.1 200 .*\r\n(.*\r\n)*\r\n$/);
        assert.match(ok.request.toString('latin1'), /^GET \/ok HTTP\/1\.1\r\n/);
        assert.ok(ok.timings.totalMs >= 0);
        assert.equal(w.hits('/ok'), 1);
      }));

    test('redirects are returned with Location resolved against the request URL, never followed', () =>
      withWorld(async (w) => {
        const moved = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/moved` })), 'redirect');
        assert.equal(moved.response.status, 301);
        assert.equal(moved.location, `${w.origin}/target/here?x=1`);
        const elsewhere = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/elsewhere` })), 'redirect');
        assert.equal(elsewhere.location, 'https://other.test/page');
        assert.equal(w.hits('/target/here'), 0, 'the target was not requested');
      }));

    test('4xx and 5xx are http-error outcomes with their body and Retry-After', () =>
      withWorld(async (w) => {
        const missing = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/missing` })), 'http-error');
        assert.equal(missing.response.status, 404);
        assert.equal(missing.body.toString('utf8'), 'not here');
        assert.equal(missing.retryAfterMs, null);
        const busy = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/busy` })), 'http-error');
        assert.equal(busy.response.status, 503);
        assert.equal(busy.retryAfterMs, 7000);
      }));

    test('a signal aborted before or during the call ends it with aborted (signal)', () =>
      withWorld(async (w) => {
        const before = new AbortController();
        before.abort();
        const early = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/ok` }, before.signal)), 'aborted');
        assert.equal(early.reason, 'signal');
        const during = new AbortController();
        const call = w.fetcher.fetch({ url: `${w.origin}/ok` }, during.signal);
        during.abort();
        assert.equal(expectKind(await w.run(call), 'aborted').reason, 'signal');
        // The fetcher is still usable.
        expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/ok` })), 'ok');
      }));

    test('close aborts the calls in flight (closed), is idempotent, and later calls are aborted at once', async () => {
      const w = await factory.make();
      try {
        const inFlight = w.fetcher.fetch({ url: `${w.origin}/ok` });
        const closing = w.fetcher.close();
        const second = w.fetcher.close();
        assert.equal(expectKind(await w.run(inFlight), 'aborted').reason, 'closed');
        await Promise.all([closing, second]);
        await w.fetcher.close();
        const after = await w.fetcher.fetch({ url: `${w.origin}/ok` }); // no clock to move: at once
        assert.equal(expectKind(after, 'aborted').reason, 'closed');
      } finally {
        await w.close();
      }
    });

    test('a URL that is not absolute http(s) is a caller bug: the promise rejects, nothing throws synchronously', () =>
      withWorld(async (w) => {
        for (const url of ['not a url', '/relative', '']) {
          let call: Promise<FetchOutcome> | null = null;
          assert.doesNotThrow(() => {
            call = w.fetcher.fetch({ url });
          }, url);
          await assert.rejects(async () => call, url);
        }
      }));

    const network = factory.network;
    if (network === undefined) return;
    describe('on the network', () => {
      test('a body over maxBodyBytes ends too-large (raw), with the limit', () =>
        withWorld(async (w) => {
          const big = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.big}` })), 'too-large');
          assert.deepEqual([big.limit, big.limitBytes, big.response.status], ['raw', network.maxBodyBytes, 200]);
        }));

      test('a silent server ends in a timeout outcome with its phase, not a throw', () =>
        withWorld(async (w) => {
          const silent = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.silent}` })), 'timeout');
          assert.equal(silent.phase, 'first-byte');
          assert.equal(silent.response, null);
          const stalled = expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.stalled}` })), 'timeout');
          assert.equal(stalled.phase, 'body');
          assert.equal(stalled.response?.status, 200);
        }));

      test('broken HTTP is a protocol-error, a dropped connection a reset: outcomes, never rejections', () =>
        withWorld(async (w) => {
          expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.garbage}` })), 'protocol-error');
          expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.reset}` })), 'reset');
          expectKind(await w.run(w.fetcher.fetch({ url: `${w.origin}/ok` })), 'ok');
        }));

      test('a name that does not resolve is a dns-error; a closed port a connect-error', () =>
        withWorld(async (w) => {
          expectKind(await w.run(w.fetcher.fetch({ url: network.unknownHostUrl })), 'dns-error');
          expectKind(await w.run(w.fetcher.fetch({ url: await network.closedPortUrl() })), 'connect-error');
        }));

      test('an ETag held is sent as If-None-Match: the 304 is not-modified', () =>
        withWorld(async (w) => {
          const url = `${w.origin}${NETWORK_PATHS.conditional}`;
          const first = expectKind(await w.run(w.fetcher.fetch({ url })), 'ok');
          const etag = first.response.headers['etag'] ?? assert.fail('no ETag');
          const again = expectKind(await w.run(w.fetcher.fetch({ url, etag })), 'not-modified');
          assert.equal(again.response.status, 304);
          assert.match(again.request.toString('latin1'), /\r\nif-none-match: "v1"\r\n/i);
        }));

      test('aborting a call whose response is under way abandons it with aborted (signal)', () =>
        withWorld(async (w) => {
          const ac = new AbortController();
          const requested = (w.requested ?? assert.fail('a world on the network tells when a request arrives'))(NETWORK_PATHS.stalled);
          const call = w.fetcher.fetch({ url: `${w.origin}${NETWORK_PATHS.stalled}` }, ac.signal);
          await requested;
          ac.abort();
          assert.equal(expectKind(await w.run(call), 'aborted').reason, 'signal');
        }));
    });
  });
}
