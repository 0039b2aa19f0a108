/**
 * The `normalize` and `network.dnsServers` options as the crawl configuration reads them: defaults
 * that keep today's rules, errors with their paths, and which sections count as the default one (a
 * distributed node publishes the others with the crawl's shared settings).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { isDefaultNormalize } from '../../../src/config/normalize-config.js';
import { DEFAULT_DROP_PARAMS, normalizeUrl } from '../../../src/url/normalize.js';

const issuesOf = (input: unknown): string[] => {
  const r = crawlConfigSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('normalize section', () => {
  test('defaults to the rules normalizeUrl applies without options', () => {
    const c = crawlConfigSchema.parse({});
    assert.deepEqual(c.normalize, { stripWww: false, sortQuery: false, dropParams: [...DEFAULT_DROP_PARAMS] });
    assert.ok(isDefaultNormalize(c.normalize));
    const url = 'http://www.example.com/a;jsessionid=1?b=2&utm_source=x&a=1';
    assert.deepEqual(normalizeUrl(url, undefined, c.normalize), normalizeUrl(url));
  });

  test('any rule changed makes it a section of its own', () => {
    for (const normalize of [
      { stripWww: true },
      { sortQuery: true },
      { dropParams: [] },
      { dropParams: [...DEFAULT_DROP_PARAMS, 'ref'] },
    ]) {
      assert.equal(isDefaultNormalize(crawlConfigSchema.parse({ normalize }).normalize), false, JSON.stringify(normalize));
    }
  });

  test('refuses a pattern with a * inside, and unknown keys', () => {
    assert.deepEqual(issuesOf({ normalize: { dropParams: ['ok', 'u*tm'] } }), ['normalize.dropParams.1: a name, or a prefix ending in *']);
    assert.equal(issuesOf({ normalize: { stripwww: true } }).length, 1);
  });
});

describe('network.dnsServers', () => {
  test('takes addresses with and without ports', () => {
    const c = crawlConfigSchema.parse({ network: { dnsServers: ['127.0.0.1:5353', '::1', '[::1]:53'] } });
    assert.deepEqual(c.network.dnsServers, ['127.0.0.1:5353', '::1', '[::1]:53']);
    assert.deepEqual(crawlConfigSchema.parse({}).network.dnsServers, []);
  });

  test('names each bad entry by its path', () => {
    const issues = issuesOf({ network: { dnsServers: ['10.0.0.1', 'dns.example', '10.0.0.1:99999'] } });
    assert.equal(issues.length, 2, issues.join('\n'));
    assert.match(issues[0] as string, /^network\.dnsServers\.1: expected IP or IP:PORT/);
    assert.match(issues[1] as string, /^network\.dnsServers\.2: port must be 1-65535/);
  });
});
