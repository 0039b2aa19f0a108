/**
 * The robots.txt parser against the test web's robots.txt files: for every host that writes rules,
 * shoal's decision for each of its pages is the model's ground truth (`model.isDisallowed`, the `*`
 * group), the other crawler's group (`otherbot`, Disallow: /) is read but not applied to shoalbot,
 * blocked trap prefixes are blocked, and Crawl-delay and Sitemap lines read back as written.
 *
 * No sockets: `robotsText` is the exact body the test web serves.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebConfigInput } from '../../../src/web/config.js';
import type { HostInfo } from '../../../src/web/hosts.js';
import { WebModel } from '../../../src/web/model.js';
import { TRAP_PREFIX, robotsText } from '../../../src/web/robots.js';
import { parseRobotsTxt, type RobotsTxt } from '../../../src/robots/robots-txt.js';

// Rates raised so that seed 3 holds many rule sets, with Allow lines, Crawl-delay (a decimal one),
// listed sitemaps, and traps that robots.txt blocks.
const CONFIG = {
  seed: 3,
  hosts: 60,
  pages: 6000,
  server: { addressCount: 4 },
  robots: {
    rulesRate: 0.6,
    emptyRate: 0.1,
    notFoundRate: 0.1,
    serverErrorRate: 0.05,
    unavailableRate: 0.05,
    redirectRate: 0.05,
    garbageRate: 0.05,
    crawlDelayRate: 0.5,
    crawlDelaySeconds: 2.5,
    sitemapRate: 0.8,
    sitemapListedRate: 0.7,
  },
  traps: { hostRate: 0.3, robotsDisallowRate: 0.6 },
} satisfies WebConfigInput;

/** A path inside each trap, under the prefix robots.txt blocks when it blocks the trap. */
const TRAP_ENTRY = {
  calendar: '/calendar/2020/5/',
  session: '/s/1a2b/',
  repeat: '/archive/archive/',
  query: '/search?q=7',
  pagination: '/q?p=3',
} as const;

const model = new WebModel(CONFIG);
const originOf = (h: HostInfo): string => `http://${h.name}:8080`;
/** Hosts whose robots.txt carries rules (`unavailable` and `redirect` serve them after a detour). */
const ruleHosts = model.hosts.filter((h) => h.robots === 'rules' || h.robots === 'unavailable' || h.robots === 'redirect');
const parsed = new Map<HostInfo, RobotsTxt>(
  ruleHosts.map((h) => {
    // Half the hosts as text, half as the octets a fetcher would hand over.
    const text = robotsText(model, h, originOf(h));
    return [h, parseRobotsTxt(h.index % 2 === 0 ? text : Buffer.from(text, 'utf8'))];
  }),
);

describe('test-web robots.txt files', () => {
  test('the configuration yields the cases this test is about', () => {
    const rules = ruleHosts.filter((h) => h.robots === 'rules');
    assert.ok(rules.length >= 10, `${rules.length} hosts with robots kind rules`);
    assert.ok(
      rules.some((h) => h.allowed.length > 0),
      'some rule set re-allows a subtree',
    );
    assert.ok(
      rules.some((h) => h.crawlDelaySeconds !== null),
      'some rule set has a Crawl-delay',
    );
    assert.ok(
      ruleHosts.some((h) => h.sitemap === 'listed'),
      'some robots.txt lists a sitemap',
    );
    assert.ok(
      ruleHosts.some((h) => h.trap !== null && h.robotsBlocksTrap),
      'some robots.txt blocks a trap',
    );
    let escaped = 0;
    for (const h of rules) for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) if (model.path(g).includes('%')) escaped++;
    assert.ok(escaped > 0, 'some page paths are percent-encoded (non-ASCII slugs)');
  });

  test('shoalbot (the * group) decides every page exactly as model.isDisallowed', () => {
    let blocked = 0;
    let allowed = 0;
    for (const h of ruleHosts) {
      const rules = (parsed.get(h) as RobotsTxt).forAgent('shoalbot');
      for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
        const isDisallowed = model.isDisallowed(g);
        assert.equal(rules.isAllowed(model.path(g)), !isDisallowed, `${h.name}${model.path(g)}`);
        if (isDisallowed) blocked++;
        else allowed++;
      }
      // A decoded path (as a browser would show it) is decided the same way.
      for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
        if (!model.path(g).includes('%')) continue;
        assert.equal(rules.isAllowed(decodeURIComponent(model.path(g))), !model.isDisallowed(g), `${h.name} decoded ${model.path(g)}`);
      }
    }
    assert.ok(blocked > 0 && allowed > 0, `${blocked} blocked, ${allowed} allowed`);
  });

  test('the full user agent finds the same group as the product token', () => {
    for (const h of ruleHosts) {
      const robots = parsed.get(h) as RobotsTxt;
      assert.equal(robots.forAgent('shoalbot/1.0 (+https://example.org/bot)'), robots.forAgent('ShoalBot'));
    }
  });

  test('otherbot gets its own group: everything disallowed but /robots.txt, no Crawl-delay', () => {
    for (const h of ruleHosts) {
      const rules = (parsed.get(h) as RobotsTxt).forAgent('otherbot');
      for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) assert.equal(rules.isAllowed(model.path(g)), false);
      assert.equal(rules.isAllowed('/robots.txt'), true);
      assert.equal(rules.crawlDelayMs, null);
    }
  });

  test('trap prefixes are blocked exactly where robots.txt says so', () => {
    let checked = 0;
    for (const h of ruleHosts) {
      if (h.trap === null) continue;
      const entry = TRAP_ENTRY[h.trap];
      assert.ok(entry.startsWith(TRAP_PREFIX[h.trap]));
      assert.equal((parsed.get(h) as RobotsTxt).forAgent('shoalbot').isAllowed(entry), !h.robotsBlocksTrap, `${h.name}${entry}`);
      checked++;
    }
    assert.ok(checked > 0);
  });

  test('Crawl-delay reads back in milliseconds, for the * group only', () => {
    let withDelay = 0;
    for (const h of ruleHosts) {
      const delay = (parsed.get(h) as RobotsTxt).forAgent('shoalbot').crawlDelayMs;
      if (h.crawlDelaySeconds === null) {
        assert.equal(delay, null, h.name);
      } else {
        withDelay++;
        assert.equal(delay, Math.round(h.crawlDelaySeconds * 1000), h.name);
      }
    }
    assert.ok(withDelay > 0);
  });

  test('Sitemap lines read back for listed sitemaps, and only for them', () => {
    let listed = 0;
    for (const h of ruleHosts) {
      const sitemaps = (parsed.get(h) as RobotsTxt).sitemaps;
      if (h.sitemap === 'listed') {
        listed++;
        assert.deepEqual(sitemaps, [`${originOf(h)}/sitemap.xml`], h.name);
      } else {
        assert.deepEqual(sitemaps, [], h.name);
      }
    }
    assert.ok(listed > 0);
  });
});
