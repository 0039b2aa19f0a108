/**
 * The dashboard's server on loopback (src/obs/dashboard/): what each endpoint answers, the token
 * rule end to end, snapshots pushed on the event stream, and `close()` ending open streams and the
 * socket (so a crawl's end is the dashboard's end).
 */
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { after, describe, test } from 'node:test';
import { DashboardAggregator } from '../../../src/obs/dashboard/dashboard-aggregator.js';
import { startDashboard, type Dashboard } from '../../../src/obs/dashboard/dashboard.js';
import type { DashboardSnapshot } from '../../../src/obs/dashboard/snapshot.js';
import type { CrawlProgress } from '../../../src/obs/events.js';
import { waitForLine } from '../../helpers/wait.js';
import { progressEvent } from '../../helpers/crawl-events.js';

const TOKEN = 'test-token-0123456789';

function progress(pages: number, elapsedMs: number): CrawlProgress {
  return progressEvent('shoal', { elapsedMs, urls: pages, pages, bytes: pages * 100 });
}

/** Sends a GET and resolves once the head is in (the body is left to the caller). */
function open(port: number, path: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: string }> {
  const res = await open(port, path, headers);
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode ?? 0, type: String(res.headers['content-type']), body };
}

const running: Dashboard[] = [];
after(async () => {
  await Promise.all(running.map((d) => d.close()));
});

async function start(token: string | null, intervalMs = 60_000): Promise<{ dashboard: Dashboard; aggregator: DashboardAggregator }> {
  const aggregator = new DashboardAggregator({ crawlId: 'test', source: 'local', crawlNode: 'shoal' });
  const dashboard = await startDashboard({ host: '127.0.0.1', port: 0, token }, { aggregator, intervalMs });
  running.push(dashboard);
  return { dashboard, aggregator };
}

describe('dashboard server, loopback without a token', () => {
  test('serves the page, its files, uPlot and the state; no token in the URL', async () => {
    const { dashboard, aggregator } = await start(null);
    assert.equal(dashboard.url, `http://127.0.0.1:${dashboard.port}/`);
    assert.equal(dashboard.access.token, null);
    aggregator.progress(progress(12, 1_000), Date.now());
    const page = await get(dashboard.port, '/');
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    assert.match(page.body, /<script src="\/static\/uPlot\.iife\.min\.js"><\/script>/);
    assert.match(page.body, /data-figure="totals\.pages"/);
    const uplot = await get(dashboard.port, '/static/uPlot.iife.min.js');
    assert.equal(uplot.status, 200);
    assert.match(uplot.body, /uPlot/);
    assert.ok(uplot.body.length > 20_000, `${uplot.body.length} bytes of uPlot`);
    assert.equal((await get(dashboard.port, '/static/uPlot.min.css')).status, 200);
    assert.match((await get(dashboard.port, '/app.js')).type, /javascript/);
    const state = await get(dashboard.port, '/api/state');
    assert.equal(state.status, 200);
    const s = JSON.parse(state.body) as DashboardSnapshot;
    assert.equal(s.totals.pages, 12);
    assert.equal(s.crawl.id, 'test');
    assert.equal((await get(dashboard.port, '/nothing')).status, 404);
  });

  test('refuses a Host that is not loopback (a rebound DNS name)', async () => {
    const { dashboard } = await start(null);
    const res = await get(dashboard.port, '/api/state', { host: `evil.example:${dashboard.port}` });
    assert.equal(res.status, 403);
    assert.equal((await get(dashboard.port, '/api/state', { host: `localhost:${dashboard.port}` })).status, 200);
  });
});

describe('dashboard server with a token', () => {
  test('every endpoint wants it: none or a wrong one is 401; query or bearer passes', async () => {
    const { dashboard } = await start(TOKEN);
    assert.equal(dashboard.url, `http://127.0.0.1:${dashboard.port}/?token=${TOKEN}`);
    for (const path of ['/', '/api/state', '/events', '/app.js', '/static/uPlot.iife.min.js', '/nothing']) {
      const none = await get(dashboard.port, path);
      assert.equal(none.status, 401, `${path} without a token`);
      assert.equal((await get(dashboard.port, `${path}?token=wrong-token-0123456789`)).status, 401, `${path} with a wrong token`);
    }
    assert.equal((await get(dashboard.port, `/api/state?token=${TOKEN}`)).status, 200);
    assert.equal((await get(dashboard.port, '/api/state', { authorization: `Bearer ${TOKEN}` })).status, 200);
    const page = await get(dashboard.port, `/?token=${TOKEN}`);
    assert.equal(page.status, 200);
    // The page passes the token on to its own files (and its script to /events).
    assert.match(page.body, new RegExp(`src="/static/uPlot\\.iife\\.min\\.js\\?token=${TOKEN}"`));
    assert.match(page.body, new RegExp(`src="/app\\.js\\?token=${TOKEN}"`));
  });
});

describe('dashboard event stream', () => {
  test('a snapshot on connect, then one per interval; close() ends the stream and the socket', async () => {
    const { dashboard, aggregator } = await start(TOKEN, 50);
    aggregator.progress(progress(3, 1_000), Date.now());
    const res = await open(dashboard.port, `/events?token=${TOKEN}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    await waitForLine(res, /event: snapshot\ndata: \{[^\n]*"pages":3/, { what: 'the snapshot sent on connect' });
    aggregator.progress(progress(7, 2_000), Date.now());
    await waitForLine(res, /event: snapshot\ndata: \{[^\n]*"pages":7/, { what: 'a snapshot with the new figures' });
    const ended = new Promise<void>((resolve) => res.once('close', () => resolve()));
    res.resume();
    await dashboard.close();
    await ended;
    await assert.rejects(get(dashboard.port, '/api/state'), /ECONNREFUSED/);
    await dashboard.close();
  });
});
