/**
 * The `metrics` section of the crawl configuration (src/config/metrics-config.ts): off by default,
 * loopback by default, and an address other than loopback only with allowRemote.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { loadConfig, validateConfig } from '../../../src/config/load.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema } from '../../../src/config/crawl-config.js';

function problems(metrics: unknown): string[] {
  try {
    validateConfig(crawlConfigSchema, { metrics });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

describe('metrics configuration', () => {
  test('is off, on loopback, by default', () => {
    assert.deepEqual(crawlConfigSchema.parse({}).metrics, { port: null, host: '127.0.0.1', allowRemote: false });
  });

  test('binds any loopback address, and another only when allowRemote says so', () => {
    assert.deepEqual(problems({ port: 0, host: '127.0.0.2' }), []);
    assert.deepEqual(problems({ port: 0, host: '::1' }), []);
    const [wildcard] = problems({ port: 9464, host: '0.0.0.0' });
    assert.match(wildcard ?? '', /^metrics\.host: 0\.0\.0\.0 is not a loopback address: set metrics\.allowRemote/);
    assert.equal(problems({ port: 9464, host: '10.1.2.3' }).length, 1);
    assert.deepEqual(problems({ port: 9464, host: '0.0.0.0', allowRemote: true }), []);
  });

  test('wants an IP address and a TCP port', () => {
    assert.match(problems({ host: 'localhost' })[0] ?? '', /^metrics\.host: expected an IP address/);
    assert.deepEqual(
      problems({ port: 70_000 }).map((p) => p.split(':')[0]),
      ['metrics.port'],
    );
    assert.equal(problems({ port: -1 }).length, 1);
  });

  test('is set from the environment like every option', () => {
    const c = loadConfig(crawlConfigSchema, {
      env: { SHOAL_CRAWL_METRICS_PORT: '9464', SHOAL_CRAWL_METRICS_HOST: '::1' },
      envPrefix: CRAWL_ENV_PREFIX,
    });
    assert.deepEqual(c.metrics, { port: 9464, host: '::1', allowRemote: false });
  });
});
