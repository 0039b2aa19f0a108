/**
 * Load generation with autocannon (keep-alive, no pipelining), cycling through a list of distinct
 * pages shared by all connections, either through the test web's forward proxy (absolute-form
 * request targets) or on each host's own address (one connection per address, Host header set).
 */
import { createRequire } from 'node:module';
import type { AddressMode, PageRef } from './protocol.js';

/** The part of an autocannon request this bench sets. */
interface CannonRequest {
  method?: string;
  path?: string;
  hostname?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: CannonRequest) => CannonRequest;
}

interface CannonOptions {
  readonly url: string | readonly string[];
  readonly connections: number;
  readonly pipelining: number;
  /** Seconds. */
  readonly duration: number;
  readonly timeout: number;
  readonly requests: readonly CannonRequest[];
}

interface CannonResult {
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
  readonly requests: { readonly total: number };
  readonly throughput: { readonly total: number };
}

interface CannonInstance {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
}

type Autocannon = (opts: CannonOptions, done: (err: Error | null, result: CannonResult) => void) => CannonInstance;

let cannon: Autocannon | null = null;

/** autocannon, loaded on first use (the server child imports this module too, and needs none of it). */
function autocannon(): Autocannon {
  cannon ??= createRequire(import.meta.url)('autocannon') as Autocannon;
  return cannon;
}

/** Where and what to request. */
export interface LoadTarget {
  readonly mode: AddressMode;
  readonly port: number;
  /** `http://127.0.0.1:PORT` of the forward proxy (proxy mode). */
  readonly proxyUrl: string | null;
  readonly pages: readonly PageRef[];
  readonly connections: number;
}

/** What one load run measured on the client side. */
export interface LoadResult {
  readonly seconds: number;
  readonly responses: number;
  /** Response bytes (headers and bodies). */
  readonly bytes: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Response time percentiles, in ms (from every response, sub-millisecond precision). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Load generator's own CPU time, in µs. */
  readonly clientCpuUs: number;
}

/** Response times as they arrive. */
class LatencyRecorder {
  private values = new Float64Array(1 << 16);
  private n = 0;
  add(ms: number): void {
    if (this.n === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.n++] = ms;
  }
  percentile(p: number): number {
    if (this.n === 0) return Number.NaN;
    const sorted = this.values.slice(0, this.n).sort();
    return sorted[Math.min(this.n - 1, Math.floor((p / 100) * this.n))] as number;
  }
}

/** A cursor over a page list, shared by every connection that uses it. */
class PageCycle {
  private next = 0;
  constructor(private readonly pages: readonly PageRef[]) {
    if (pages.length === 0) throw new Error('no pages to request');
  }
  take(): PageRef {
    const page = this.pages[this.next] as PageRef;
    this.next = (this.next + 1) % this.pages.length;
    return page;
  }
}

/** The autocannon URLs and per-request setup for a target. */
function plan(target: LoadTarget): { url: string | string[]; setupRequest: (req: CannonRequest) => CannonRequest } {
  if (target.mode === 'proxy') {
    if (target.proxyUrl === null) throw new Error('the server has no forward proxy');
    const cycle = new PageCycle(target.pages);
    return {
      url: target.proxyUrl,
      setupRequest: (req) => {
        const p = cycle.take();
        return { ...req, path: `http://${p.authority}${p.path}`, headers: { host: p.authority } };
      },
    };
  }
  const byIp = new Map<string, PageRef[]>();
  for (const p of target.pages) {
    const list = byIp.get(p.ip);
    if (list === undefined) byIp.set(p.ip, [p]);
    else list.push(p);
  }
  const cycles = new Map([...byIp].map(([ip, pages]) => [ip, new PageCycle(pages)]));
  return {
    url: [...byIp.keys()].map((ip) => `http://${ip}:${target.port}`),
    setupRequest: (req) => {
      const cycle = cycles.get(req.hostname ?? '');
      if (cycle === undefined) throw new Error(`no pages on ${req.hostname}`);
      const p = cycle.take();
      return { ...req, path: p.path, headers: { host: p.authority } };
    },
  };
}

function statusCounts(r: CannonResult): Record<string, number> {
  return Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
}

/** The instance running now, so that a signal handler can stop it. */
let running: CannonInstance | null = null;

/** Stops the load run in progress, if any. */
export function stopLoad(): void {
  running?.stop();
}

/**
 * Runs load for `seconds` against the target. In direct mode autocannon gives each address
 * `connections / addresses` connections (round robin), so ask for as many connections as addresses.
 */
export function runLoad(target: LoadTarget, seconds: number): Promise<LoadResult> {
  const { url, setupRequest } = plan(target);
  const latency = new LatencyRecorder();
  const cpu0 = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const instance = autocannon()(
      {
        url,
        connections: target.connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        requests: [{ method: 'GET', setupRequest }],
      },
      (err, r) => {
        running = null;
        if (err !== null) return reject(err);
        const cpu = process.cpuUsage(cpu0);
        resolve({
          seconds: r.duration,
          responses: r.requests.total,
          bytes: r.throughput.total,
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          statusCounts: statusCounts(r),
          p50Ms: latency.percentile(50),
          p99Ms: latency.percentile(99),
          clientCpuUs: cpu.user + cpu.system,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, ms) => latency.add(ms));
    running = instance;
  });
}
