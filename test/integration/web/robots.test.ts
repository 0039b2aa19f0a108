/**
 * robots.txt and sitemaps over HTTP: every robots kind answers as the model says, the rules served
 * decide exactly what `model.isDisallowed` decides (RFC 9309 longest match), Crawl-delay and
 * Sitemap lines appear when configured, and sitemaps list exactly the ok pages of their host.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebConfigInput } from '../../../src/web/config.js';
import type { HostInfo } from '../../../src/web/hosts.js';
import { PageKind, type WebModel } from '../../../src/web/model.js';
import { MOVED_ROBOTS_PATH, TRAP_PREFIX } from '../../../src/web/robots.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { fetchPath } from './support.js';

// Seed 6 holds every robots kind, rules with Allow lines, Crawl-delay and large sitemaps.
const CONFIG = {
  seed: 6,
  hosts: 30,
  pages: 2000,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  robots: {
    rulesRate: 0.3,
    emptyRate: 0.1,
    notFoundRate: 0.1,
    serverErrorRate: 0.1,
    unavailableRate: 0.1,
    redirectRate: 0.1,
    garbageRate: 0.1,
    unavailableAttempts: 3,
    crawlDelayRate: 0.5,
    crawlDelaySeconds: 7,
    sitemapRate: 0.7,
    sitemapListedRate: 0.5,
    sitemapMaxUrls: 40,
  },
} satisfies WebConfigInput;

interface Rule {
  readonly allow: boolean;
  readonly pattern: string;
}

/** The `*` group of a robots.txt (RFC 9309: consecutive user-agent lines share a group). */
function starGroup(text: string): { rules: Rule[]; lines: string[] } {
  const groups: { agents: string[]; lines: string[] }[] = [];
  let inAgents = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (m === null) continue;
    const key = (m[1] as string).toLowerCase();
    if (key === 'user-agent') {
      if (!inAgents) groups.push({ agents: [], lines: [] });
      groups.at(-1)?.agents.push((m[2] as string).toLowerCase());
      inAgents = true;
    } else {
      inAgents = false;
      groups.at(-1)?.lines.push(`${key}: ${m[2] as string}`);
    }
  }
  const lines = groups.filter((g) => g.agents.includes('*')).flatMap((g) => g.lines);
  const rules = lines.flatMap((l) => {
    const [key, value] = l.split(': ') as [string, string];
    return (key === 'allow' || key === 'disallow') && value !== '' ? [{ allow: key === 'allow', pattern: value }] : [];
  });
  return { rules, lines };
}

