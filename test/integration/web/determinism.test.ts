/**
 * Determinism of the test web: the same seed and config give byte-identical responses (bodies and
 * headers, compressed or not) and identical models; another seed gives another Web.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebConfigInput } from '../../../src/web/config.js';
import { PageKind, WebModel } from '../../../src/web/model.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { get } from '../../helpers/http.js';

const CONFIG = {
  seed: 11,
  hosts: 20,
  pages: 2000,
  server: { addressCount: 4 },
  robots: { sitemapRate: 0.6, sitemapMaxUrls: 100 },
  faults: { redirectRate: 0.05, unavailableRate: 0.02, resetRate: 0.02 },
  latency: { slowHostRate: 0 },
} satisfies WebConfigInput;

/** ~200 URLs: robots.txt and sitemaps of every host, then pages spread over the whole Web. */
function sampleUrls(web: TestWeb): string[] {
  const origin = (name: string): string => `http://${name}:${web.port}`;
  const urls: string[] = [];
  for (const h of web.model.hosts)
    urls.push(`${origin(h.name)}/robots.txt`, `${origin(h.name)}/sitemap.xml`, `${origin(h.name)}/sitemap-1.xml`);
  const step = Math.floor(web.model.pageCount / 140);
  for (let g = 0; g < web.model.pageCount; g += step) urls.push(web.url(g));
  return urls;
}

/** Every sampled response as one comparable string per URL: status, sorted headers, body bytes. */
async function snapshot(web: TestWeb, urls: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const [i, url] of urls.entries()) {
    // Half the requests accept compression, so compressed bytes are compared too.
    const headers: Record<string, string> = i % 2 === 0 ? { 'accept-encoding': 'gzip, br' } : {};
    try {
      const r = await get(url, web.hostsMap, { headers });
      const hs = Object.entries(r.headers).sort(([a], [b]) => a.localeCompare(b));
      out.push(`${url} ${r.status} ${JSON.stringify(hs)} ${r.body.toString('base64')}`);
    } catch (err) {
      out.push(`${url} error ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return out;
}

test('the same config served twice on the same port gives byte-identical responses', async () => {
  const first = await startTestWeb(CONFIG);
  let urls: string[];
  let a: string[];
  try {
    urls = sampleUrls(first);
    assert.ok(urls.length >= 200, `${urls.length} urls`);
    a = await snapshot(first, urls);
  } finally {
    await first.close();
  }
  const second = await startTestWeb({ ...CONFIG, server: { ...CONFIG.server, port: first.port } });
  try {
    assert.equal(second.port, first.port);
    const b = await snapshot(second, urls);
    for (const [i, line] of a.entries()) assert.equal(b[i], line, `response ${i} differs`);
    // The sample really covers what it claims: sitemaps, transient faults and robots variety.
    assert.ok(
      a.some((l) => l.includes('/sitemap.xml 200')),
      'a sitemap was served',
    );
    assert.ok(a.some((l) => / 503 /.test(l)) && a.some((l) => l.includes(' error ')), 'transient faults were sampled');
    assert.ok(
      a.some((l) => /"content-encoding","(gzip|br)"/.test(l)),
      'compressed bodies were compared',
    );
  } finally {
    await second.close();
  }
});

test('another seed gives different bytes', async () => {
  const a = await startTestWeb(CONFIG);
  const b = await startTestWeb({ ...CONFIG, seed: 12 });
  try {
    assert.notDeepEqual([...a.hostsMap.keys()], [...b.hostsMap.keys()]);
    const homeA = await get(a.seeds[0] as string, a.hostsMap);
    const homeB = await get(b.seeds[0] as string, b.hostsMap);
    assert.equal(homeA.status, 200);
    assert.equal(homeB.status, 200);
    assert.notDeepEqual(homeA.body, homeB.body);
    // Same host table position, same path: still other words.
    const pathA = await get(a.url(1), a.hostsMap);
    const pathB = await get(b.url(1), b.hostsMap);
    assert.notDeepEqual(pathA.body, pathB.body);
  } finally {
    await a.close();
    await b.close();
  }
});

test('two models from the same config are identical, field by field', () => {
  const a = new WebModel(CONFIG);
  const b = new WebModel(CONFIG);
  assert.deepEqual(b.hosts, a.hosts);
  assert.equal(b.pageCount, a.pageCount);
  assert.deepEqual(b.pageHost, a.pageHost);
  assert.deepEqual(b.pageKind, a.pageKind);
  assert.deepEqual(b.pageFlags, a.pageFlags);
  assert.deepEqual(b.pageCity, a.pageCity);
  assert.deepEqual(b.pageTopic, a.pageTopic);
  assert.deepEqual(b.pageRef, a.pageRef);
  assert.deepEqual(b.topicPools, a.topicPools);
  assert.deepEqual(b.cityPools, a.cityPools);
  for (let g = 0; g < a.pageCount; g += 7) assert.equal(b.path(g), a.path(g));
  // The arrays hold a real Web, not zeros: every page kind the config asks for occurs.
  assert.ok(a.pageKind.includes(PageKind.redirect) && a.pageKind.includes(PageKind.unavailable));

  const c = new WebModel({ ...CONFIG, seed: 12 });
  assert.notDeepEqual(c.pageKind, a.pageKind);
  assert.notDeepEqual(
    c.hosts.map((h) => h.name),
    a.hosts.map((h) => h.name),
  );
});
