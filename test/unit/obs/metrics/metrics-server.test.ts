/**
 * The `/metrics` endpoint (src/obs/metrics/metrics-server.ts) on loopback: the text format with
 * Prometheus's content type, a free port when asked for 0, no bind beyond loopback unless allowed,
 * a clear error for a port in use, and a server that neither keeps a process alive nor outlives
 * `close()` with a connection left open.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ConfigError, ShoalError } from '../../../../src/core/errors.js';
import { CrawlMetrics } from '../../../../src/obs/metrics/crawl-metrics.js';
import { startMetricsServer } from '../../../../src/obs/metrics/metrics-server.js';
import { parseScrape } from '../../../helpers/prometheus.js';

const LOOPBACK = { host: '127.0.0.1', port: 0, allowRemote: false };

describe('startMetricsServer', () => {
  it('serves the registry on /metrics in the Prometheus text format, on a free port when asked for 0', async () => {
    const metrics = new CrawlMetrics();
    metrics.observeProgress({
      node: 'a',
      elapsedMs: 1000,
      urls: 3,
      pages: 3,
      pagesPerSecond: 3,
      recentPagesPerSecond: 3,
      bytes: 4096,
      bytesPerSecond: 4096,
      frontier: { queued: 2, inFlight: 1, activeHosts: 1, parked: 0, readyHosts: 1, waitingHosts: 0, backoffs: 0 },
      hosts: 1,
      errors: {},
      stopReason: null,
      robots: { requests: 1, bytes: 96, results: { parsed: 1 } },
    });
    const server = await startMetricsServer(metrics, LOOPBACK);
    try {
      assert.ok(server.port > 0);
      assert.equal(server.url, `http://127.0.0.1:${server.port}/metrics`);
      const res = await fetch(server.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      const scrape = parseScrape(await res.text());
      assert.equal(scrape.value('shoal_downloaded_bytes_total', { node: 'a' }), 4096);
      assert.equal(scrape.value('shoal_robots_fetches_total', { node: 'a', result: 'parsed' }), 1);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('refuses an address other than loopback unless allowRemote, before binding anything', async () => {
    await assert.rejects(startMetricsServer(new CrawlMetrics(), { ...LOOPBACK, host: '0.0.0.0' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.issues[0]?.path, 'metrics.host');
      return true;
    });
  });

  it('says which address it could not bind', async () => {
    const first = await startMetricsServer(new CrawlMetrics(), LOOPBACK);
    try {
      await assert.rejects(startMetricsServer(new CrawlMetrics(), { ...LOOPBACK, port: first.port }), (err: unknown) => {
        assert.ok(err instanceof ShoalError);
        assert.equal(err.code, 'PORT_UNAVAILABLE');
        assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${first.port}`));
        return true;
      });
    } finally {
      await first.close();
    }
  });

  it('closes with a scraper still connected, mid-request, and closes once however often asked', async () => {
    const server = await startMetricsServer(new CrawlMetrics(), LOOPBACK);
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {}); // the server resets it: that is the point
    await new Promise((resolve) => socket.once('connect', resolve));
    // Half a request: a plain close() would wait for it for as long as the client likes.
    socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const dropped = new Promise((resolve) => socket.once('close', resolve));
    await Promise.all([server.close(), server.close()]);
    await dropped;
    await assert.rejects(fetch(server.url));
  });

  it('does not keep a process alive: a program that never closes it still ends', { timeout: 60_000 }, async () => {
    const module = fileURLToPath(new URL('../../../../src/obs/metrics/metrics-server.ts', import.meta.url));
    const registry = fileURLToPath(new URL('../../../../src/obs/metrics/crawl-metrics.ts', import.meta.url));
    const script =
      `const { startMetricsServer } = await import(${JSON.stringify(module)});` +
      `const { CrawlMetrics } = await import(${JSON.stringify(registry)});` +
      `const s = await startMetricsServer(new CrawlMetrics(), { host: '127.0.0.1', port: 0, allowRemote: false });` +
      `await fetch(s.url); console.log('served');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    assert.equal(out, 'served\n');
  });
});