/** A rule's path pattern as a regular expression (RFC 9309 §2.2.3: `*` any run, `$` the end). */
function patternRegex(pattern: string): RegExp {
  const isAnchored = pattern.endsWith('$');
  const body = (isAnchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${isAnchored ? '$' : ''}`);
}

/** RFC 9309 §2.2.2: the longest matching rule wins, allow on a tie. */
function isBlocked(rules: readonly Rule[], pathAndQuery: string): boolean {
  let best: Rule | null = null;
  for (const r of rules) {
    if (!patternRegex(r.pattern).test(pathAndQuery)) continue;
    if (best === null || r.pattern.length > best.pattern.length || (r.pattern.length === best.pattern.length && r.allow)) best = r;
  }
  return best !== null && !best.allow;
}

/** Asserts that the served rules decide every page of h exactly as the model does. */
function assertRulesMatchModel(model: WebModel, h: HostInfo, text: string): void {
  const { rules } = starGroup(text);
  for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
    assert.equal(isBlocked(rules, model.path(g)), model.isDisallowed(g), `${h.name}${model.path(g)}`);
  }
}

let web: TestWeb;
const robots = (h: HostInfo) => fetchPath(web, h.name, '/robots.txt');
const hostsOf = (kind: HostInfo['robots']): HostInfo[] => {
  const hs = web.model.hosts.filter((h) => h.robots === kind);
  assert.ok(hs.length > 0, `the test web has a host with robots kind ${kind}`);
  return hs;
};

before(async () => {
  web = await startTestWeb(CONFIG);
});
after(async () => {
  await web.close();
});

test('rules: Disallow/Allow lines decide every page exactly as model.isDisallowed', async () => {
  let blocked = 0;
  let reAllowed = 0;
  for (const h of hostsOf('rules')) {
    const r = await robots(h);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    const text = r.body.toString();
    assertRulesMatchModel(web.model, h, text);
    // The other crawler's group exists and is not ours.
    assert.match(text, /User-agent: otherbot\nDisallow: \/\n/);
    for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) if (web.model.isDisallowed(g)) blocked++;
    reAllowed += h.allowed.length;
  }
  assert.ok(blocked > 0 && reAllowed > 0, `rules block ${blocked} pages and re-allow ${reAllowed} subtrees`);
});

test('empty, 404, 500 and garbage robots.txt', async () => {
  for (const h of hostsOf('empty')) {
    const r = await robots(h);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
  }
  for (const h of hostsOf('not-found')) assert.equal((await robots(h)).status, 404);
  for (const h of hostsOf('server-error')) {
    assert.equal((await robots(h)).status, 500);
    assert.ok(web.model.isDisallowed(h.firstPage), 'a 500 robots.txt means: crawl nothing');
  }
  for (const h of hostsOf('garbage')) {
    const r = await robots(h);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.match(r.body.toString(), /^<html>/);
    assert.equal(starGroup(r.body.toString()).lines.length, 0, 'garbage has no robots group');
  }
});

test('unavailable: 503 + Retry-After for the first attempts, then the rules', async () => {
  for (const h of hostsOf('unavailable')) {
    for (let i = 0; i < CONFIG.robots.unavailableAttempts; i++) {
      const r = await robots(h);
      assert.equal(r.status, 503, `${h.name} attempt ${i + 1}`);
      assert.equal(r.headers['retry-after'], String(web.config.faults.retryAfterSeconds));
    }
    const ok = await robots(h);
    assert.equal(ok.status, 200);
    assert.match(ok.body.toString(), /^user-agent: \*$/im);
    assertRulesMatchModel(web.model, h, ok.body.toString());
  }
});

test('redirect: 301 to /robots-moved.txt, which serves the rules', async () => {
  for (const h of hostsOf('redirect')) {
    const r = await robots(h);
    assert.equal(r.status, 301);
    const moved = new URL(String(r.headers.location), `http://${h.name}:${web.port}/robots.txt`);
    assert.equal(moved.href, `http://${h.name}:${web.port}${MOVED_ROBOTS_PATH}`);
    const target = await fetchPath(web, h.name, moved.pathname);
    assert.equal(target.status, 200);
    assert.match(target.body.toString(), /^user-agent: \*$/im);
    assertRulesMatchModel(web.model, h, target.body.toString());
  }
  // Only redirecting hosts have the moved file.
  assert.equal((await fetchPath(web, hostsOf('rules')[0]?.name as string, MOVED_ROBOTS_PATH)).status, 404);
});

test('Crawl-delay appears exactly for hosts configured with one', async () => {
  let withDelay = 0;
  for (const h of web.model.hosts.filter((x) => x.robots === 'rules')) {
    const { lines } = starGroup((await robots(h)).body.toString());
    const delays = lines.filter((l) => l.startsWith('crawl-delay: '));
    if (h.crawlDelaySeconds === null) assert.deepEqual(delays, [], h.name);
    else {
      withDelay++;
      assert.deepEqual(delays, ['crawl-delay: 7'], h.name);
    }
  }
  assert.ok(withDelay > 0);
});

test('a Sitemap line announces listed sitemaps only', async () => {
  let listed = 0;
  for (const h of web.model.hosts.filter((x) => x.robots === 'rules' || x.robots === 'redirect')) {
    let r = await robots(h);
    if (r.status === 301) r = await fetchPath(web, h.name, MOVED_ROBOTS_PATH);
    const lines = r.body
      .toString()
      .split('\n')
      .filter((l) => /^sitemap:/i.test(l));
    if (h.sitemap === 'listed') {
      listed++;
      assert.deepEqual(lines, [`Sitemap: http://${h.name}:${web.port}/sitemap.xml`], h.name);
    } else {
      assert.deepEqual(lines, [], h.name);
    }
  }
  assert.ok(listed > 0);
});

