/**
 * `--metrics-port` as a user runs it: the installed command (bin/shoal.js over dist/, `npm run
 * build`) against the tiny test web on loopback, `--metrics-port 0`. The command prints the
 * endpoint's URL on stderr before it crawls; /metrics answers while the crawl runs, with the crawl's
 * node as a label; SIGTERM still ends the crawl cleanly (exit 130), and neither a finished nor a
 * stopped command leaves the server open: the port refuses connections afterwards and the process
 * reports nothing left open. `shoal node` serves from before it reaches its broker. A non-loopback
 * address is refused as a configuration error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { runInProcess } from '../helpers/cli.js';
import { freePort } from '../helpers/loopback.js';
import { parseScrape, type Scrape } from '../helpers/prometheus.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-metrics-cli-'));
let web: TestWeb;

before(async () => {
  web = await startTestWeb({ ...WEB_PRESETS.tiny, latency: { slowHostRate: 0 }, traps: { hostRate: 0 } });
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

const webFlags = (): string[] => [...web.seeds.flatMap((s) => ['--seed', s]), '--hosts-file', web.hostsFile, '--allow-loopback'];

/** The URL line of the endpoint. */
const METRICS_LINE = /^shoal (crawl|node): metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m;

/** A running `shoal` whose stderr is watched: `when(re)` resolves with the first match. */
function start(args: readonly string[]) {
  const child = spawn(bin, [...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
  });
  let stdout = '';
  let stderr = '';
  const waiting: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const w of [...waiting]) {
      const m = w.re.exec(stderr);
      if (m === null) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    }
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    child,
    exited,
    when: (re: RegExp): Promise<RegExpExecArray> =>
      Promise.race([
        new Promise<RegExpExecArray>((resolve) => {
          const m = re.exec(stderr);
          if (m !== null) resolve(m);
          else waiting.push({ re, resolve });
        }),
        exited.then((r) => Promise.reject(new Error(`exited ${r.code} before ${re}:\n${r.stderr}`))),
      ]),
  };
}

async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseScrape(await res.text());
}

describe('shoal crawl --metrics-port (the installed command)', () => {
  before(() =>
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/obs/metrics/metrics-server.js', import.meta.url))), 'dist/ is built'),
  );

  it('serves /metrics while it crawls, and closes it when the command ends', { timeout: 120_000 }, async () => {
    const run = start([
      'crawl',
      ...webFlags(),
      '--out',
      join(dir, 'done'),
      '--min-delay-ms',
      '10',
      '--max-pages',
      '120',
      '--metrics-port',
      '0',
    ]);
    const url = (await run.when(METRICS_LINE))[2] as string;
    const r = await run.exited;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.indexOf('metrics on') < r.stderr.indexOf('crawling into'), 'the endpoint is up before the crawl starts');
    assert.match(r.stdout, /done: --max-pages reached/);
    assert.doesNotMatch(r.stderr, /still open after the command ended/);
    await assert.rejects(fetch(url), 'the port is closed');
  });

  it('still stops within the grace of SIGTERM, with the endpoint scraped mid-crawl', { timeout: 120_000 }, async () => {
    // 300 ms between two requests to a host: the web's 600 pages take long enough to be scraped and stopped.
    const run = start(['crawl', ...webFlags(), '--out', join(dir, 'stopped'), '--min-delay-ms', '300', '--metrics-port', '0']);
    const url = (await run.when(METRICS_LINE))[2] as string;
    await run.when(/pages [1-9][\d,]* \(/);
    // The registry took the progress event before the line was printed; a page's record may come later.
    const m = await scrape(url);
    assert.deepEqual(m.labelValues('shoal_hosts_contacted', 'node'), ['shoal']);
    assert.ok(m.value('shoal_robots_requests_total') > 0, 'the host of a page fetched had its robots.txt asked for');
    assert.equal(m.value('shoal_fetch_duration_seconds_count'), m.value('shoal_fetch_duration_seconds_bucket', { le: '+Inf' }));
    run.child.kill('SIGTERM');
    const r = await run.exited;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /shoal crawl: stopping \(Ctrl-C\)/);
    assert.match(r.stdout, /stopped/i);
    assert.doesNotMatch(r.stderr, /did not stop within|still open after the command ended/);
    await assert.rejects(fetch(url), 'the port is closed');
  });

  it('serves from shoal node too, from before its broker answers', { timeout: 60_000 }, async () => {
    // No broker listens on this port: the node waits for it, serving metrics meanwhile.
    const nats = `nats://127.0.0.1:${await freePort()}`;
    const args = ['node', '--nats', nats, '--crawl', 'm', '--out', join(dir, 'node'), ...webFlags(), '--metrics-port', '0'];
    const run = start(args);
    const url = (await run.when(METRICS_LINE))[2] as string;
    const m = await scrape(url);
    assert.ok(m.families.some((f) => f.name === 'shoal_pages_total'));
    run.child.kill('SIGTERM');
    const r = await run.exited;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /shoal node: stopped before the crawl began/);
    // (The NATS client's own retries may outlast the command; the metrics server must not.)
    assert.doesNotMatch(r.stderr, /did not stop within|TCPServerWrap/);
    await assert.rejects(fetch(url), 'the port is closed');
  });

  it('refuses an address other than loopback unless allowRemote is set', async () => {
    const r = await runInProcess([
      'crawl',
      '--seed',
      'http://a.test/',
      '--out',
      join(dir, 'x'),
      '--metrics-port',
      '0',
      '--metrics-host',
      '0.0.0.0',
    ]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /metrics\.host: 0\.0\.0\.0 is not a loopback address: set metrics\.allowRemote/);
  });
});
