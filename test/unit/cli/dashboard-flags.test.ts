/** The dashboard's flags of `shoal crawl` and `shoal node` onto the configuration's `dashboard` section. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlConfigFromFlags, type CrawlFlags } from '../../../src/cli/commands/crawl.js';
import { ConfigError } from '../../../src/core/errors.js';
import { announceDashboard } from '../../../src/cli/crawl-dashboard.js';

const base: CrawlFlags = { seed: [], sitemap: [], resolve: [], set: [], out: 'crawl' };

describe('dashboard flags', () => {
  test('off by default; --dashboard turns it on with the defaults: loopback, a free port, no token', () => {
    assert.deepEqual(crawlConfigFromFlags(base, {}).dashboard, { enabled: false, host: '127.0.0.1', port: 0, token: null });
    assert.deepEqual(crawlConfigFromFlags({ ...base, dashboard: true }, {}).dashboard, {
      enabled: true,
      host: '127.0.0.1',
      port: 0,
      token: null,
    });
  });

  test('any dashboard flag turns it on', () => {
    const c = crawlConfigFromFlags({ ...base, dashboardHost: '0.0.0.0', dashboardPort: '8080', dashboardToken: 'a-long-enough-token' }, {});
    assert.deepEqual(c.dashboard, { enabled: true, host: '0.0.0.0', port: 8080, token: 'a-long-enough-token' });
  });

  test('the token may come from the environment, and --set works', () => {
    const c = crawlConfigFromFlags(
      { ...base, set: ['dashboard.enabled=true', 'dashboard.port=9000'] },
      {
        SHOAL_CRAWL_DASHBOARD_TOKEN: 'token-from-the-environment',
      },
    );
    assert.deepEqual(c.dashboard, { enabled: true, host: '127.0.0.1', port: 9000, token: 'token-from-the-environment' });
  });

  test('a bad port or a short token is a configuration error naming it', () => {
    assert.throws(
      () => crawlConfigFromFlags({ ...base, dashboardPort: 'eighty' }, {}),
      (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.path === '--dashboard-port'),
    );
    assert.throws(
      () => crawlConfigFromFlags({ ...base, dashboardPort: '70000' }, {}),
      (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.path === 'dashboard.port'),
    );
    assert.throws(
      () => crawlConfigFromFlags({ ...base, dashboardToken: 'short' }, {}),
      (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.path === 'dashboard.token' && /16/.test(i.message)),
    );
  });
});

describe('the dashboard line', () => {
  const settings = { host: '127.0.0.1', port: 0, token: null };
  const say = (url: string, token: string | null, isGenerated: boolean, host = '127.0.0.1'): string => {
    let text = '';
    announceDashboard(
      { err: (t) => (text += t) },
      { url, port: 1, access: { token, isGenerated }, close: async () => {} },
      { ...settings, host, token: isGenerated ? null : token },
    );
    return text;
  };

  test('names the address; a generated token with it, a given one never', () => {
    assert.equal(say('http://127.0.0.1:8080/', null, false), 'shoal: dashboard on http://127.0.0.1:8080/\n');
    assert.match(
      say('http://0.0.0.0:8080/?token=abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz012345', true, '0.0.0.0'),
      /^shoal: dashboard on http:\/\/0\.0\.0\.0:8080\/\?token=abcdefghijklmnopqrstuvwxyz012345 \(0\.0\.0\.0 is not loopback: a token was generated/,
    );
    const given = say('http://0.0.0.0:8080/?token=the-secret-given-here', 'the-secret-given-here', false, '0.0.0.0');
    assert.equal(given, 'shoal: dashboard on http://0.0.0.0:8080/ (token required: the one given)\n');
  });
});
