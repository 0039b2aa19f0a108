/**
 * The fetcher's lowest transfer rate (fetch.minBytesPerSecond over fetch.minRateWindowMs) against a
 * loopback server that drips its body. Windows are 0.5 to 1 s here so the file runs in a few
 * seconds; the silence limit (bodyTimeoutMs) is far above the drip's pauses and the whole-call
 * limit far above a window, so only the rate rule can end a drip early. Asserts outcomes and the
 * bytes and limits they carry, never elapsed time.
 *
 *     /drip        200, then 1 byte a second, endlessly
 *     /drip-404    404, then 1 byte a second, endlessly
 *     /steady      200, then 100 bytes every 50 ms (about 2,000 B/s), 3,000 bytes in all
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import { isRetryable, type FetchOutcome } from '../../../src/fetch/fetcher.js';
import { UndiciFetcher, type UndiciFetcherOptions } from '../../../src/fetch/undici-fetcher.js';
import { startDripServer, type DripServer } from '../../helpers/drip-server.js';

let server: DripServer;
let origin: string;
const fetchers: UndiciFetcher[] = [];

/** A fetcher for drip.test, with long silence and whole-call limits unless `options` says otherwise. */
function fetcher(options: Partial<UndiciFetcherOptions>): UndiciFetcher {
  const hosts = new HostsMap();
  hosts.add('drip.test', '127.0.0.1');
  const f = new UndiciFetcher({
    userAgent: 'shoalbot/1.0 (+https://example.org/bot)',
    addressPolicy: { allowLoopback: true, allowPrivate: false },
    resolver: new CachingResolver({ hostsMap: hosts, isSystemAllowed: false }),
    bodyTimeoutMs: 20_000,
    totalTimeoutMs: 20_000,
    ...options,
  });
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
  server = await startDripServer((path) => {
    if (path === '/drip') return { kind: 'drip', bytesPerTick: 1, tickMs: 1000 };
    if (path === '/drip-404') return { kind: 'drip', status: 404, bytesPerTick: 1, tickMs: 1000 };
    if (path === '/steady') return { kind: 'drip', bytesPerTick: 100, tickMs: 50, totalBytes: 3000 };
    return null;
  });
  origin = `http://drip.test:${server.port}`;
});

after(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await server.close();
});

describe('the lowest transfer rate of a body', () => {
  test('a body dripping 1 byte a second is cut as too-slow after its first window, not at the whole-call limit', async () => {
    // 100 B/s over 1 s: a window needs 100 bytes and gets one or two.
    const t = expectKind(await fetcher({ minBytesPerSecond: 100, minRateWindowMs: 1000 }).fetch({ url: `${origin}/drip` }), 'too-slow');
    assert.equal(t.response.status, 200);
    assert.equal(t.response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(t.request.toString('latin1'), /^GET \/drip HTTP\/1\.1\r\n/);
    assert.deepEqual([t.minBytesPerSecond, t.minRateWindowMs], [100, 1000]);
    assert.ok(t.windowBytes < 100, `${t.windowBytes} bytes in the window`);
    assert.equal(t.bodyBytes, t.windowBytes, 'cut in the first window: every byte came in it');
    assert.equal(t.bodyMs, t.windowMs);
    assert.ok(t.windowMs > 0);
    assert.equal(isRetryable(t), false);
  });

  test('an error body that drips is cut too, with its status kept', async () => {
    const t = expectKind(await fetcher({ minBytesPerSecond: 100, minRateWindowMs: 500 }).fetch({ url: `${origin}/drip-404` }), 'too-slow');
    assert.equal(t.response.status, 404);
    assert.ok(t.windowBytes < 50);
  });

  test('a slow but sufficient body is not cut', async () => {
    // About 2,000 B/s against 250 B/s: each 500 ms window needs 125 bytes and gets about 1,000.
    const ok = expectKind(await fetcher({ minBytesPerSecond: 250, minRateWindowMs: 500 }).fetch({ url: `${origin}/steady` }), 'ok');
    assert.equal(ok.body.length, 3000);
    assert.ok(ok.body.equals(Buffer.alloc(3000, 'x')));
  });

  test('0 turns the rule off: the drip then runs into the whole-call limit', async () => {
    const t = expectKind(
      await fetcher({ minBytesPerSecond: 0, minRateWindowMs: 500, totalTimeoutMs: 1500 }).fetch({ url: `${origin}/drip` }),
      'timeout',
    );
    assert.equal(t.phase, 'total');
    assert.equal(t.response?.status, 200);
  });

  test('the whole-call limit still ends a drip whose window would end later', async () => {
    const t = expectKind(
      await fetcher({ minBytesPerSecond: 100, minRateWindowMs: 10_000, totalTimeoutMs: 800 }).fetch({ url: `${origin}/drip` }),
      'timeout',
    );
    assert.equal(t.phase, 'total');
  });

  test('a rate below 0 or a window of 0 is a configuration error', () => {
    assert.throws(() => fetcher({ minBytesPerSecond: -1 }), /minBytesPerSecond/);
    assert.throws(() => fetcher({ minRateWindowMs: 0 }), /minRateWindowMs/);
  });
});
