/**
 * The server side of the web bench, run in a child process so that its CPU time and memory are
 * measured alone: starts a test web, reports when it listens, samples its peak RSS, and answers
 * the parent's questions (pages to request, CPU and memory figures) over IPC.
 */
import { PageKind } from '../../src/web/model.js';
import { hash32 } from '../../src/web/prng.js';
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
  return {
    cpuUs: cpu.user + cpu.system, rssBytes, peakRssBytes: rss.peakBytes,
    heapUsedBytes: process.memoryUsage().heapUsed, requestsSeen: web.log.count,
  };
}

async function answer(web: TestWeb, rss: RssSampler, msg: ParentMessage): Promise<void> {
  switch (msg.type) {
    case 'pages': return send({ type: 'pages', id: msg.id, pages: pickPages(web, msg.query) });
    case 'stats': return send({ type: 'stats', id: msg.id, stats: stats(web, rss) });
    case 'stop':
      await web.close();
      await send({ type: 'stopped', id: msg.id });
      // Exit normally (not by signal) so that --cpu-prof can write its profile.
      process.exit(0);
  }
}

function fail(err: unknown): void {
  void send({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) }).finally(() => process.exit(1));
}

/** Runs the server child for one configuration until the parent says stop (or goes away). */
export async function serveChild(spec: ServerSpecName): Promise<void> {
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  process.on('disconnect', () => process.exit(0));
  const rss = new RssSampler();
  const t0 = performance.now();
  const web = await startTestWeb(SERVER_SPECS[spec]);
  const buildMs = performance.now() - t0;
  const hosts = web.model.hosts;
  await send({
    type: 'ready',
    info: {
      port: web.port, proxyUrl: web.proxyUrl, buildMs, rssBytes: rss.sample(), pageCount: web.model.pageCount,
      hostCount: hosts.length, addressCount: new Set(hosts.map((h) => h.ip)).size,
      slowHostCount: hosts.filter((h) => h.slow).length,
    },
  });
  process.on('message', (msg: unknown) => {
    if (isParentMessage(msg)) answer(web, rss, msg).catch(fail);
  });
}
