/**
 * RFC 9309 conformance: every row of robots.json is parsed (as text and as octets) and checked for
 * the decision, and where the row says so, the Crawl-delay and the Sitemap list. Around the table:
 * the default 500 KiB limit on a real-size file, octet input that is not UTF-8, and the matcher
 * against a brute-force regular-expression oracle on random rule sets.
 */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ROBOTS_MAX_BYTES, parseRobotsTxt, productToken } from '../../src/robots/robots-txt.js';
import { RobotsRules, normalizeRobotsPath, normalizeRobotsPattern, type RobotsRule } from '../../src/robots/rules.js';

interface Row {
  readonly robots: string;
  readonly agent: string;
  readonly path: string;
  readonly allowed: boolean;
  readonly note: string;
  readonly maxBytes?: number;
  /** Expected crawl delay for the agent; absent: not checked. */
  readonly crawlDelayMs?: number | null;
  /** Expected sitemaps; absent: not checked. */
  readonly sitemaps?: readonly string[];
}

const ROWS = JSON.parse(readFileSync(new URL('./robots.json', import.meta.url), 'utf8')) as Row[];

describe('robots.json', () => {
  test('is a well-formed table of at least 60 distinct cases', () => {
    assert.ok(ROWS.length >= 60, `${ROWS.length} rows`);
    const keys = new Set<string>();
    for (const r of ROWS) {
      assert.equal(typeof r.robots, 'string', r.note);
      assert.equal(typeof r.agent, 'string', r.note);
      assert.equal(typeof r.path, 'string', r.note);
      assert.equal(typeof r.allowed, 'boolean', r.note);
      assert.ok(typeof r.note === 'string' && r.note.length > 0);
      const key = JSON.stringify([r.robots, r.agent, r.path, r.maxBytes]);
      assert.ok(!keys.has(key), `duplicate case: ${r.note}`);
      keys.add(key);
    }
  });

  for (const [i, r] of ROWS.entries()) {
    test(`#${i + 1} ${r.note}`, () => {
      const options = r.maxBytes === undefined ? {} : { maxBytes: r.maxBytes };
      for (const body of [r.robots, new TextEncoder().encode(r.robots)]) {
        const robots = parseRobotsTxt(body, options);
        const rules = robots.forAgent(r.agent);
        assert.equal(rules.isAllowed(r.path), r.allowed, `${r.agent} ${JSON.stringify(r.path)}`);
        if (r.crawlDelayMs !== undefined) assert.equal(rules.crawlDelayMs, r.crawlDelayMs);
        if (r.sitemaps !== undefined) assert.deepEqual(robots.sitemaps, r.sitemaps);
      }
    });
  }
});

describe('size limit', () => {
  const head = 'User-agent: *\nDisallow: /\n';
  /** A file whose `lines` start `split` octets before offset `at` (a long comment line before them). */
  function crossing(at: number, lines: string, split: number): string {
    const fill = at - split - head.length;
    return `${head}#${'x'.repeat(fill - 2)}\n${lines}`;
  }

  test('the default limit is 500 KiB', () => {
    assert.equal(DEFAULT_ROBOTS_MAX_BYTES, 512_000);
  });

  test('a line crossing byte 512,000 is dropped whole; later lines are ignored', () => {
    // `Allow: /` fits below the limit, `abc` does not: a truncating parser would allow everything.
    const text = crossing(DEFAULT_ROBOTS_MAX_BYTES, 'Allow: /abc\nAllow: /later\n', 'Allow: /'.length);
    assert.equal(Buffer.byteLength(text.slice(0, text.indexOf('Allow: /abc') + 8)), DEFAULT_ROBOTS_MAX_BYTES);
    const rules = parseRobotsTxt(text).forAgent('shoalbot');
    assert.equal(rules.isAllowed('/xyz'), false);
    assert.equal(rules.isAllowed('/abc'), false);
    assert.equal(rules.isAllowed('/later'), false);
    // The same file with a larger limit reads both lines.
    const all = parseRobotsTxt(text, { maxBytes: 600_000 }).forAgent('shoalbot');
    assert.equal(all.isAllowed('/abc'), true);
    assert.equal(all.isAllowed('/later'), true);
  });

  test('a line ending exactly at byte 512,000 is read', () => {
    const line = 'Allow: /edge\n';
    const text = crossing(DEFAULT_ROBOTS_MAX_BYTES, `${line}Allow: /after\n`, line.length - 1);
    const rules = parseRobotsTxt(Buffer.from(text)).forAgent('shoalbot');
    assert.equal(rules.isAllowed('/edge'), true);
    assert.equal(rules.isAllowed('/after'), false);
  });

  test('maxBytes 0 reads nothing; a bad maxBytes is a caller bug', () => {
    assert.equal(parseRobotsTxt(head, { maxBytes: 0 }).forAgent('shoalbot').isAllowed('/x'), true);
    assert.throws(() => parseRobotsTxt(head, { maxBytes: -1 }), RangeError);
    assert.throws(() => parseRobotsTxt(head, { maxBytes: Number.NaN }), RangeError);
  });
});

