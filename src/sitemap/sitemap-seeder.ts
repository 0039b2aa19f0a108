/**
 * Seeds from sitemaps (SPEC §2 item 1): fetches the start sitemaps, follows sitemap indexes breadth
 * first, and yields the page URLs they list, one batch per document, with what happened to each
 * document.
 *
 * How a run goes: the start sitemaps (normalized, duplicates merged, `robots` winning over `user`
 * since it allows more) form a FIFO queue at depth 0. For each one, in order: the caller's
 * `beforeFetch` hook decides (robots.txt and politeness stay the caller's); an allowed URL is fetched
 * through the {@link Fetcher}; the body goes to {@link parseSitemap}. A urlset or text sitemap gives
 * page URLs, an index gives child sitemaps queued at depth + 1. A redirect is followed (up to
 * `maxRedirects` hops, each through `beforeFetch` again) by putting its target at the head of the
 * queue, so the chain resolves before anything else is fetched. Every sitemap URL is queued at most
 * once per run, so none is fetched twice, whatever indexes and redirects say.
 *
 * Limits: children deeper than `maxDepth` are not queued; no more than `maxDocuments` requests are
 * made (children that would not fit are not queued); no more than `maxTotalUrls` page URLs are yielded,
 * after which no more documents are fetched. Page URLs listed by several documents are yielded once
 * (a set of 53-bit fingerprints: the chance that two of a million distinct URLs collide is about
 * 10⁻⁴, and such a URL is counted as a duplicate). Every limit that drops something is counted on
 * the document that listed it; queued sitemaps a limit prevented from being fetched end as `skipped`.
 *
 * Errors: nothing a server sends makes the run throw; each document ends as one
 * {@link SitemapDocumentResult}. Only caller bugs (options out of range) and the hook's own
 * exceptions propagate. Fetches are made one at a time.
 *
 * Sources: https://www.sitemaps.org/protocol.html (indexes, location), SPEC §2 items 1 and 7.
 */
import type { FetchOutcome, FetchOutcomeKind, Fetcher, SizeLimit } from '../fetch/fetcher.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import { normalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import {
  parseSitemap,
  type SitemapDropCounts,
  type SitemapParseOptions,
  type SitemapProblem,
  type SitemapSource,
  type SitemapUrl,
} from './sitemap-parser.js';

/** What the caller's hook says about fetching a sitemap URL now. */
export const FetchPermission = { allowed: 'allowed', denied: 'denied' } as const;
export type FetchPermission = (typeof FetchPermission)[keyof typeof FetchPermission];

/**
 * Called before every request, redirect hops included: the node plugs its robots.txt cache and its
 * politeness gap in here (it may wait for the host's turn). `signal` is the run's.
 */
export type BeforeFetch = (url: string, signal?: AbortSignal) => Promise<FetchPermission>;

/** A start sitemap and where it came from. */
export interface SitemapSeed {
  /** Absolute http(s) URL of a sitemap or sitemap index. */
  readonly url: string;
  readonly source: SitemapSource;
}

/** Default levels of sitemap indexes followed below the start sitemaps. */
export const DEFAULT_SITEMAP_MAX_DEPTH = 3;
/** Default requests made per run (redirect hops included). */
export const DEFAULT_SITEMAP_MAX_DOCUMENTS = 1000;
/** Default page URLs yielded per run. */
export const DEFAULT_SITEMAP_MAX_TOTAL_URLS = 1_000_000;
/** Default redirect hops followed from one sitemap URL (as for robots.txt, RFC 9309 §2.3.1.2). */
export const DEFAULT_SITEMAP_MAX_REDIRECTS = 5;

/** Options of {@link SitemapSeeder}. */
export interface SitemapSeederOptions {
  /** Index levels followed: start sitemaps are depth 0, their children 1, ... (default {@link DEFAULT_SITEMAP_MAX_DEPTH}). */
  readonly maxDepth?: number;
  /** Requests made per run (default {@link DEFAULT_SITEMAP_MAX_DOCUMENTS}). */
  readonly maxDocuments?: number;
  /** Page URLs yielded per run (default {@link DEFAULT_SITEMAP_MAX_TOTAL_URLS}). */
  readonly maxTotalUrls?: number;
  /** Redirect hops followed from one sitemap URL (default {@link DEFAULT_SITEMAP_MAX_REDIRECTS}). */
  readonly maxRedirects?: number;
  /** Per-document limits, location rule and URL normalization (see {@link SitemapParseOptions}). */
  readonly parse?: SitemapParseOptions;
}

