/**
 * A scripted Web for unit tests of the node: a {@link Fetcher} whose every request takes a fixed
 * time on a {@link ManualClock} and answers from a table, and a resolver with fixed addresses. Time
 * moves only when {@link drive} advances the clock to the next timer, so request times are exact.
 */
import type { Resolver, ResolveResult } from '../../../src/dns/resolver.js';
import type { FetchOutcome, FetchRequest, Fetcher, ResponseHead } from '../../../src/fetch/fetcher.js';
import type { ManualClock } from '../../../src/core/clock.js';

/** What a URL answers: a response, a reset connection, a refused connection, or a 200 whose body trickles until the fetcher cuts it after `durationMs`. */
export type Reply =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string }
  | { readonly reset: true }
  | { readonly refused: true }
  | { readonly tooSlow: true; readonly durationMs: number };

/** One request the fake Web received. */
export interface Received {
  readonly url: string;
  readonly atMs: number;
}

function head(status: number, headers: Readonly<Record<string, string>>): ResponseHead {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const text = `HTTP/1.1 ${status} X\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return { status, statusText: 'X', headers: lower, raw: Buffer.from(text, 'latin1') };
}

/** A Fetcher answering from `route(url, attempt)`; each request takes `durationMs` of clock time (a `tooSlow` reply its own). */
export class FakeFetcher implements Fetcher {
  readonly received: Received[] = [];
  /** URLs whose fetch ended at the name (the resolver answered a failure): nothing was sent. */
  readonly failedLookups: string[] = [];
  private readonly attempts = new Map<string, number>();
  private inFlight = 0;
  /** Most requests in flight at once, per host. */
  readonly maxPerHost = new Map<string, number>();
  private readonly perHost = new Map<string, number>();
  /** Aborted by `close()`: ends the calls in flight, as the Fetcher contract asks. */
  private readonly closed = new AbortController();

  constructor(
    private readonly clock: ManualClock,
    private readonly route: (url: string, attempt: number) => Reply,
    private readonly durationMs = 100,
    /** When given, a fetch first looks its host up here, as the real fetcher does (a slow name holds the fetch, a failure ends it as `dns-error`). */
    private readonly resolver: Resolver | null = null,
  ) {}

  get pending(): number {
    return this.inFlight;
  }

  async fetch(asked: FetchRequest, signal?: AbortSignal): Promise<FetchOutcome> {
    const url = asked.url;
    const host = new URL(url).host;
    if (this.closed.signal.aborted) return { kind: 'aborted', url, ip: null, timings: { dnsMs: 0, totalMs: 0 }, reason: 'closed' };
    const answer = await this.resolver?.resolve(new URL(url).hostname);
    if (answer?.kind === 'dns-error') {
      this.failedLookups.push(url);
      return {
        kind: 'dns-error',
        url,
        ip: null,
        timings: { dnsMs: 0, totalMs: 0 },
        host: new URL(url).hostname,
        code: answer.code,
        message: answer.message,
      };
    }
    const startedMs = this.clock.nowMs();
    this.received.push({ url, atMs: startedMs });
    const attempt = (this.attempts.get(url) ?? 0) + 1;
    this.attempts.set(url, attempt);
    const reply = this.route(url, attempt);
    const durationMs = 'tooSlow' in reply ? reply.durationMs : this.durationMs;
    this.inFlight++;
    const n = (this.perHost.get(host) ?? 0) + 1;
    this.perHost.set(host, n);
    this.maxPerHost.set(host, Math.max(n, this.maxPerHost.get(host) ?? 0));
    try {
      await this.clock.sleepUntil(
        startedMs + durationMs,
        signal === undefined ? this.closed.signal : AbortSignal.any([signal, this.closed.signal]),
      );
    } finally {
      this.inFlight--;
      this.perHost.set(host, (this.perHost.get(host) ?? 1) - 1);
    }
    const timings = { dnsMs: 0, totalMs: this.clock.nowMs() - startedMs };
    const ip = '10.0.0.1';
    if (this.closed.signal.aborted) return { kind: 'aborted', url, ip, timings, reason: 'closed' };
    if (signal?.aborted === true) return { kind: 'aborted', url, ip, timings, reason: 'signal' };
    const request = Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1');
    if ('reset' in reply) return { kind: 'reset', url, ip, timings, request, response: null, code: 'ECONNRESET', message: 'reset' };
    if ('refused' in reply)
      return { kind: 'connect-error', url, ip, timings, code: 'ECONNREFUSED', message: `connect ECONNREFUSED ${ip}:80` };
    if ('tooSlow' in reply) {
      // One byte a second, cut at the end of its only window.
      const bytes = Math.floor(durationMs / 1000);
      return {
        kind: 'too-slow',
        url,
        ip,
        timings,
        request,
        response: head(200, { 'Content-Type': 'text/html' }),
        bodyBytes: bytes,
        bodyMs: durationMs,
        windowBytes: bytes,
        windowMs: durationMs,
        minBytesPerSecond: 1000,
        minRateWindowMs: durationMs,
      };
    }
    const headers = reply.headers ?? {};
    const response = head(reply.status, headers);
    const body = Buffer.from(reply.body ?? '', 'utf8');
    if (reply.status >= 300 && reply.status < 400) {
      const location = headers['Location'] ?? headers['location'];
      return {
        kind: 'redirect',
        url,
        ip,
        timings,
        request,
        response,
        rawBody: body,
        location: location === undefined ? null : new URL(location, url).href,
      };
    }
    if (reply.status >= 400) {
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'http-error',
        url,
        ip,
        timings,
        request,
        response,
        body,
        rawBody: body,
        isBodyTruncated: false,
        retryAfterMs: retryAfter === undefined ? null : Number(retryAfter) * 1000,
      };
    }
    const type = (response.headers['content-type'] ?? 'text/html').split(';')[0] ?? null;
    return { kind: 'ok', url, ip, timings, request, response, body, rawBody: body, contentType: type, charset: null, contentEncodings: [] };
  }

  async close(): Promise<void> {
    this.closed.abort();
  }
}

/** Fixed addresses by host name. */
export class FakeResolver implements Resolver {
  constructor(private readonly ips: Readonly<Record<string, string>>) {}

  async resolve(host: string): Promise<ResolveResult> {
    const ip = this.ips[host];
    return ip === undefined
      ? { kind: 'dns-error', code: 'ENOTFOUND', message: `${host} unknown`, source: 'hosts-map' }
      : { kind: 'ok', ip, family: 4, source: 'hosts-map' };
  }

  close(): void {}
}

/** A page linking to `hrefs`. */
export function page(...hrefs: string[]): Reply {
  return {
    status: 200,
    headers: { 'Content-Type': 'text/html' },
    body: `<html><body>${hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ')}</body></html>`,
  };
}

/**
 * Runs `work` to its end on `clock`: lets every ready callback run, then advances the clock to the
 * next timer, again and again. Fails if the work waits while no timer is pending (it would hang).
 */
export async function drive<T>(clock: ManualClock, work: Promise<T>): Promise<T> {
  let isDone = false;
  const result = work.finally(() => {
    isDone = true;
  });
  result.catch(() => {});
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (isDone) return result;
    const next = clock.nextTimerMs();
    if (next === null) throw new Error(`stuck at ${clock.nowMs()} ms: the work waits and no timer is pending`);
    await clock.advanceTo(next);
  }
}