describe('octet input', () => {
  test('invalid UTF-8 never throws, and a legacy-encoded path matches its escaped URL', () => {
    // "Disallow: /caf\xE9/" in Latin-1, plus bytes that are no UTF-8 at all.
    const bytes = Uint8Array.from([
      ...Buffer.from('User-agent: *\nDisallow: /caf'),
      0xe9,
      ...Buffer.from('/\nDisallow: /'),
      0xff,
      0xfe,
      0xc3,
      ...Buffer.from('\nSitemap: https://example.com/'),
      0xff,
      ...Buffer.from('.xml\n'),
    ]);
    const robots = parseRobotsTxt(bytes);
    const rules = robots.forAgent('shoalbot');
    assert.equal(rules.isAllowed('/caf%E9/menu'), false);
    assert.equal(rules.isAllowed('/caf%C3%A9/menu'), true);
    assert.equal(rules.isAllowed('/%FF%FE%C3'), false);
    assert.deepEqual(robots.sitemaps, ['https://example.com/%EF%BF%BD.xml']);
  });

  test('a string with a lone surrogate does not throw', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /a\ud800b\n').forAgent('shoalbot');
    assert.equal(rules.isAllowed('/a%EF%BF%BDb'), false);
    assert.equal(rules.isAllowed('/a\udc00'), true);
  });
});

describe('helpers', () => {
  test('productToken takes the leading token characters of a user agent', () => {
    assert.equal(productToken('shoalbot/1.0 (+https://example.org/bot)'), 'shoalbot');
    assert.equal(productToken('  Shoal_Bot-2'), 'Shoal_Bot-');
    assert.equal(productToken('Mozilla/5.0 (compatible; shoalbot/1.0)'), 'Mozilla');
    assert.equal(productToken('/1.0'), '');
  });

  test('path normalization: unreserved decoded, hex uppercased, the rest encoded', () => {
    assert.equal(normalizeRobotsPath('/%7e%41b%2f%3c'), '/~Ab%2F%3C');
    assert.equal(normalizeRobotsPath('/a b/ツ/*/$'), '/a%20b/%E3%83%84/%2A/%24');
    assert.equal(normalizeRobotsPath('/ok/path?x=1&y=%E3%83%84'), '/ok/path?x=1&y=%E3%83%84');
    assert.equal(normalizeRobotsPath(''), '/');
    assert.equal(normalizeRobotsPattern('/a*b$c*$'), '/a*b%24c*$');
    assert.equal(normalizeRobotsPattern(normalizeRobotsPattern('/%7e%2a*ä$')), '/~%2A*%C3%A4$');
  });

  test('decidingRule names the line that decides, for the crawl log', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /a\nAllow: /a/b\n').forAgent('shoalbot');
    assert.deepEqual(rules.decidingRule('/a/x'), { allow: false, pattern: '/a' });
    assert.deepEqual(rules.decidingRule('/a/b/c'), { allow: true, pattern: '/a/b' });
    assert.equal(rules.decidingRule('/z'), null);
    assert.equal(RobotsRules.allowAll.isAllowed('/x'), true);
    assert.equal(RobotsRules.disallowAll.isAllowed('/x'), false);
    assert.equal(RobotsRules.disallowAll.isAllowed('/robots.txt'), true);
  });
});

/** A small deterministic generator (xorshift32), so a failure reproduces. */
function generator(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

/** The decision computed straight from RFC 9309 §2.2.2, one regular expression per rule. */
function oracle(rules: readonly RobotsRule[], path: string): boolean {
  const p = normalizeRobotsPath(path);
  if (p === '/robots.txt') return true;
  let best: { allow: boolean; length: number } | null = null;
  for (const r of rules) {
    const pattern = normalizeRobotsPattern(r.pattern);
    if (pattern === '') continue;
    const isAnchored = pattern.endsWith('$');
    const body = (isAnchored ? pattern.slice(0, -1) : pattern)
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*');
    if (!new RegExp(`^${body}${isAnchored ? '$' : ''}`).test(p)) continue;
    if (best === null || pattern.length > best.length || (pattern.length === best.length && r.allow))
      best = { allow: r.allow, length: pattern.length };
  }
  return best === null || best.allow;
}

describe('matcher against the oracle', () => {
  test('random rule sets over a small alphabet decide exactly like the oracle', () => {
    const rand = generator(9309);
    const word = (alphabet: string, max: number): string =>
      Array.from({ length: rand(max + 1) }, () => alphabet[rand(alphabet.length)]).join('');
    let disallowed = 0;
    let checked = 0;
    for (let set = 0; set < 400; set++) {
      const count = 1 + rand(set % 4 === 0 ? 60 : 8);
      const rules: RobotsRule[] = Array.from({ length: count }, () => {
        const start = rand(6) === 0 ? '*' : '/';
        return { allow: rand(2) === 0, pattern: `${start}${word('ab/*', 5)}${rand(4) === 0 ? '$' : ''}` };
      });
      const compiled = new RobotsRules(rules);
      for (let k = 0; k < 40; k++) {
        const path = `/${word('ab/', 8)}`;
        const expected = oracle(rules, path);
        assert.equal(compiled.isAllowed(path), expected, `${JSON.stringify(rules)} ${path}`);
        checked++;
        if (!expected) disallowed++;
      }
    }
    // Both outcomes occur often, so the comparison means something.
    assert.ok(disallowed > checked / 10 && disallowed < checked * 0.9, `${disallowed} of ${checked} disallowed`);
  });
});
