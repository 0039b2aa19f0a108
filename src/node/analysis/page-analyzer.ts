/**
 * Where pages are analysed ({@link analyzePage}: charset, parse, language, SimHash, links): in
 * worker threads, so that the node's own thread keeps to the network, the frontier and the stores,
 * or in the node's thread (`parse.workers: 0`). The same workers also read sitemap documents
 * ({@link PageAnalyzer.parseSitemap}: a 50 MB sitemap would hold the crawl thread for a while) and
 * compress WARC records ({@link WorkerPageAnalyzer.compress}, a `WarcCompressor`).
 *
 * {@link WorkerPageAnalyzer} runs N workers (`analysis-worker.ts`) and gives each page to the worker
 * with the fewest pages in hand. A page's body is copied once into a buffer of its own (the caller
 * keeps its body for the WARC record) and moved (transferred, not copied again) to the worker; the
 * analysis comes back packed into one buffer, moved too (`packed-analysis.ts`: its strings back to
 * back, their lengths and the numbers). On OpenJDK API pages packing costs the worker about a third
 * less than `JSON.stringify` of the analysis, and unpacking costs the crawl thread about a third less
 * than `JSON.parse` (a structured clone of a page's hundred link objects would cost the crawl
 * thread about five times what `JSON.parse` does). A worker holds the process open only while it
 * has pages in hand.
 *
 * The workers hold at most `maxBytesInHand` bytes of bodies and records (`parse.maxBytesInWorkers`);
 * the tasks beyond wait in line in the crawl thread, in order, and their copies are made only when
 * they go. Without the line, a burst of large pages faster than the workers sat in their queue
 * copied twice (the page, then its WARC record): 51 pages of 8 MB fetched 64 at a time took the
 * crawl to 1,016 MiB of RSS, against 636 with the line.
 *
 * The tasks given to a worker in one turn of the event loop go in one message, and a worker sends
 * its answers back together when they are ready within 1.5 ms of each other: every message wakes the
 * other thread, and on two busy cores that switch cost the crawl thread about 8 % of its time per
 * page (`bench:crawl`).
 *
 * Failures lose nothing and stop nothing: an exception inside an analysis rejects that page's
 * promise only; a worker that dies (out of memory on a hostile page: each worker has a heap limit)
 * rejects the pages it held with an {@link AnalysisError} and is replaced by a new one. The node
 * then keeps the page's records without a parse (see the page processor).
 */
import type { Worker } from 'node:worker_threads';
import { isUnsharedMemory } from '../../core/release-memory.js';
import { startWorker } from './worker-entry.js';
import { MessageBatch } from './message-batch.js';
import { unpackAnalysis } from './packed-analysis.js';
import { parseSitemap, type SitemapParse } from '../../sitemap/sitemap-parser.js';
import type { NormalizeOptions } from '../../url/normalize.js';
import type { GzipMember } from '../../store/warc/gzip-members.js';
import type { RecordBytes } from '../../store/warc/warc-writer.js';
import {
  analyzePage,
  detachedFromPage,
  type PageAnalysis,
  type PageAnalysisInput,
  type PageAnalysisOptions,
} from '../../parse/page-analysis.js';
import { checkTopicModel, loadTopicModel } from '../../classify/model-loader.js';
import { TopicLabeler, type TopicLabelerOptions } from '../../classify/topic-labeler.js';

/**
 * How pages get their topic: the model file (null: the shipped one) and the X4 pipeline's options.
 * Plain data, so that a worker thread can load its own labeler from it.
 */
export interface TopicSetup {
  readonly modelPath: string | null;
  readonly labeler: TopicLabelerOptions;
}

/** The labeler of `setup` (the model read once per process and thread); null for no setup. */
export function labelerOf(setup: TopicSetup | null): TopicLabeler | null {
  return setup === null ? null : new TopicLabeler(loadTopicModel(setup.modelPath).classifier, setup.labeler);
}

