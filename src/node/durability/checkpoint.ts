/**
 * Checkpoints of a node with a crash-safe frontier (SPEC §8): the moment after which a `kill -9`
 * loses nothing that came before. One checkpoint, in this order:
 *
 *  1. completions wait at the {@link CompletionGate}: no lease becomes final while stores are flushed;
 *  2. the seen set seals what it staged, and the admissions under way finish, so every sealed URL
 *     has reached the frontier;
 *  3. the WARC files, then the link graph, the crawl log and the page metadata are fsynced (the order
 *     of src/store/README.md): every page whose lease completed has its records on disk;
 *  4. the frontier flushes: its adds and completions so far are durable, then the crawl budget's
 *     counts as the previous checkpoint began are written, with the crawl log's length then
 *     (crawl-budget.ts: every record before it now has a durable completion); completions resume;
 *  5. the sealed fingerprints go to the durable seen set, which flushes, and the first captures of
 *     content digests confirmed before step 1 (their WARC records were fsynced in step 3) to the
 *     duplicate index on disk.
 *
 * In a collaborative crawl two more things happen. Before step 3, the URLs routed to other nodes are
 * sent and the exchange's outbox is synced, so a page whose completion becomes final in step 4 never
 * loses the URLs it handed to other nodes. And the deliveries from other nodes whose processing had
 * started when the checkpoint began are processed before step 4 and acknowledged after it: their
 * URLs are in the frontier on disk by then.
 *
 * After a crash the frontier comes back as at the last checkpoint: leases out then, or issued since,
 * come back queued (their pages are fetched again: the refetch window), completions before it stay
 * done, and the seen set holds no URL the frontier lost (staged-seen-set.ts).
 */
import type { Admission } from '../stages/admission.js';
import type { CrawlSinks } from '../../store/records.js';
import type { BudgetSnapshot } from './crawl-budget.js';
import type { StagedSeenSet } from './staged-seen-set.js';

/** A frontier that keeps its state on disk. */
export interface DurableFrontier {
  /** Makes every add and completion so far durable. */
  flush(): Promise<void>;
}

/** Holds lease completions while a checkpoint flushes the stores. */
export class CompletionGate {
  private closed: Promise<void> | null = null;

  /** null when completions may go on; else a promise to wait for first. */
  get wait(): Promise<void> | null {
    return this.closed;
  }

  /** Closes the gate; the returned function opens it again. */
  close(): () => void {
    let open = (): void => {};
    this.closed = new Promise((resolve) => {
      open = resolve;
    });
    return () => {
      this.closed = null;
      open();
    };
  }
}

/** Flushes anything with a `flush()`. */
interface Flushable {
  flush(): Promise<unknown>;
}

/** What a checkpoint flushes. */
export interface CheckpointParts {
  readonly gate: CompletionGate;
  readonly seen: StagedSeenSet;
  readonly admission: Admission;
  readonly warc: Flushable | null;
  readonly sinks: CrawlSinks;
  readonly frontier: DurableFrontier;
  /** The crawl budget's counts, written once the frontier is durable (crawl-budget.ts); null without a budget. */
  readonly budget: CheckpointBudget | null;
  /** The counts of endless numbered spaces (numbered-store.ts), written once the frontier is durable; null without the bound. */
  readonly numbered?: { persist(): Promise<void> } | null;
  /** First captures of content digests, stored once their WARC records are durable. */
  readonly dedup: { seal(): void; promote(): Promise<void> } | null;
  /** The exchange in a collaborative crawl; null for a node on its own. */
  readonly exchange?: CheckpointExchange | null;
}

/** The budget's part in a checkpoint: counts captured as it begins, written once the frontier is durable. */
export interface CheckpointBudget {
  /** The counts now, with the crawl log's length now (null without a crawl log). */
  snapshot(crawlLogBytes: number | null): BudgetSnapshot;
  persist(snapshot: BudgetSnapshot): Promise<void>;
  /** What is on disk when the run begins. */
  readonly restored: BudgetSnapshot;
}

/** The exchange's part in a checkpoint (collaborative crawls). */
export interface CheckpointExchange {
  /** The deliveries this checkpoint acknowledges: those whose processing has started. */
  seal(): unknown;
  /** Resolves once the sealed deliveries are processed. */
  settle(sealed: unknown): Promise<void>;
  /** Sends what is batched and syncs the outbox: everything routed so far is durable. */
  syncSends(): Promise<void>;
  /** Acknowledges the sealed deliveries. */
  ack(sealed: unknown): void;
}

/** Runs checkpoints one at a time; see the file comment. */
export class Checkpointer {
  private running: Promise<void> | null = null;
  private count = 0;
  /** The budget's counts as the last checkpoint began: what the next one writes (crawl-budget.ts). */
  private counted: BudgetSnapshot | null;

  constructor(private readonly parts: CheckpointParts) {
    this.counted = parts.budget?.restored ?? null;
  }

  /** Checkpoints completed. */
  get checkpoints(): number {
    return this.count;
  }

  /** Takes a checkpoint (or joins the one under way). */
  checkpoint(): Promise<void> {
    this.running ??= this.take(false).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * The last checkpoint of a run, once the fetch slots have stopped: it starts after the one under
   * way, if any, and since every lease whose record was written has completed by then, the budget's
   * counts as it begins are written at once.
   */
  async final(): Promise<void> {
    await this.running?.catch(() => {
      // That checkpoint's failure is reported by whoever started it; this one tries again.
    });
    this.running = this.take(true).finally(() => {
      this.running = null;
    });
    await this.running;
  }

  private async take(isLast: boolean): Promise<void> {
    const p = this.parts;
    const open = p.gate.close();
    const crawlLogBytes = p.sinks.crawlLog?.size ?? null;
    const counted = p.budget?.snapshot(crawlLogBytes) ?? null;
    const exchange = p.exchange ?? null;
    const sealed = exchange?.seal();
    try {
      p.seen.seal();
      p.dedup?.seal();
      if (exchange !== null) await exchange.settle(sealed);
      await p.admission.settle();
      await exchange?.syncSends();
      await p.warc?.flush();
      await p.sinks.linkGraph?.flush();
      await p.sinks.crawlLog?.flush();
      await p.sinks.pageMetadata?.flush();
      await p.frontier.flush();
      if (p.budget !== null && counted !== null) {
        // With a crawl log: the counts of the previous checkpoint, whose records all have durable
        // completions now. Without one there is nothing to recover from: the latest counts.
        await p.budget.persist(crawlLogBytes === null ? p.budget.snapshot(null) : isLast ? counted : (this.counted ?? counted));
        this.counted = counted;
      }
      await p.numbered?.persist();
    } finally {
      open();
    }
    await p.seen.promote();
    await p.dedup?.promote();
    exchange?.ack(sealed);
    this.count++;
  }
}
