/**
 * The server side of the web bench, run in a child process so that its CPU time and memory are
 * measured alone: starts a test web, reports when it listens, samples its peak RSS, and answers
 * the parent's questions (pages to request, CPU and memory figures) over IPC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageKind } from '../../src/web/model.js';
import { hash32 } from '../../src/core/prng.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { isParentMessage, type ChildMessage, type PageQuery, type PageRef, type ParentMessage, type ServerStats } from './protocol.js';
import { SERVER_SPECS, type ServerSpecName } from './scenarios.js';

const RSS_SAMPLE_MS = 100;

function send(msg: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(msg, undefined, undefined, () => resolve());
  });
}

/** Addresses that direct-mode pages may use: `count` of the pool, spread evenly. */
function directAddresses(web: TestWeb, count: number): Set<string> {
  const all = [...new Set(web.model.hosts.map((h) => h.ip))].sort();
  const n = Math.min(count, all.length);
  const picked = new Set<string>();
  for (let i = 0; i < n; i++) picked.add(all[Math.floor((i * all.length) / n)] as string);
  return picked;
}

/** Samples distinct `ok` pages uniformly over the (eligible part of the) Web. */
export function pickPages(web: TestWeb, q: PageQuery): PageRef[] {
  const model = web.model;
  const allowed = q.mode === 'direct' ? directAddresses(web, q.addressCount) : null;
  const seen = new Set<number>();
  const out: PageRef[] = [];
  const maxTries = q.count * 200;
  for (let i = 0; i < maxTries && out.length < q.count; i++) {
    const g = hash32(q.seed, i) % model.pageCount;
    if (seen.has(g) || model.pageKind[g] !== PageKind.ok) continue;
    const h = model.hostOf(g);
    if ((q.excludeSlowHosts && h.slow) || (allowed !== null && !allowed.has(h.ip))) continue;
    seen.add(g);
    out.push({ authority: `${h.name}:${web.port}`, ip: h.ip, path: model.path(g) });
  }
  return out;
}

/** Records requests until the log keeps as many as it may (they count in `requestsSeen`). */
function fillRequestLog(web: TestWeb): void {
  const limit = web.config.server.requestLogLimit;
  for (let i = 0; i < limit; i++) {
    const r = web.log.start('127.0.0.1', 'log-filler.test', 'GET', `/${i}`, 'web-bench', true);
    web.log.finish(r, 200, 0, 'log-filler');
  }
}

/** Keeps the highest RSS seen. */
class RssSampler {
  private peak = process.memoryUsage.rss();
  constructor() {
    setInterval(() => this.sample(), RSS_SAMPLE_MS).unref();
  }
  sample(): number {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
    return rss;
  }
  get peakBytes(): number {
    return this.peak;
  }
}

function stats(web: TestWeb, rss: RssSampler): ServerStats {
  const cpu = process.cpuUsage();
  const rssBytes = rss.sample();
  const mem = process.memoryUsage();
  return {
    cpuUs: cpu.user + cpu.system,
    systemUs: cpu.system,
    rssBytes,
    peakRssBytes: rss.peakBytes,
    heapUsedBytes: mem.heapUsed,
    arrayBuffersBytes: mem.arrayBuffers,
    requestsSeen: web.log.count,
  };
}

async function answer(web: TestWeb, rss: RssSampler, msg: ParentMessage): Promise<void> {
  switch (msg.type) {
    case 'pages':
      return send({ type: 'pages', id: msg.id, pages: pickPages(web, msg.query) });
    case 'stats':
      return send({ type: 'stats', id: msg.id, stats: stats(web, rss) });
    case 'clear-log':
      web.log.clear();
      return send({ type: 'done', id: msg.id });
    case 'stop':
      await web.close();
      await send({ type: 'stopped', id: msg.id });
      // Exit normally (not by signal) so that --cpu-prof can write its profile.
      process.exit(0);
  }
}

function fail(err: unknown): void {
  void send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }).finally(() => process.exit(1));
}

/** Runs the server child for one configuration until the parent says stop (or goes away). */
export async function serveChild(spec: ServerSpecName): Promise<void> {
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  process.on('disconnect', () => process.exit(0));
  // Exit through process.exit so that 'exit' handlers (temp folder removal) run.
  process.on('SIGINT', () => process.exit(130));
  process.on('SIGTERM', () => process.exit(143));
  const rss = new RssSampler();
  // startTestWeb writes its hosts map and seed list here; left to it, they would stay in the temp folder.
  const outDir = mkdtempSync(join(tmpdir(), 'shoal-web-bench-'));
  process.on('exit', () => rmSync(outDir, { recursive: true, force: true }));
  const t0 = performance.now();
  const web = await startTestWeb({ ...SERVER_SPECS[spec].config, outDir });
  const buildMs = performance.now() - t0;
  if (SERVER_SPECS[spec].fillRequestLog) fillRequestLog(web);
  const hosts = web.model.hosts;
  await send({
    type: 'ready',
    info: {
      port: web.port,
      proxyUrl: web.proxyUrl,
      buildMs,
      rssBytes: rss.sample(),
      pageCount: web.model.pageCount,
      hostCount: hosts.length,
      addressCount: new Set(hosts.map((h) => h.ip)).size,
      slowHostCount: hosts.filter((h) => h.slow).length,
    },
  });
  process.on('message', (msg: unknown) => {
    if (isParentMessage(msg)) answer(web, rss, msg).catch(fail);
  });
}