/** Analyses pages; {@link close} ends it (idempotent). */
export interface PageAnalyzer {
  /** The analysis of one page; rejects with an {@link AnalysisError} when the page could not be analysed. */
  analyze(input: PageAnalysisInput): Promise<PageAnalysis>;
  /** A sitemap document read (`sitemap/sitemap-parser.ts`, location rule off: the crawl's scope judges its URLs); rejects like `analyze`. */
  parseSitemap(input: SitemapInput): Promise<SitemapParse>;
  close(): Promise<void>;
  /** How many worker threads analyse pages (0: the caller's thread). */
  readonly workers: number;
}

/** A sitemap document to read. */
export interface SitemapInput {
  readonly url: string;
  /** The body after content decoding (a gzip file inside is the parser's to undo). */
  readonly body: Uint8Array;
  /** URLs (or child sitemaps) read at most. */
  readonly maxUrls: number;
}

/** The sitemap parser as the node runs it. */
export function readSitemap(input: SitemapInput, normalize: NormalizeOptions = {}): Promise<SitemapParse> {
  return parseSitemap(input.body, { url: input.url, source: { kind: 'user' } }, { maxUrls: input.maxUrls, locationRule: 'off', normalize });
}

/**
 * A page that could not be analysed: the analysis threw, or its worker died (`isFatal` false: the
 * next page may well succeed); or no worker can start at all (`isFatal` true: an installation
 * problem that stops the crawl).
 */
export class AnalysisError extends Error {
  readonly isFatal: boolean;
  constructor(message: string, options?: { cause?: unknown; isFatal?: boolean }) {
    super(message, options);
    this.name = 'AnalysisError';
    this.isFatal = options?.isFatal ?? false;
  }
}

/** Analyses pages in the caller's thread. */
export class InlinePageAnalyzer implements PageAnalyzer {
  readonly workers = 0;
  private readonly labeler: TopicLabeler | null;

  constructor(
    private readonly options: PageAnalysisOptions,
    topic: TopicSetup | null = null,
  ) {
    this.labeler = labelerOf(topic);
  }

  analyze(input: PageAnalysisInput): Promise<PageAnalysis> {
    try {
      return Promise.resolve(detachedFromPage(analyzePage(input, this.options, this.labeler)));
    } catch (err) {
      return Promise.reject(new AnalysisError(`analysing ${input.url} failed: ${(err as Error).message}`, { cause: err }));
    }
  }

