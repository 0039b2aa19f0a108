/**
 * robots.txt fetch outcomes (RFC 9309 §2.3.1, §2.4): 2xx parses, 4xx allows everything, 5xx and
 * network failures disallow everything until a retry, too many redirects count as unavailable.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_ROBOTS_MAX_AGE_MS,
  DEFAULT_ROBOTS_RETRY_MS,
  RobotsPolicyKind,
  robotsFromFetch,
  type RobotsPolicy,
} from '../../../src/robots/fetch-policy.js';

const BODY = 'User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: https://example.com/sitemap.xml\n';

function assertAllowsAll(p: RobotsPolicy): void {
  const rules = p.forAgent('shoalbot');
  for (const path of ['/', '/private/x', '/anything?q=1']) assert.equal(rules.isAllowed(path), true, path);
  assert.equal(rules.crawlDelayMs, null);
  assert.deepEqual(p.sitemaps, []);
}

function assertDisallowsAll(p: RobotsPolicy): void {
  const rules = p.forAgent('shoalbot');
  for (const path of ['/', '/private/x', '/anything?q=1']) assert.equal(rules.isAllowed(path), false, path);
  // The retry itself is never blocked.
  assert.equal(rules.isAllowed('/robots.txt'), true);
  assert.deepEqual(p.sitemaps, []);
}

describe('robotsFromFetch', () => {
  test('defaults: 24 hours of validity, 15 minutes before a retry', () => {
    assert.equal(DEFAULT_ROBOTS_MAX_AGE_MS, 86_400_000);
    assert.equal(DEFAULT_ROBOTS_RETRY_MS, 900_000);
  });

  test('2xx: the body is parsed and its rules apply for 24 hours', () => {
    for (const status of [200, 203, 299]) {
      const p = robotsFromFetch({ kind: 'ok', status, body: BODY });
      assert.equal(p.kind, RobotsPolicyKind.parsed);
      assert.equal(p.expiresInMs, DEFAULT_ROBOTS_MAX_AGE_MS);
      const rules = p.forAgent('shoalbot/1.0 (+https://example.org/bot)');
      assert.equal(rules.isAllowed('/private/x'), false);
      assert.equal(rules.isAllowed('/public'), true);
      assert.equal(rules.crawlDelayMs, 2000);
      assert.deepEqual(p.sitemaps, ['https://example.com/sitemap.xml']);
    }
  });

  test('2xx with an empty body or octets', () => {
    assertAllowsAll(robotsFromFetch({ kind: 'ok', status: 204, body: '' }));
    const p = robotsFromFetch({ kind: 'ok', status: 200, body: new TextEncoder().encode(BODY) });
    assert.equal(p.forAgent('shoalbot').isAllowed('/private/'), false);
  });

  test('maxBytes is passed to the parser', () => {
    const p = robotsFromFetch({ kind: 'ok', status: 200, body: BODY }, { maxBytes: 'User-agent: *\n'.length });
    assert.equal(p.forAgent('shoalbot').isAllowed('/private/x'), true);
  });

  test('4xx, including 401 and 403, means no restrictions (RFC 9309 §2.3.1.3)', () => {
    for (const status of [400, 401, 403, 404, 410, 451, 499]) {
      const p = robotsFromFetch({ kind: 'http-error', status });
      assert.equal(p.kind, RobotsPolicyKind.clientError, String(status));
      assert.equal(p.expiresInMs, DEFAULT_ROBOTS_MAX_AGE_MS);
      assertAllowsAll(p);
    }
  });

  test('more than five redirects: unavailable, so no restrictions (RFC 9309 §2.3.1.2)', () => {
    const p = robotsFromFetch({ kind: 'too-many-redirects' });
    assert.equal(p.kind, RobotsPolicyKind.tooManyRedirects);
    assert.equal(p.expiresInMs, DEFAULT_ROBOTS_MAX_AGE_MS);
    assertAllowsAll(p);
  });

  test('5xx means complete disallow until a retry (RFC 9309 §2.3.1.4)', () => {
    for (const status of [500, 502, 503, 504, 599]) {
      const p = robotsFromFetch({ kind: 'http-error', status });
      assert.equal(p.kind, RobotsPolicyKind.serverError, String(status));
      assert.equal(p.expiresInMs, DEFAULT_ROBOTS_RETRY_MS);
      assertDisallowsAll(p);
    }
  });

  test('unreachable (network error, timeout, DNS failure) means complete disallow', () => {
    const p = robotsFromFetch({ kind: 'unreachable' });
    assert.equal(p.kind, RobotsPolicyKind.unreachable);
    assert.equal(p.expiresInMs, DEFAULT_ROBOTS_RETRY_MS);
    assertDisallowsAll(p);
  });

  test('429 is a request to slow down, not permission: disallow and retry', () => {
    const p = robotsFromFetch({ kind: 'http-error', status: 429 });
    assert.equal(p.kind, RobotsPolicyKind.rateLimited);
    assert.equal(p.expiresInMs, DEFAULT_ROBOTS_RETRY_MS);
    assertDisallowsAll(p);
  });

  test('statuses that are not an answer (1xx, unfollowed 3xx, out of range) disallow and retry', () => {
    for (const status of [100, 200, 301, 304, 600, 0]) {
      const p = robotsFromFetch({ kind: 'http-error', status });
      assert.equal(p.kind, RobotsPolicyKind.unexpectedStatus, String(status));
      assertDisallowsAll(p);
    }
  });

  test('a body under a non-2xx status counts as that status', () => {
    assert.equal(robotsFromFetch({ kind: 'ok', status: 404, body: BODY }).kind, RobotsPolicyKind.clientError);
    assert.equal(robotsFromFetch({ kind: 'ok', status: 500, body: BODY }).kind, RobotsPolicyKind.serverError);
  });

  test('Retry-After sets the retry delay, capped by maxAgeMs', () => {
    assert.equal(robotsFromFetch({ kind: 'http-error', status: 503, retryAfterMs: 120_000 }).expiresInMs, 120_000);
    assert.equal(robotsFromFetch({ kind: 'http-error', status: 429, retryAfterMs: 0 }).expiresInMs, 0);
    assert.equal(
      robotsFromFetch({ kind: 'http-error', status: 503, retryAfterMs: 10 * DEFAULT_ROBOTS_MAX_AGE_MS }).expiresInMs,
      DEFAULT_ROBOTS_MAX_AGE_MS,
    );
    // A client error is final for maxAgeMs whatever the header says.
    assert.equal(robotsFromFetch({ kind: 'http-error', status: 404, retryAfterMs: 5 }).expiresInMs, DEFAULT_ROBOTS_MAX_AGE_MS);
  });

  test('maxAgeMs and retryMs are configurable; the retry never outlasts maxAgeMs', () => {
    const options = { maxAgeMs: 3_600_000, retryMs: 60_000 };
    assert.equal(robotsFromFetch({ kind: 'ok', status: 200, body: BODY }, options).expiresInMs, 3_600_000);
    assert.equal(robotsFromFetch({ kind: 'http-error', status: 404 }, options).expiresInMs, 3_600_000);
    assert.equal(robotsFromFetch({ kind: 'unreachable' }, options).expiresInMs, 60_000);
    assert.equal(robotsFromFetch({ kind: 'unreachable' }, { maxAgeMs: 1000, retryMs: 60_000 }).expiresInMs, 1000);
  });

  test('negative or NaN options are a caller bug', () => {
    assert.throws(() => robotsFromFetch({ kind: 'unreachable' }, { maxAgeMs: -1 }), RangeError);
    assert.throws(() => robotsFromFetch({ kind: 'unreachable' }, { retryMs: Number.NaN }), RangeError);
  });
});
