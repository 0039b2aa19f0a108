/**
 * The system lookup's choice of queries (src/dns/system-lookup.ts), with scripted DNS queries and OS
 * resolver and a hosts file in a scratch directory: no query leaves the process.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createSystemLookup, hostsFileNames, type RecordQuery } from '../../../src/dns/system-lookup.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-system-lookup-');
let files = 0;

function failure(code: string): Error {
  return Object.assign(new Error(`query ${code}`), { code });
}

/** DNS that knows `a` (A records) and `aaaa` (AAAA records) by name, fails every other query with `code`, and logs the queries. */
function world(options: {
  code?: string;
  a?: Record<string, string>;
  aaaa?: Record<string, string>;
  hosts?: string | null;
  os?: Record<string, string>;
}) {
  const queries: string[] = [];
  const records =
    (family: 'A' | 'AAAA', known: Record<string, string>): RecordQuery =>
    async (host) => {
      queries.push(`${family} ${host}`);
      const ip = known[host];
      if (ip === undefined) throw failure(options.code ?? 'ENOTFOUND');
      return [{ address: ip, ttl: 60 }];
    };
  const hostsFile = join(root, `hosts-${++files}`);
  if (options.hosts !== null) writeFileSync(hostsFile, options.hosts ?? '127.0.0.1 localhost\n');
  const lookup = createSystemLookup({
    resolve4: records('A', options.a ?? {}),
    resolve6: records('AAAA', options.aaaa ?? {}),
    osLookup: async (host) => {
      queries.push(`os ${host}`);
      const ip = options.os?.[host];
      if (ip === undefined) throw failure('ENOTFOUND');
      return { address: ip, family: ip.includes(':') ? 6 : 4 };
    },
    hostsFile,
  });
  return { lookup, queries, hostsFile };
}

describe('system lookup', () => {
  test('an address from DNS comes with its TTL; AAAA when there is no A record', async () => {
    const w = world({ code: 'ENODATA', a: { 'v4.example': '192.0.2.1' }, aaaa: { 'v6.example': '2001:db8::1' } });
    assert.deepEqual(await w.lookup('v4.example'), { kind: 'ok', ip: '192.0.2.1', family: 4, ttlMs: 60_000 });
    assert.deepEqual(await w.lookup('v6.example'), { kind: 'ok', ip: '2001:db8::1', family: 6, ttlMs: 60_000 });
    assert.deepEqual(w.queries, ['A v4.example', 'A v6.example', 'AAAA v6.example']);
  });

  test('NXDOMAIN is the answer: no AAAA query, no OS lookup', async () => {
    const w = world({ code: 'ENOTFOUND' });
    const answer = await w.lookup('dead.example');
    assert.deepEqual(answer.kind === 'dns-error' ? [answer.kind, answer.code] : answer, ['dns-error', 'ENOTFOUND']);
    assert.deepEqual(w.queries, ['A dead.example']);
  });

  test('no address record of either family is the answer too', async () => {
    const w = world({ code: 'ENODATA' });
    const answer = await w.lookup('mx-only.example');
    assert.deepEqual(answer.kind === 'dns-error' ? answer.code : answer, 'ENODATA');
    assert.deepEqual(w.queries, ['A mx-only.example', 'AAAA mx-only.example']);
  });

  test('after NXDOMAIN the OS resolver is asked for names it may know without DNS', async () => {
    const w = world({
      code: 'ENOTFOUND',
      hosts: '# comment\n10.1.2.3   intranet.example  alias.example # trailing\n\n::1 ip6-localhost\n',
      os: { 'intranet.example': '10.1.2.3', 'alias.example': '10.1.2.3', localhost: '127.0.0.1', 'printer.local': '10.0.0.9' },
    });
    for (const name of ['INTRANET.example', 'alias.example.', 'localhost', 'app.localhost', 'printer.local', 'myhost'])
      await w.lookup(name);
    assert.deepEqual(
      w.queries.filter((q) => q.startsWith('os ')),
      ['os INTRANET.example', 'os alias.example.', 'os localhost', 'os app.localhost', 'os printer.local', 'os myhost'],
    );
    assert.deepEqual(await w.lookup('intranet.example'), { kind: 'ok', ip: '10.1.2.3', family: 4, ttlMs: null });
    await w.lookup('elsewhere.example');
    assert.equal(w.queries.at(-1), 'A elsewhere.example', 'a name in no hosts file is not asked again');
  });

  test('when DNS cannot be asked, or the hosts file cannot be read, the OS resolver decides', async () => {
    for (const code of ['ECONNREFUSED', 'ETIMEOUT', 'ESERVFAIL']) {
      const w = world({ code, os: { 'a.example': '192.0.2.7' } });
      assert.deepEqual(await w.lookup('a.example'), { kind: 'ok', ip: '192.0.2.7', family: 4, ttlMs: null }, code);
      assert.deepEqual(w.queries, ['A a.example', 'AAAA a.example', 'os a.example'], code);
    }
    const noFile = world({ code: 'ENOTFOUND', hosts: null });
    await noFile.lookup('dead.example');
    assert.deepEqual(noFile.queries, ['A dead.example', 'os dead.example']);
  });

  test('the hosts file is read again when it changes', async () => {
    const w = world({ code: 'ENOTFOUND', hosts: '127.0.0.1 localhost\n', os: { 'late.example': '10.9.9.9' } });
    assert.equal((await w.lookup('late.example')).kind, 'dns-error');
    writeFileSync(w.hostsFile, '127.0.0.1 localhost\n10.9.9.9 late.example\n');
    assert.deepEqual(await w.lookup('late.example'), { kind: 'ok', ip: '10.9.9.9', family: 4, ttlMs: null });
  });

  test('hosts file names: every name of a line after its address, in canonical form, comments ignored', () => {
    assert.deepEqual(
      [...hostsFileNames('127.0.0.1 localhost Local.Test.\n# 10.0.0.1 hidden\n10.0.0.2\tbücher.example #x\nbad-line\n')],
      ['localhost', 'local.test', 'xn--bcher-kva.example'],
    );
  });

  test('the OS resolver is asked one name at a time, however many DNS could not answer', async () => {
    let running = 0;
    let most = 0;
    const asked: string[] = [];
    const lookup = createSystemLookup({
      resolve4: async () => Promise.reject(failure('ETIMEOUT')),
      resolve6: async () => Promise.reject(failure('ETIMEOUT')),
      osLookup: async (host) => {
        asked.push(host);
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running--;
        return { address: '192.0.2.9', family: 4 };
      },
      hostsFile: join(root, 'no-such-hosts-file'),
    });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => lookup(`slow${i}.example`)));
    assert.equal(most, 1);
    assert.equal(asked.length, 20);
    assert.ok(answers.every((a) => a.kind === 'ok' && a.ip === '192.0.2.9' && a.ttlMs === null));
  });
});