  async parseSitemap(input: SitemapInput): Promise<SitemapParse> {
    try {
      return await readSitemap(input, this.options.normalize);
    } catch (err) {
      throw new AnalysisError(`reading the sitemap ${input.url} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A task on its way to a worker: a page to analyse, or WARC records to compress. */
export type AnalysisRequest =
  | {
      readonly kind: 'analyze';
      readonly id: number;
      readonly url: string;
      readonly body: Uint8Array;
      readonly contentType: string | undefined;
      readonly wantsText: boolean;
      readonly wantsAnchorContext: boolean;
    }
  | { readonly kind: 'sitemap'; readonly id: number; readonly url: string; readonly body: Uint8Array; readonly maxUrls: number }
  /**
   * Records one after the other in `data`, `lengths[i]` bytes each; bytes `stored[2i]` to
   * `stored[2i + 1]` of record i are compressed already (both 0: none).
   */
  | {
      readonly kind: 'gzip';
      readonly id: number;
      readonly data: Uint8Array;
      readonly lengths: readonly number[];
      readonly stored: readonly number[];
      readonly level: number;
    };

/** A worker's answer, or its word that it has loaded its modules. */
export type AnalysisReply =
  /** A page's analysis, packed by `packed-analysis.ts`. */
  | { readonly id: number; readonly kind: 'analysis'; readonly packed: ArrayBuffer }
  | { readonly id: number; readonly kind: 'sitemap'; readonly json: string }
  /** One gzip member per record, one after the other in `data`. */
  | { readonly id: number; readonly kind: 'gzipped'; readonly data: Uint8Array; readonly lengths: readonly number[] }
  | { readonly id: number; readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'ready' };

/** What a worker is started with. */
export interface AnalysisWorkerData {
  readonly options: PageAnalysisOptions;
  readonly topic: TopicSetup | null;
}

interface Pending {
  /** What the task is about, for error messages (a page's URL). */
  readonly about: string;
  /** Bytes the task moved to the worker (see {@link WorkerPageAnalyzerOptions.maxBytesInHand}). */
  readonly bytes: number;
  readonly resolve: (reply: Exclude<AnalysisReply, { kind: 'error' | 'ready' }>) => void;
  readonly reject: (err: unknown) => void;
}

interface Slot {
  worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Whether the current worker has loaded its modules. */
  isReady: boolean;
  /** Tasks for the worker, sent together at the end of this turn of the event loop with the buffers they move. */
  readonly outbox: MessageBatch<AnalysisRequest>;
}

/** Options of {@link WorkerPageAnalyzer}. */
export interface WorkerPageAnalyzerOptions extends PageAnalysisOptions {
  /** Worker threads, at least 1. */
  readonly workers: number;
  /** Old-generation heap limit of each worker, MB: a page that needs more kills its worker, not the node. Default 512. */
  readonly maxWorkerHeapMb?: number;
  /** How pages get their topic; absent or null: no topic. */
  readonly topic?: TopicSetup | null;
  /**
   * Bytes of bodies and records in the workers' hands at most (a task is always given when they hold
   * none); the tasks beyond wait in line, their bytes not yet copied. Default {@link DEFAULT_MAX_BYTES_IN_HAND}.
   */
  readonly maxBytesInHand?: number;
}

/** {@link WorkerPageAnalyzerOptions.maxBytesInHand} by default. */
export const DEFAULT_MAX_BYTES_IN_HAND = 32 * 2 ** 20;

/** A task waiting for room in the workers' hands: what it will move is copied only when it goes. */
interface Waiting {
  readonly about: string;
  readonly bytes: number;
  readonly task: (id: number) => { readonly request: AnalysisRequest; readonly moved: Uint8Array };
  readonly resolve: Pending['resolve'];
  readonly reject: Pending['reject'];
}

/** A worker on `analysis-worker` (worker-entry.ts says how it is loaded from sources and from the build). */
function spawnWorker(workerData: AnalysisWorkerData, maxOldGenerationSizeMb: number): Worker {
  // A small young generation: a page's garbage dies young, and 8 MB (V8 would take up to 48) was as
  // fast in bench:crawl while the process kept about 30 MB less.
  const resourceLimits = { maxOldGenerationSizeMb, maxYoungGenerationSizeMb: 8 };
  return startWorker(import.meta.url, './analysis-worker', { workerData, resourceLimits });
}

/** Analyses pages and compresses WARC records in worker threads; see the file comment. */
export class WorkerPageAnalyzer implements PageAnalyzer {
  readonly workers: number;
  private users = 1;
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private isClosed = false;
  private readonly workerData: AnalysisWorkerData;
  private readonly maxHeapMb: number;
  /** Why no worker can start; every task then rejects with it. */
  private broken: AnalysisError | null = null;
  /** Workers that died and were replaced (for tests and diagnostics). */
  replaced = 0;
  /** Messages posted to the workers, each carrying the tasks of one turn of the event loop (for tests and diagnostics). */
  messagesSent = 0;
  private readonly maxBytesInHand: number;
  /** Bytes the tasks in the workers' hands moved there (for tests and diagnostics). */
  bytesInHand = 0;
  /** Tasks waiting for {@link bytesInHand} to fall, in the order they came (no more than the node's fetch slots). */
  private readonly waiting: Waiting[] = [];

  /** Tasks waiting for room in the workers' hands (for tests and diagnostics). */
  get tasksWaiting(): number {
    return this.waiting.length;
  }

  constructor(options: WorkerPageAnalyzerOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1)
      throw new RangeError(`workers must be a positive integer, got ${options.workers}`);
    this.workers = options.workers;
    this.maxHeapMb = options.maxWorkerHeapMb ?? 512;
    this.maxBytesInHand = options.maxBytesInHand ?? DEFAULT_MAX_BYTES_IN_HAND;
    this.workerData = {
      options: {
        anchorContextTokens: options.anchorContextTokens,
        maxLinks: options.maxLinks,
        maxTextChars: options.maxTextChars,
        ...(options.normalize === undefined ? {} : { normalize: options.normalize }),
      },
      topic: options.topic ?? null,
    };
    // Checked here, where a bad model is a configuration error, rather than in each worker as it
    // starts; not kept: this thread does not classify.
    if (this.workerData.topic !== null) checkTopicModel(this.workerData.topic.modelPath);
    for (let i = 0; i < options.workers; i++) this.slots.push(this.start());
  }

  async analyze(input: PageAnalysisInput): Promise<PageAnalysis> {
    const reply = await this.run(input.url, input.body.byteLength, (id) => {
      // A buffer of its own, moved to the worker: the caller keeps its body (the WARC record needs
      // it), unless it gives the body up and the body's memory can move without taking anything else.
      const body = input.isBodyGiven === true && isUnsharedMemory(input.body, MIN_MOVED_BYTES) ? input.body : copyOf(input.body);
      return {
        request: {
          kind: 'analyze',
          id,
          url: input.url,
          body,
          contentType: input.contentType,
          wantsText: input.wantsText !== false,
          wantsAnchorContext: input.wantsAnchorContext !== false,
        },
        moved: body,
      };
    });
    if (reply.kind !== 'analysis') throw new AnalysisError(`analysing ${input.url}: the worker answered ${reply.kind}`);
    try {
      return unpackAnalysis(reply.packed);
    } catch (err) {
      throw new AnalysisError(`analysing ${input.url}: ${(err as Error).message}`, { cause: err });
    }
  }

  async parseSitemap(input: SitemapInput): Promise<SitemapParse> {
    const reply = await this.run(input.url, input.body.byteLength, (id) => {
      const body = copyOf(input.body);
      return { request: { kind: 'sitemap', id, url: input.url, body, maxUrls: input.maxUrls }, moved: body };
    });
    if (reply.kind !== 'sitemap') throw new AnalysisError(`reading the sitemap ${input.url}: the worker answered ${reply.kind}`);
    return JSON.parse(reply.json) as SitemapParse;
  }

  /**
   * One gzip member per record (a `WarcCompressor`): the records travel to a worker in one buffer and
   * their members come back in one buffer.
   */
  readonly compress = async (records: readonly RecordBytes[], level: number): Promise<readonly GzipMember[]> => {
    let total = 0;
    const stored: number[] = [];
    const lengths = records.map(({ pieces, stored: range }) => {
      let n = 0;
      for (const p of pieces) n += p.length;
      total += n;
      stored.push(range?.from ?? 0, range?.to ?? 0);
      return n;
    });
    const reply = await this.run(`${records.length} WARC records`, total, (id) => {
      const data = new Uint8Array(total);
      let at = 0;
      for (const { pieces } of records) {
        for (const p of pieces) {
          data.set(p, at);
          at += p.length;
        }
      }
      return { request: { kind: 'gzip', id, data, lengths, stored, level }, moved: data };
    });
    if (reply.kind !== 'gzipped' || reply.lengths.length !== records.length)
      throw new AnalysisError('compressing WARC records: the worker answered wrongly');
    const out = Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength);
    let from = 0;
    return reply.lengths.map((length) => {
      const member = out.subarray(from, from + length);
      from += length;
      return { pieces: [member], length };
    });
  };

  /**
   * One more user of these workers (nodes of one process share them): each user calls `close` once,
   * and the workers stop at the last call.
   */
  retain(): this {
    this.users++;
    return this;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    if (--this.users > 0) return;
    this.isClosed = true;
    const err = new AnalysisError('the page analyzer was closed');
    this.rejectWaiting(err);
    await Promise.all(
      this.slots.map(async (s) => {
        for (const p of s.pending.values()) p.reject(err);
        s.pending.clear();
        s.outbox.clear();
        await s.worker.terminate();
      }),
    );
  }

  /**
   * Gives a task to the worker with the fewest in hand, or puts it in line while the workers hold
   * {@link maxBytesInHand} bytes (`bytes` is what the task will move). The task's buffer is made when
   * it goes, and transferred, not copied.
   */
  private run(about: string, bytes: number, task: Waiting['task']): Promise<Exclude<AnalysisReply, { kind: 'error' | 'ready' }>> {
    if (this.broken !== null) return Promise.reject(this.broken);
    if (this.isClosed) return Promise.reject(new AnalysisError('the page analyzer is closed'));
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { about, bytes, task, resolve, reject };
      if (this.waiting.length === 0 && this.hasRoomFor(bytes)) this.give(waiting);
      else this.waiting.push(waiting);
    });
  }

  private hasRoomFor(bytes: number): boolean {
    return this.bytesInHand === 0 || this.bytesInHand + bytes <= this.maxBytesInHand;
  }

  private give(w: Waiting): void {
    let slot = this.slots[0] as Slot;
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    let task: ReturnType<Waiting['task']>;
    try {
      task = w.task(id);
    } catch (err) {
      w.reject(err);
      return;
    }
    if (slot.pending.size === 0) slot.worker.ref();
    slot.pending.set(id, { about: w.about, bytes: w.bytes, resolve: w.resolve, reject: w.reject });
    this.bytesInHand += w.bytes;
    slot.outbox.push(task.request, task.moved.buffer as ArrayBuffer);
  }

  /** A task left the workers' hands (answered or lost): the tasks in line that now fit go. */
  private release(p: Pending): void {
    this.bytesInHand -= p.bytes;
    while (this.waiting.length > 0 && !this.isClosed && this.broken === null && this.hasRoomFor((this.waiting[0] as Waiting).bytes)) {
      this.give(this.waiting.shift() as Waiting);
    }
  }

  private rejectWaiting(err: AnalysisError): void {
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  private start(): Slot {
    // Pages finish in bursts (one poll of the sockets ends several): the tasks of one turn go in one
    // message, to the slot's worker of the moment (a worker that dies is replaced in its slot).
    const outbox = new MessageBatch<AnalysisRequest>((tasks, moved) => {
      this.messagesSent++;
      slot.worker.postMessage(tasks, moved);
    });
    const slot: Slot = { worker: spawnWorker(this.workerData, this.maxHeapMb), pending: new Map(), isReady: false, outbox };
    this.attach(slot);
    return slot;
  }

  private attach(slot: Slot): void {
    const w = slot.worker;
    w.unref();
    w.on('message', (message: AnalysisReply | AnalysisReply[]) => {
      for (const reply of Array.isArray(message) ? message : [message]) {
        if (reply.kind === 'ready') {
          slot.isReady = true;
          continue;
        }
        const p = slot.pending.get(reply.id);
        if (p === undefined) continue;
        slot.pending.delete(reply.id);
        if (slot.pending.size === 0) w.unref();
        if (reply.kind === 'error') p.reject(new AnalysisError(`${p.about}: ${reply.message}`));
        else p.resolve(reply);
        this.release(p);
      }
    });
    let failure: Error | null = null;
    w.on('error', (err) => {
      failure = err;
    });
    w.on('exit', (code) => {
      if (slot.worker !== w) return;
      const why = failure === null ? `exited with code ${code}` : `failed: ${failure.message}`;
      const lost = [...slot.pending.values()];
      slot.pending.clear();
      slot.outbox.clear(); // their promises are among the lost
      if (!slot.isReady) {
        // It never loaded its modules: a new one would fail the same way.
        this.broken ??= new AnalysisError(`no analysis worker can start: it ${why}`, { cause: failure ?? undefined, isFatal: true });
        for (const p of lost) {
          p.reject(this.broken);
          this.release(p); // gives nothing more: the pool is broken
        }
        this.rejectWaiting(this.broken);
        return;
      }
      if (!this.isClosed) {
        this.replaced++;
        slot.worker = spawnWorker(this.workerData, this.maxHeapMb);
        slot.isReady = false;
        this.attach(slot);
      }
      for (const p of lost) {
        p.reject(new AnalysisError(`the analysis worker holding ${p.about} ${why}`, { cause: failure ?? undefined }));
        this.release(p);
      }
    });
  }
}

/**
 * Smallest memory a given body is moved with rather than copied: below it, a copy costs little. A
 * view of part of a larger buffer moves that whole buffer, which the caller gave up with the view.
 */
const MIN_MOVED_BYTES = 64 * 1024;

/** A copy of `bytes` in a buffer of its own, to be moved to a worker. */
function copyOf(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
