/**
 * The crawler's resolver reads the hosts file the test web writes, and every synthetic host then
 * resolves to the loopback address that serves it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';

let web: TestWeb;
before(async () => {
  web = await startTestWeb({ ...WEB_PRESETS.tiny, server: { ...WEB_PRESETS.tiny.server, addressCount: 4 } });
});
after(async () => {
  await web.close();
});

test('every test-web host resolves through its hosts file to the address that serves it', async () => {
  const resolver = new CachingResolver({
    hostsMap: HostsMap.fromHostsFile(readFileSync(web.hostsFile, 'utf8')),
    isSystemAllowed: false,
  });
  assert.ok(web.hostsMap.size > 10);
  for (const [name, ip] of web.hostsMap) {
    const res = await resolver.resolve(name.toUpperCase());
    assert.deepEqual(res, { kind: 'ok', ip, family: 4, source: 'hosts-map' }, name);
  }
  const unknown = await resolver.resolve('not-served.test');
  assert.equal(unknown.kind, 'dns-error');
});