test('every host whose sitemap is listed announces it in robots.txt', async () => {
  for (const h of web.model.hosts.filter((x) => x.sitemap === 'listed')) {
    let r = await robots(h);
    for (let i = 0; i < 5 && r.status === 503; i++) r = await robots(h);
    if (r.status === 301) r = await fetchPath(web, h.name, MOVED_ROBOTS_PATH);
    assert.match(r.body.toString(), /^Sitemap: /m, `${h.name} (robots ${h.robots})`);
  }
});

/** The <loc> values of a sitemap document. */
const locs = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] as string);
const okPageUrls = (h: HostInfo): string[] => {
  const out: string[] = [];
  for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) if (web.model.pageKind[g] === PageKind.ok) out.push(web.url(g));
  return out;
};

test('sitemap.xml lists exactly the ok pages of its host; a large host gets an index of parts', async () => {
  const max = CONFIG.robots.sitemapMaxUrls;
  let small = 0;
  let large = 0;
  for (const h of web.model.hosts) {
    const r = await fetchPath(web, h.name, '/sitemap.xml');
    if (h.sitemap === 'none') {
      assert.equal(r.status, 404, h.name);
      continue;
    }
    assert.equal(r.status, 200, h.name);
    assert.equal(r.headers['content-type'], 'application/xml');
    const xml = r.body.toString();
    const expected = okPageUrls(h);
    if (expected.length <= max) {
      small++;
      assert.match(xml, /<urlset /);
      assert.deepEqual(locs(xml), expected, h.name);
      continue;
    }
    large++;
    assert.match(xml, /<sitemapindex /);
    const parts = locs(xml);
    assert.equal(parts.length, Math.ceil(expected.length / max));
    const listed: string[] = [];
    for (const part of parts) {
      const p = await fetchPath(web, h.name, new URL(part).pathname);
      assert.equal(p.status, 200, part);
      const urls = locs(p.body.toString());
      assert.ok(urls.length > 0 && urls.length <= max, `${part}: ${urls.length} urls`);
      listed.push(...urls);
    }
    assert.deepEqual(listed, expected, `${h.name}: the parts together list every ok page once`);
    assert.equal((await fetchPath(web, h.name, `/sitemap-${parts.length + 1}.xml`)).status, 404);
  }
  assert.ok(small > 0 && large > 0, `${small} urlsets, ${large} indexes`);
});

for (const [kind, entry, prefix] of [
  ['query', '/search?q=7', '/search'],
  ['pagination', '/q?p=3', '/q'],
] as const) {
  test(`a ${kind} trap blocked by robots.txt is disallowed without blocking ordinary pages`, async () => {
    // With seed 6 some hosts have sections such as /searchable-4/ or /quilts-2/, which a bare
    // "Disallow: /search" or "Disallow: /q" would block.
    const trapWeb = await startTestWeb({
      seed: 6,
      hosts: 20,
      pages: 2000,
      server: { addressCount: 4 },
      latency: { slowHostRate: 0 },
      traps: { hostRate: 1, robotsDisallowRate: 1, kinds: [kind] },
      topics: { hostPurity: 1 },
      robots: { rulesRate: 1, emptyRate: 0, notFoundRate: 0, serverErrorRate: 0, unavailableRate: 0, redirectRate: 0, garbageRate: 0 },
    });
    try {
      const m = trapWeb.model;
      let lookalikes = 0;
      for (const h of m.hosts) {
        assert.ok(h.trap === kind && h.robotsBlocksTrap && h.robots === 'rules');
        assert.ok(entry.startsWith(TRAP_PREFIX[h.trap]));
        const r = await fetchPath(trapWeb, h.name, '/robots.txt');
        const { rules } = starGroup(r.body.toString());
        // Every page path is allowed or disallowed exactly as the model says.
        assertRulesMatchModel(m, h, r.body.toString());
        assert.ok(isBlocked(rules, entry), `${h.name}: ${entry} is blocked`);
        for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) if (m.path(g).startsWith(prefix)) lookalikes++;
      }
      assert.ok(lookalikes > 0, `the web holds page paths that start like the ${kind} trap`);
    } finally {
      await trapWeb.close();
    }
  });
}
