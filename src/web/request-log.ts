/**
 * The test web's own record of every request it answered: when, on which address and host, what
 * it answered, and how many requests were in flight on that host and address at the time. Tests
 * of crawler politeness read it (gaps between requests to a host, per-host and per-IP concurrency).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { TrapKind } from './hosts.js';

/** One answered (or aborted) request. */
export interface RequestRecord {
  /** Sequence number, from 1. */
  readonly seq: number;
  /** Wall-clock time the request arrived and finished, in ms since the epoch. */
  readonly startMs: number;
  endMs: number;
  /** Local address the request arrived on (the host's IP, or the proxy's). */
  readonly ip: string;
  /** Host name (lowercase, from the Host header or the absolute-form URL). */
  readonly host: string;
  readonly method: string;
  /** Request target path (with query). */
  readonly path: string;
  readonly userAgent: string;
  readonly isViaProxy: boolean;
  /** Requests to the same host / IP in flight when this one arrived (itself included). */
  readonly hostInFlight: number;
  readonly ipInFlight: number;
  /** Status sent, or 0 when the connection was reset or abandoned. */
  status: number;
  /** Body bytes sent (after compression). */
  bytes: number;
  /** What the server did: `page`, `robots`, `sitemap`, `trap`, `redirect-hop`, `reset`, `hang`, `drip`, ... */
  outcome: string;
  /** Page id the request named (whatever it answered: a page, an error, a drip, ...), or -1. */
  page: number;
  /** Trap kind of a trap page (outcome `trap`), else null. */
  trap: TrapKind | null;
  /**
   * Whether the connection closed before the response was complete: the client went away or the
   * server closed during a drip or a hang.
   */
  isAborted: boolean;
}

/** What the server knows of a request besides its status, bytes and outcome, when it ends. */
export interface RequestEnd {
  /** Default -1. */
  readonly page?: number;
  /** Default null. */
  readonly trap?: TrapKind | null;
  /** Default false. */
  readonly isAborted?: boolean;
}

/** Live figures of one host or address. */
interface Counter {
  inFlight: number;
  max: number;
  total: number;
}

function counter(map: Map<string, Counter>, key: string): Counter {
  let c = map.get(key);
  if (c === undefined) {
    c = { inFlight: 0, max: 0, total: 0 };
    map.set(key, c);
  }
  return c;
}

function project(map: ReadonlyMap<string, Counter>, field: 'max' | 'total'): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, c] of map) out.set(k, c[field]);
  return out;
}

/** Bounded in-memory request log with optional JSON-lines file and per-host statistics. */
export class RequestLog {
  private readonly records: RequestRecord[] = [];
  /** Next slot to overwrite once the ring is full. */
  private head = 0;
  private seq = 0;
  private readonly byHost = new Map<string, Counter>();
  private readonly byIp = new Map<string, Counter>();
  private readonly listeners = new Set<(r: RequestRecord) => void>();
  private readonly trapsByHost = new Map<string, Map<TrapKind, number>>();

  private readonly out: WriteStream | null;

  constructor(
    private readonly limit: number,
    file: string | null,
  ) {
    this.out = file === null ? null : createWriteStream(file, { flags: 'a' });
  }

  /** Records the arrival of a request; call {@link finish} when it is answered. */
  start(ip: string, host: string, method: string, path: string, userAgent: string, isViaProxy: boolean): RequestRecord {
    const h = counter(this.byHost, host);
    const a = counter(this.byIp, ip);
    h.inFlight++;
    h.total++;
    if (h.inFlight > h.max) h.max = h.inFlight;
    a.inFlight++;
    a.total++;
    if (a.inFlight > a.max) a.max = a.inFlight;
    return {
      seq: ++this.seq,
      startMs: Date.now(),
      endMs: 0,
      ip,
      host,
      method,
      path,
      userAgent,
      isViaProxy,
      hostInFlight: h.inFlight,
      ipInFlight: a.inFlight,
      status: 0,
      bytes: 0,
      outcome: 'pending',
      page: -1,
      trap: null,
      isAborted: false,
    };
  }

  /** Records the end of a request (idempotent). */
  finish(r: RequestRecord, status: number, bytes: number, outcome: string, end: RequestEnd = {}): void {
    if (r.endMs !== 0) return;
    r.endMs = Date.now();
    r.status = status;
    r.bytes = bytes;
    r.outcome = outcome;
    r.page = end.page ?? -1;
    r.trap = end.trap ?? null;
    r.isAborted = end.isAborted ?? false;
    counter(this.byHost, r.host).inFlight--;
    counter(this.byIp, r.ip).inFlight--;
    if (r.trap !== null) {
      let kinds = this.trapsByHost.get(r.host);
      if (kinds === undefined) {
        kinds = new Map();
        this.trapsByHost.set(r.host, kinds);
      }
      kinds.set(r.trap, (kinds.get(r.trap) ?? 0) + 1);
    }
    if (this.limit > 0) {
      // A ring: once full, each record overwrites the oldest (O(1), no array copying).
      if (this.records.length < this.limit) this.records.push(r);
      else this.records[this.head] = r;
      this.head = (this.head + 1) % this.limit;
    }
    // A drip or hang cut short by close() ends after the file is closed: it stays in memory only.
    if (this.out !== null && this.out.writable) this.out.write(`${JSON.stringify(r)}\n`);
    for (const l of this.listeners) l(r);
  }

  /** The kept records, oldest first (a copy). */
  entries(): readonly RequestRecord[] {
    if (this.records.length < this.limit) return [...this.records];
    return [...this.records.slice(this.head), ...this.records.slice(0, this.head)];
  }

  /** Total requests seen. */
  get count(): number {
    return this.seq;
  }

  /** Requests seen per host. */
  requestsPerHost(): ReadonlyMap<string, number> {
    return project(this.byHost, 'total');
  }

  /**
   * Trap pages served per host and trap kind (host -> kind -> requests), over every request since
   * the server started (not only the kept records).
   */
  trapRequests(): ReadonlyMap<string, ReadonlyMap<TrapKind, number>> {
    return new Map([...this.trapsByHost].map(([host, kinds]) => [host, new Map(kinds)]));
  }

  /** Highest number of simultaneous requests observed per host and per IP. */
  maxConcurrency(): { readonly perHost: ReadonlyMap<string, number>; readonly perIp: ReadonlyMap<string, number> } {
    return { perHost: project(this.byHost, 'max'), perIp: project(this.byIp, 'max') };
  }

  /** Calls `fn` for each finished request; returns a function that unsubscribes. */
  subscribe(fn: (r: RequestRecord) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Flushes and closes the JSON-lines file, if any. */
  async close(): Promise<void> {
    const out = this.out;
    if (out === null || out.closed) return;
    await new Promise<void>((resolve) => out.end(resolve));
  }

  /** Forgets the records (statistics and counts stay). */
  clear(): void {
    this.records.length = 0;
    this.head = 0;
  }
}