/** Explicit dependencies of {@link SitemapSeeder}. */
export interface SitemapSeederDeps {
  readonly fetcher: Fetcher;
  readonly beforeFetch: BeforeFetch;
}

/** Entries a document listed that were not yielded, by reason (the parser's counts plus the run's). */
export interface SitemapRunDropCounts extends SitemapDropCounts {
  /** Page URLs past `maxTotalUrls`. */
  readonly overTotal: number;
  /** Child sitemaps deeper than `maxDepth`. */
  readonly tooDeep: number;
  /** Child sitemaps that would have gone past `maxDocuments`. */
  readonly overMaxDocuments: number;
}

/** Why a queued sitemap was not fetched. */
export const SkipReason = { invalidUrl: 'invalid-url', maxDocuments: 'max-documents', maxTotalUrls: 'max-total-urls' } as const;
export type SkipReason = (typeof SkipReason)[keyof typeof SkipReason];

interface DocumentBase {
  /** The sitemap URL (normalized; as given for `invalid-url`). */
  readonly url: string;
  readonly source: SitemapSource;
  /** 0 for a start sitemap, parent's depth + 1 for a child; a redirect target keeps its origin's depth. */
  readonly depth: number;
  /** The index that listed it, or the URL that redirected to it; null for a start sitemap. */
  readonly parent: string | null;
}

/** What happened to one sitemap URL; `kind` is the label of the document counters. */
export type SitemapDocumentResult =
  /** Parsed: `format` says what it was; `urlCount` page URLs yielded, `childCount` child sitemaps queued. */
  | (DocumentBase & {
      readonly kind: 'ok';
      readonly format: 'urlset' | 'index' | 'text';
      readonly urlCount: number;
      readonly childCount: number;
      readonly entryCount: number;
      readonly dropped: SitemapRunDropCounts;
      readonly isGzip: boolean;
      readonly isOverMaxBytes: boolean;
      readonly isOverMaxUrls: boolean;
    })
  /** Fetched, but not a sitemap (an HTML error page, a feed, garbage, corrupt gzip): no URL. */
  | (DocumentBase & { readonly kind: 'parse-problem'; readonly problem: SitemapProblem; readonly message: string })
  /** 4xx or 5xx. */
  | (DocumentBase & { readonly kind: 'http-error'; readonly status: number })
  /** 3xx; `isFollowed` when its target was queued (not when missing, already queued, or past a limit). */
  | (DocumentBase & { readonly kind: 'redirect'; readonly status: number; readonly location: string | null; readonly isFollowed: boolean })
  /** The fetcher's size limit (raw or decoded) stopped the body. */
  | (DocumentBase & { readonly kind: 'too-large'; readonly limit: SizeLimit; readonly limitBytes: number })
  /** No usable response: DNS, refused address, connection, timeout, too slow a body, reset, protocol, encoding. */
  | (DocumentBase & { readonly kind: 'fetch-error'; readonly fetchKind: FetchOutcomeKind; readonly message: string })
  /** `beforeFetch` said no; nothing was sent. */
  | (DocumentBase & { readonly kind: 'denied' })
  /** Not fetched because of a limit, or because the URL is not absolute http(s). */
  | (DocumentBase & { readonly kind: 'skipped'; readonly reason: SkipReason })
  /** The run's signal aborted the fetch; the run ends after this result. */
  | (DocumentBase & { readonly kind: 'aborted' });

/** One document's result and the page URLs it contributed (empty unless `kind` is `ok`). */
export interface SitemapBatch {
  readonly document: SitemapDocumentResult;
  readonly urls: readonly SitemapUrl[];
}

/** A queued sitemap. */
interface Job extends DocumentBase {
  /** Redirect hops taken to get here. */
  readonly hops: number;
}

const NO_URLS: readonly SitemapUrl[] = Object.freeze([]);

