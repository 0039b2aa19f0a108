/**
 * A parked URL's new priority survives `kill -9` (`src/frontier-store/README.md`, Parking: the
 * PRIORITY records of the frontier log). `shoal crawl --order backlink` with
 * `frontier.memoryUrlsPerHost: 2` of a hand-made web of two hosts:
 *
 *     a.test/   ─▶ /p1 /p2 /p3 /p4 /p5 /p6        robots.txt: Crawl-delay 3 (one fetch of a every 3 s)
 *     b.test/   ─▶ /x1 /x2 /x3 /x4 /x5            each xK ─▶ a.test/p6
 *
 * The hosts are on two loopback addresses (a crawl is polite per address too). a.test/ is served
 * first (the server holds b.test/ until then), so p1..p6 are queued with IB′ = 1:
 * p1 and p2 take the host's slots, p3..p6 are parked in one band. b.test's pages are fetched while
 * a waits out its Crawl-delay, and raise p6 to IB′ = 6: parked, its change is held and journaled at
 * the next checkpoint. The run is killed then, before a's next fetch. The resumed run's backlink
 * policy knows nothing (its state is not persisted, and b's pages are done), so only the frontier
 * can remember p6: it must come back in the band of 6 and be fetched right after p1, ahead of p2
 * (p1, p6, p2, p3, p4, p5). Without the journal it comes back last (p1, p2, ..., p6).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { runToEnd } from '../helpers/resume.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-priority-journal-'));
/** Time after the last of b's pages is served before the kill: several 200 ms checkpoints, and well before a's next fetch. */
const SETTLE_MS = 700;
/** One handler on 127.0.0.1 (a.test) and 127.0.0.2 (b.test), on the same port. */
const servers: Server[] = [];
let port = 0;
/** Paths served, `host/path`, in order. */
const served: string[] = [];
let aServed: () => void = () => undefined;
const aRoot = new Promise<void>((resolve) => (aServed = resolve));
let bDone: () => void = () => undefined;
const bPages = new Promise<void>((resolve) => (bDone = resolve));

function page(links: readonly string[]): string {
  return `<!doctype html><html><head><title>t</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
}

before(async () => {
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const host = (req.headers.host ?? '').split(':')[0] as string;
    const path = req.url ?? '/';
    const send = (status: number, type: string, body: string): void => {
      served.push(`${host}${path}`);
      res.writeHead(status, { 'content-type': type }).end(body);
    };
    if (path === '/robots.txt') return send(200, 'text/plain', host === 'a.test' ? 'User-agent: *\nCrawl-delay: 3\n' : '');
    if (host === 'a.test' && path === '/') {
      send(200, 'text/html', page(['/p1', '/p2', '/p3', '/p4', '/p5', '/p6']));
      aServed();
      return;
    }
    if (host === 'a.test' && /^\/p[1-6]$/.test(path)) return send(200, 'text/html', page([]));
    if (host === 'b.test' && path === '/') {
      // After a.test/ and its analysis, so that p6 is queued (and parked) before b's links name it.
      void aRoot.then(() => setTimeout(() => send(200, 'text/html', page(['/x1', '/x2', '/x3', '/x4', '/x5'])), 300));
      return;
    }
    if (host === 'b.test' && /^\/x[1-5]$/.test(path)) {
      send(200, 'text/html', page([`http://a.test:${port}/p6`]));
      if (served.filter((s) => /^b\.test\/x/.test(s)).length === 5) bDone();
      return;
    }
    send(404, 'text/plain', 'no');
  };
  for (const address of ['127.0.0.1', '127.0.0.2']) {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(port, address, resolve));
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  writeFileSync(
    join(dir, 'backlink.yaml'),
    'frontier:\n  memoryUrlsPerHost: 2\n  checkpointIntervalMs: 200ms\npoliteness:\n  delayFactor: 0\norder:\n  policy: backlink\n',
  );
});
after(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function args(out: string): string[] {
  return [
    bin,
    'crawl',
    ...['--seed', `http://a.test:${port}/`, '--seed', `http://b.test:${port}/`],
    ...['--resolve', 'a.test=127.0.0.1', '--resolve', 'b.test=127.0.0.2'],
    '--allow-loopback',
    ...['--out', out, '--min-delay-ms', '0', '--concurrency', '2', '--config', join(dir, 'backlink.yaml')],
  ];
}

/** a.test's pages p1..p6 fetched (`ok`), in crawl-log order. */
async function aPagesFetched(out: string): Promise<string[]> {
  const paths: string[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
    const u = new URL(e.url);
    if (e.outcome === 'ok' && u.hostname === 'a.test' && u.pathname !== '/' && u.pathname !== '/robots.txt')
      paths.push(u.pathname.slice(1));
  }
  return paths;
}

describe('priority changes of parked URLs across kill -9', () => {
  it('a re-prioritized parked URL comes back in the band of its latest priority', { timeout: 120_000 }, async () => {
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/commands/crawl.js', import.meta.url))), 'dist/ is built (`npm run build`)');
    const out = join(dir, 'crawl');
    const child = spawn(process.execPath, args(out), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await Promise.race([bPages, exited]);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', `the first run was still crawling when killed: ${stderr}`);
    assert.deepEqual(await aPagesFetched(out), [], `no page of a.test but its root before the kill (served: ${served.join(' ')})`);

    const { code, stdout, stderr: err } = await runToEnd(args(out));
    assert.equal(code, 0, err);
    assert.match(stdout, /done: the frontier is empty/);
    assert.deepEqual(await aPagesFetched(out), ['p1', 'p6', 'p2', 'p3', 'p4', 'p5'], 'p6 in the band of IB′ = 6, after the slots');
  });
});
