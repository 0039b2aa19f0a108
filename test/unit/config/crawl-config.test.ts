/** The crawl configuration schema: defaults, units, strictness and every problem with its path. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { loadConfig, validateConfig } from '../../../src/config/load.js';
import { listFields } from '../../../src/config/describe.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema, DEFAULT_USER_AGENT } from '../../../src/config/crawl-config.js';

function issues(input: unknown): string[] {
  try {
    validateConfig(crawlConfigSchema, input);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.issues.map((i) => i.path);
  }
  return [];
}

describe('crawlConfigSchema', () => {
  test('fills every default; the politeness defaults are Mercator’s', () => {
    const c = crawlConfigSchema.parse({});
    assert.deepEqual(c.politeness, {
      minDelayMs: 1000,
      delayFactor: 5,
      maxDelayMs: 30_000,
      maxConnectionsPerHost: 1,
      maxConnectionsPerIp: 1,
      backoffBaseMs: 10_000,
      backoffMaxMs: 600_000,
      maxCrawlDelayMs: 60_000,
      maxRetryAfterMs: 600_000,
      maxHostShare: null,
      hostShareWindowMs: 3_600_000,
    });
    assert.deepEqual([c.fetch.minBytesPerSecond, c.fetch.minRateWindowMs], [1000, 10_000]);
    assert.equal(c.fetch.userAgent, DEFAULT_USER_AGENT);
    assert.equal(c.store.outDir, null);
    assert.equal(c.limits.maxPages, null);
    assert.equal(c.parse.anchorContextTokens, 10);
  });

  test('documents every option, with a unit for every number', () => {
    for (const f of listFields(crawlConfigSchema)) {
      assert.ok(f.doc.length > 10, `${f.path} is documented`);
      assert.notEqual(f.defaultValue, undefined, `${f.path} has a default`);
      if (f.type === 'integer' || f.type === 'number') assert.ok(f.unit !== undefined, `${f.path} has a unit`);
    }
  });

  test('reads durations and sizes with units', () => {
    const c = crawlConfigSchema.parse({ politeness: { minDelayMs: '2s' }, fetch: { maxBodyBytes: '2MiB', totalTimeoutMs: '1m' } });
    assert.equal(c.politeness.minDelayMs, 2000);
    assert.equal(c.fetch.maxBodyBytes, 2 * 1024 * 1024);
    assert.equal(c.fetch.totalTimeoutMs, 60_000);
  });

  test('lists every problem with its path: unknown keys, bad values, bad --resolve entries', () => {
    assert.deepEqual(
      issues({
        politeness: { minDelay: 5, maxConnectionsPerHost: 0 },
        network: { resolve: ['*.test=127.0.0.1', 'a.test', 'b.test=nope'] },
        fetch: { proxyUrl: 'ftp://x', userAgent: 'two\nlines' },
        limits: { concurrency: 0 },
      }).sort(),
      [
        'fetch.proxyUrl',
        'fetch.userAgent',
        'limits.concurrency',
        'network.resolve.1',
        'network.resolve.2',
        'politeness.maxConnectionsPerHost',
        'politeness.minDelay',
      ],
    );
    assert.deepEqual(issues({ politeness: { backoffBaseMs: 5000, backoffMaxMs: 1000 } }), ['politeness.backoffMaxMs']);
    assert.deepEqual(issues({ fetch: { minRateWindowMs: 0 } }), ['fetch.minRateWindowMs']);
    assert.deepEqual(issues({ fetch: { minBytesPerSecond: 0, minRateWindowMs: 0 } }), [], 'no window needed with the rule off');
    assert.deepEqual(issues({ fetch: { minBytesPerSecond: -1 } }), ['fetch.minBytesPerSecond']);
    // A cap below the floor is allowed: the gap is then minDelayMs (frontier.ts, fetchGapMs).
    assert.deepEqual(issues({ politeness: { minDelayMs: 60_000 } }), []);
  });

  test('takes environment variables SHOAL_CRAWL_*', () => {
    const c = loadConfig(crawlConfigSchema, {
      env: {
        SHOAL_CRAWL_POLITENESS_MIN_DELAY_MS: '250ms',
        SHOAL_CRAWL_NETWORK_ALLOW_LOOPBACK: 'true',
        SHOAL_CRAWL_SEEDS_URLS: '[http://a.test/]',
      },
      envPrefix: CRAWL_ENV_PREFIX,
      flags: { limits: { concurrency: 3 } },
    });
    assert.equal(c.politeness.minDelayMs, 250);
    assert.equal(c.network.allowLoopback, true);
    assert.deepEqual(c.seeds.urls, ['http://a.test/']);
    assert.equal(c.limits.concurrency, 3);
  });
});
