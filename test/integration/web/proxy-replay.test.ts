/**
 * The forward proxy (absolute-form requests, 502 for unknown hosts, 501 for CONNECT) and replay
 * mode (real folders served as hosts: content types, index files, slash redirects, and no way out
 * of the folder by `..` or symlinks).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { get } from '../../helpers/http.js';
import { anchorHrefs, fetchPath } from './support.js';

const HOST = 'docs.replay.test';
const SECRET = 'secret outside the replay root';
let dir: string;
let root: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'shoal-replay-'));
  root = join(dir, 'site');
  mkdirSync(join(root, 'guide', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), SECRET);
  writeFileSync(
    join(root, 'index.html'),
    '<html><body><a href="guide/">Guide</a> <a href="/style.css">css</a> <a href="data.json">data</a></body></html>\n',
  );
  writeFileSync(
    join(root, 'guide', 'index.html'),
    '<html><body><a href="intro.html">Intro</a> <a href="deep/notes.txt">notes</a> <a href="../">home</a></body></html>\n',
  );
  writeFileSync(join(root, 'guide', 'intro.html'), '<html><body><a href="/guide/">up</a> <a href="../index.html">home</a></body></html>\n');
  writeFileSync(join(root, 'guide', 'deep', 'notes.txt'), 'plain notes\n');
  mkdirSync(join(root, 'справка'));
  writeFileSync(join(root, 'справка', 'index.html'), '<html><body>help</body></html>\n');
  writeFileSync(join(root, 'style.css'), 'body { color: black }\n');
  writeFileSync(join(root, 'data.json'), '{"ok":true}\n');
  symlinkSync(join(dir, 'secret.txt'), join(root, 'escape.txt'));
  symlinkSync(dir, join(root, 'outside'));
  symlinkSync(join(root, 'guide', 'intro.html'), join(root, 'alias.html'));
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('forward proxy: absolute-form GET as direct, 502 for unknown hosts, 501 for CONNECT', async () => {
  const web = await startTestWeb({
    seed: 4,
    hosts: 20,
    pages: 2000,
    server: { addressCount: 4, proxyPort: 0 },
    latency: { slowHostRate: 0 },
  });
  try {
    assert.ok(web.proxyUrl !== null);
    const proxy = web.proxyUrl;
    for (const url of [
      web.seeds[0] as string,
      web.url(web.model.pageCount - 1),
      `http://${web.model.hosts[3]?.name}:${web.port}/robots.txt`,
    ]) {
      const direct = await get(url, web.hostsMap);
      const viaProxy = await get(url, web.hostsMap, { proxy });
      assert.equal(viaProxy.status, direct.status, url);
      assert.deepEqual(viaProxy.body, direct.body, url);
    }
    const logged = web.log.entries().filter((r) => r.isViaProxy);
    assert.equal(logged.length, 3);
    assert.equal(logged[0]?.host, new URL(web.seeds[0] as string).hostname);

    assert.equal((await get(`http://no-such-host.test:${web.port}/`, web.hostsMap, { proxy })).status, 502);

    const { hostname, port } = new URL(proxy);
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(port), hostname);
      let text = '';
      sock.on('data', (d: Buffer) => {
        text += d.toString();
      });
      sock.on('close', () => resolve(text));
      sock.on('error', reject);
      sock.write(`CONNECT ${web.model.hosts[0]?.name}:443 HTTP/1.1\r\nHost: ${web.model.hosts[0]?.name}:443\r\n\r\n`);
    });
    assert.match(answer, /^HTTP\/1\.1 501 /);
  } finally {
    await web.close();
  }
});

test('replay: a folder served as a host, alone (hosts: 0)', async (t) => {
  const web: TestWeb = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 2 }, replay: [{ host: HOST, root }] });
  t.after(() => web.close());
  assert.equal(web.model.hosts.length, 0);
  assert.ok(web.hostsMap.has(HOST));
  assert.deepEqual(web.seeds, [`http://${HOST}:${web.port}/`]);

  await t.test('files with their content types; a folder serves its index.html', async () => {
    const types: Record<string, string> = {
      '/': 'text/html; charset=utf-8',
      '/guide/intro.html': 'text/html; charset=utf-8',
      '/style.css': 'text/css',
      '/data.json': 'application/json',
      '/guide/deep/notes.txt': 'text/plain; charset=utf-8',
    };
    for (const [path, type] of Object.entries(types)) {
      const r = await fetchPath(web, HOST, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-type'], type, path);
    }
    assert.match((await fetchPath(web, HOST, '/guide/')).body.toString(), /href="intro\.html"/);
    assert.equal((await fetchPath(web, HOST, '/alias.html')).status, 200, 'a symlink inside the root is fine');
    assert.equal((await fetchPath(web, HOST, '/missing.html')).status, 404);
  });

  await t.test('a folder without its trailing slash redirects', async () => {
    const r = await fetchPath(web, HOST, '/guide?x=1');
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, '/guide/?x=1');
    // A folder name outside Latin-1 is redirected percent-encoded, and the redirect leads to its index.
    const encoded = `/${encodeURIComponent('справка')}`;
    const moved = await fetchPath(web, HOST, encoded);
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.location, `${encoded}/`);
    assert.equal((await fetchPath(web, HOST, String(moved.headers.location))).body.toString(), '<html><body>help</body></html>\n');
  });

  await t.test('every link of the interlinked files leads to a file that answers 200', async () => {
    const queue = [`http://${HOST}:${web.port}/`];
    const seen = new Set(queue);
    while (queue.length > 0) {
      const url = queue.shift() as string;
      const r = await get(url, web.hostsMap);
      assert.equal(r.status, 200, url);
      if (!String(r.headers['content-type']).startsWith('text/html')) continue;
      for (const href of anchorHrefs(r.body.toString())) {
        const next = new URL(href, url).href;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    assert.equal(seen.size, 7, [...seen].join(' '));
  });

  await t.test('.. traversal and symlinks out of the root are refused', async () => {
    for (const path of [
      '/../secret.txt',
      '/..%2fsecret.txt',
      '/guide/..%2f..%2fsecret.txt',
      '/%2e%2e/secret.txt',
      '/escape.txt',
      '/outside/secret.txt',
      '/outside/',
    ]) {
      const r = await fetchPath(web, HOST, path);
      assert.equal(r.status, 404, path);
      assert.ok(!r.body.toString().includes(SECRET), path);
    }
  });

  await t.test('the log records replay requests', () => {
    const entries = web.log.entries().filter((r) => r.host === HOST);
    assert.ok(entries.some((r) => r.outcome === 'replay' && r.status === 200 && r.path === '/style.css'));
    assert.ok(entries.some((r) => r.status === 404 && r.path === '/escape.txt'));
  });
});

test('replay beside a synthetic web', async () => {
  const web = await startTestWeb({ seed: 4, hosts: 10, pages: 500, server: { addressCount: 4 }, replay: [{ host: HOST, root }] });
  try {
    assert.equal(web.hostsMap.get(HOST), web.replayHosts[0]?.ip);
    assert.ok(web.seeds.includes(`http://${HOST}:${web.port}/`));
    assert.equal((await fetchPath(web, HOST, '/data.json')).body.toString(), '{"ok":true}\n');
    assert.equal((await get(web.seeds[0] as string, web.hostsMap)).status, 200);
  } finally {
    await web.close();
  }
});

test('a missing replay root fails at start with REPLAY_ROOT naming the field', async () => {
  await assert.rejects(
    startTestWeb({ hosts: 0, pages: 0, replay: [{ host: HOST, root: join(dir, 'no-such-folder') }] }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.code, 'REPLAY_ROOT');
      assert.deepEqual(
        err.issues.map((i) => i.path),
        ['replay.0.root'],
      );
      return true;
    },
  );
});
