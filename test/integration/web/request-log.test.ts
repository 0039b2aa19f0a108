/**
 * The server's request log: what it records for each request, and the per-host and per-address
 * concurrency it measures (what politeness tests of the crawler will read).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { HostInfo } from '../../../src/web/hosts.js';
import { PageKind } from '../../../src/web/model.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { get } from '../../helpers/http.js';
import { fetchPath, firstPage } from './support.js';

const UA = 'shoal-test/1.0 (+http://example.test/bot)';
let web: TestWeb;
let slow: HostInfo;
let fast: HostInfo;

before(async () => {
  // Slow hosts wait 150 ms on every request (sigma 0), so parallel requests to one overlap.
  web = await startTestWeb({
    seed: 8,
    hosts: 20,
    pages: 2000,
    server: { addressCount: 4 },
    latency: { slowHostRate: 0.5, slowMedianMs: 150, slowSigma: 0 },
  });
  slow = web.model.hosts.find((h) => h.slow) as HostInfo;
  fast = web.model.hosts.find((h) => !h.slow && h.ip !== slow.ip) as HostInfo;
  assert.ok(slow !== undefined && fast !== undefined);
});
after(async () => {
  await web.close();
});

test('each request is recorded with host, address, method, path, status, user agent and outcome', async () => {
  const m = web.model;
  const before = web.log.count;
  const g = firstPage(m, (x) => m.pageHost[x] === fast.index && m.localId(x) > 0 && m.pageKind[x] === PageKind.ok, 'ok page');
  const r = await get(web.url(g), web.hostsMap, { headers: { 'user-agent': UA } });
  assert.equal(r.status, 200);
  assert.equal((await fetchPath(web, fast.name, '/nothing-here.html?q=1', { headers: { 'user-agent': UA } })).status, 404);
  const head = await fetchPath(web, fast.name, '/robots.txt', { method: 'HEAD' });

  assert.equal(web.log.count, before + 3);
  const [pageRec, missingRec, headRec] = web.log.entries().slice(-3);
  assert.ok(pageRec !== undefined && missingRec !== undefined && headRec !== undefined);
  assert.deepEqual(
    {
      host: pageRec.host,
      ip: pageRec.ip,
      method: pageRec.method,
      path: pageRec.path,
      status: pageRec.status,
      userAgent: pageRec.userAgent,
      outcome: pageRec.outcome,
      isViaProxy: pageRec.isViaProxy,
    },
    { host: fast.name, ip: fast.ip, method: 'GET', path: m.path(g), status: 200, userAgent: UA, outcome: 'page', isViaProxy: false },
  );
  assert.equal(pageRec.bytes, r.body.length);
  assert.ok(pageRec.endMs >= pageRec.startMs && pageRec.seq === before + 1);
  assert.deepEqual(
    [missingRec.path, missingRec.status, missingRec.outcome, missingRec.userAgent],
    ['/nothing-here.html?q=1', 404, 'not-found', UA],
  );
  assert.deepEqual([headRec.method, headRec.path, headRec.status, headRec.outcome], ['HEAD', '/robots.txt', head.status, 'robots']);
  // The page a request named: the page id, or -1 for robots.txt and paths that name none.
  assert.deepEqual([pageRec.page, missingRec.page, headRec.page], [g, -1, -1]);
  assert.ok([pageRec, missingRec, headRec].every((x) => x.trap === null && !x.isAborted));
});

test('an error page is recorded with its page id', async () => {
  const m = web.model;
  const g = firstPage(m, (x) => m.pageKind[x] === PageKind.notFound && !m.hostOf(x).slow, '404 page');
  assert.equal((await get(web.url(g), web.hostsMap)).status, 404);
  const rec = web.log.entries().at(-1);
  assert.deepEqual([rec?.page, rec?.status, rec?.outcome], [g, 404, 'error']);
});

test('a request on the wrong address is recorded on the address it arrived at', async () => {
  const wrong = new Map([[slow.name, fast.ip]]);
  assert.equal((await get(`http://${slow.name}:${web.port}/`, wrong)).status, 421);
  const last = web.log.entries().at(-1);
  assert.deepEqual([last?.host, last?.ip, last?.status, last?.outcome], [slow.name, fast.ip, 421, 'misdirected']);
});

test('maxConcurrency: 3 parallel requests to a slow host overlap; sequential ones never do', async () => {
  const slowBefore = web.log.requestsPerHost().get(slow.name) ?? 0;
  await Promise.all([0, 1, 2].map((i) => get(web.url(slow.firstPage + i), web.hostsMap)));
  for (let i = 0; i < 3; i++) await get(web.url(fast.firstPage + i), web.hostsMap);

  const { perHost, perIp } = web.log.maxConcurrency();
  assert.equal(perHost.get(slow.name), 3);
  assert.ok((perIp.get(slow.ip) ?? 0) >= 3);
  assert.equal(perHost.get(fast.name), 1);
  const inFlight = web.log
    .entries()
    .filter((r) => r.host === slow.name)
    .slice(-3)
    .map((r) => r.hostInFlight);
  assert.deepEqual(inFlight.sort(), [1, 2, 3]);
  assert.equal(web.log.requestsPerHost().get(slow.name), slowBefore + 3);
});

test('the request log keeps the newest records once full, oldest first', async () => {
  const small = await startTestWeb({ seed: 5, hosts: 4, pages: 40, server: { addressCount: 2, requestLogLimit: 5 } });
  try {
    for (let g = 0; g < 8; g++) await get(small.url(small.model.hostOf(0).firstPage), small.hostsMap);
    const kept = small.log.entries();
    assert.deepEqual(
      kept.map((r) => r.seq),
      [4, 5, 6, 7, 8],
    );
    assert.equal(small.log.count, 8);
  } finally {
    await small.close();
  }
  assert.ok(!existsSync(small.hostsFile), 'the temporary hosts map is removed by close()');
});