function limit(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`sitemap seeder ${name} must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

/** A 53-bit key of a URL's 64-bit fingerprint (exact in a double, so it can go in a Set). */
function urlKey(url: string, scratch: Uint32Array): number {
  urlFingerprintInto(url, scratch);
  return (scratch[0] as number) * 2 ** 21 + ((scratch[1] as number) >>> 11);
}

/** The message of an outcome that carries one. */
function outcomeMessage(o: FetchOutcome): string {
  switch (o.kind) {
    case 'dns-error':
    case 'connect-error':
    case 'reset':
    case 'protocol-error':
      return `${o.code}: ${o.message}`;
    case 'address-denied':
      return `${o.ip} is ${o.reason}`;
    case 'timeout':
      return `timeout (${o.phase})`;
    case 'too-slow':
      return `body slower than ${o.minBytesPerSecond} B/s: ${o.windowBytes} B in ${o.windowMs} ms`;
    case 'unsupported-encoding':
      return `unsupported content encoding ${o.encoding}`;
    case 'not-modified':
      return 'unexpected 304 to an unconditional request';
    default:
      return o.kind;
  }
}

/** The state of one run: the queue of sitemaps, what was queued, fetched and yielded. */
class RunState {
  readonly queue: Job[] = [];
  head = 0;
  /** Every sitemap URL ever queued (normalized): none is queued, so fetched, twice. */
  readonly queued = new Set<string>();
  /** Keys of the page URLs yielded (see {@link urlKey}). */
  readonly yielded = new Set<number>();
  readonly scratch = new Uint32Array(2);
  fetched = 0;

  /** Requests made plus requests still queued. */
  get committed(): number {
    return this.fetched + (this.queue.length - this.head);
  }
}

/** The result of an outcome that yields nothing (not `ok`, not `redirect`). */
function failedResult(job: Job, outcome: Exclude<FetchOutcome, { kind: 'ok' | 'redirect' }>): SitemapDocumentResult {
  switch (outcome.kind) {
    case 'http-error':
      return { ...base(job), kind: 'http-error', status: outcome.response.status };
    case 'too-large':
      return { ...base(job), kind: 'too-large', limit: outcome.limit, limitBytes: outcome.limitBytes };
    case 'aborted':
      return { ...base(job), kind: 'aborted' };
    default:
      return { ...base(job), kind: 'fetch-error', fetchKind: outcome.kind, message: outcomeMessage(outcome) };
  }
}

/**
 * Walks sitemaps and yields their page URLs (see the module comment). Holds no state between runs;
 * the fetcher stays the caller's (the seeder never closes it).
 */
export class SitemapSeeder {
  private readonly maxDepth: number;
  private readonly maxDocuments: number;
  private readonly maxTotalUrls: number;
  private readonly maxRedirects: number;
  private readonly parseOptions: SitemapParseOptions;
  private readonly normalize: NormalizeOptions;

  /** @throws RangeError when a limit is not an integer in range (a caller bug). */
  constructor(
    private readonly deps: SitemapSeederDeps,
    options: SitemapSeederOptions = {},
  ) {
    this.maxDepth = limit('maxDepth', options.maxDepth, DEFAULT_SITEMAP_MAX_DEPTH, 0);
    this.maxDocuments = limit('maxDocuments', options.maxDocuments, DEFAULT_SITEMAP_MAX_DOCUMENTS, 1);
    this.maxTotalUrls = limit('maxTotalUrls', options.maxTotalUrls, DEFAULT_SITEMAP_MAX_TOTAL_URLS, 1);
    this.maxRedirects = limit('maxRedirects', options.maxRedirects, DEFAULT_SITEMAP_MAX_REDIRECTS, 0);
    this.parseOptions = options.parse ?? {};
    this.normalize = this.parseOptions.normalize ?? {};
  }

  /**
   * Fetches the sitemaps and yields one batch per document, in the order they were fetched (start
   * URLs that are not absolute http(s) come first, as `skipped`). The next document is fetched only
   * when the consumer asks for the next batch (backpressure). Ends when the queue is empty, when
   * `signal` has aborted (after an `aborted` result if a fetch was cut).
   */
  async *run(seeds: readonly SitemapSeed[], signal?: AbortSignal): AsyncGenerator<SitemapBatch, void, undefined> {
    const state = new RunState();
    for (const job of this.enqueueSeeds(seeds, state))
      yield { document: { ...base(job), kind: 'skipped', reason: SkipReason.invalidUrl }, urls: NO_URLS };
    while (state.head < state.queue.length) {
      if (signal?.aborted === true) return;
      const job = state.queue[state.head++] as Job;
      const batch = await this.visit(job, state, signal);
      yield batch;
      if (batch.document.kind === 'aborted') return;
    }
  }

  /** Queues the start sitemaps; returns those that are not absolute http(s) URLs. */
  private enqueueSeeds(seeds: readonly SitemapSeed[], state: RunState): Job[] {
    const invalid: Job[] = [];
    const at = new Map<string, number>();
    for (const seed of seeds) {
      const n = normalizeUrl(seed.url, undefined, this.normalize);
      if (n.kind !== 'ok') {
        invalid.push({ url: seed.url, source: seed.source, depth: 0, parent: null, hops: 0 });
        continue;
      }
      const job: Job = { url: n.url, source: seed.source, depth: 0, parent: null, hops: 0 };
      const i = at.get(n.url);
      // Given both ways, a sitemap keeps the robots source, whose location rule allows more.
      if (i === undefined) at.set(n.url, state.queue.push(job) - 1);
      else if (seed.source.kind === 'robots' && (state.queue[i] as Job).source.kind === 'user') state.queue[i] = job;
      state.queued.add(n.url);
    }
    return invalid;
  }

  /** One queued sitemap: the limits, the hook, the fetch, the parse, and what it adds to the run. */
  private async visit(job: Job, state: RunState, signal: AbortSignal | undefined): Promise<SitemapBatch> {
    if (state.yielded.size >= this.maxTotalUrls)
      return { document: { ...base(job), kind: 'skipped', reason: SkipReason.maxTotalUrls }, urls: NO_URLS };
    if (state.fetched >= this.maxDocuments)
      return { document: { ...base(job), kind: 'skipped', reason: SkipReason.maxDocuments }, urls: NO_URLS };
    if ((await this.deps.beforeFetch(job.url, signal)) === FetchPermission.denied)
      return { document: { ...base(job), kind: 'denied' }, urls: NO_URLS };
    state.fetched++;
    const outcome = await this.deps.fetcher.fetch({ url: job.url, ...(job.parent === null ? {} : { referer: job.parent }) }, signal);
    if (outcome.kind === 'redirect') return { document: this.redirect(job, outcome, state), urls: NO_URLS };
    if (outcome.kind !== 'ok') return { document: failedResult(job, outcome), urls: NO_URLS };
    // Parsed against the URL it was fetched from: after a redirect, the location rule is the target's.
    const parsed = await parseSitemap(outcome.body, { url: job.url, source: job.source }, this.parseOptions);
    if (parsed.kind === 'problem') {
      return { document: { ...base(job), kind: 'parse-problem', problem: parsed.problem, message: parsed.message }, urls: NO_URLS };
    }
    const dropped = { ...parsed.dropped, overTotal: 0, tooDeep: 0, overMaxDocuments: 0 };
    const urls: SitemapUrl[] = [];
    let childCount = 0;
    if (parsed.kind === 'index') {
      for (const child of parsed.sitemaps) {
        if (state.queued.has(child.url)) dropped.duplicate++;
        else if (job.depth + 1 > this.maxDepth) dropped.tooDeep++;
        else if (state.committed >= this.maxDocuments) dropped.overMaxDocuments++;
        else {
          state.queued.add(child.url);
          state.queue.push({ url: child.url, source: job.source, depth: job.depth + 1, parent: job.url, hops: 0 });
          childCount++;
        }
      }
    } else {
      for (const u of parsed.urls) {
        const key = urlKey(u.url, state.scratch);
        if (state.yielded.has(key)) dropped.duplicate++;
        else if (state.yielded.size >= this.maxTotalUrls) dropped.overTotal++;
        else {
          state.yielded.add(key);
          urls.push(u);
        }
      }
    }
    const document: SitemapDocumentResult = {
      ...base(job),
      kind: 'ok',
      format: parsed.kind,
      urlCount: urls.length,
      childCount,
      entryCount: parsed.entryCount,
      dropped,
      isGzip: parsed.isGzip,
      isOverMaxBytes: parsed.isOverMaxBytes,
      isOverMaxUrls: parsed.isOverMaxUrls,
    };
    return { document, urls };
  }

  /** A 3xx: queues its target at the head of the queue (the chain resolves first, depths stay in order). */
  private redirect(job: Job, outcome: Extract<FetchOutcome, { kind: 'redirect' }>, state: RunState): SitemapDocumentResult {
    const target = outcome.location === null ? null : normalizeUrl(outcome.location, undefined, this.normalize);
    const location = target?.kind === 'ok' ? target.url : null;
    const isFollowed =
      location !== null && job.hops < this.maxRedirects && !state.queued.has(location) && state.committed < this.maxDocuments;
    if (isFollowed) {
      state.queued.add(location);
      state.queue.splice(state.head, 0, { url: location, source: job.source, depth: job.depth, parent: job.url, hops: job.hops + 1 });
    }
    return { ...base(job), kind: 'redirect', status: outcome.response.status, location, isFollowed };
  }
}

function base(job: Job): DocumentBase {
  return { url: job.url, source: job.source, depth: job.depth, parent: job.parent };
}
