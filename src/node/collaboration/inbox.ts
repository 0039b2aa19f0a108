/**
 * The receiving side of a collaborative node (SPEC §4.5): what other nodes send to the partitions
 * this node owns.
 *
 * - **URL batches** go to admission as URLs already placed here: the URL filter (the same rules on
 *   every node, checked again in case a sender's differ), the URL-seen test (which absorbs the
 *   repeats of at-least-once delivery and the URLs several nodes found), robots.txt, the frontier.
 * - **Forwarded pages** are handled as if this node had fetched them (`onPage`).
 * - **Link summaries** go to the ordering policy when it can use them (`order/policy.ts`,
 *   `RemoteLinkObserver`).
 * - **SimHash batches** go to the node's near-duplicate index (`simhash-sharing.ts`), when it keeps
 *   one and shares it; otherwise they are counted and dropped.
 * - **Control** messages are counted.
 *
 * Acknowledgement: with checkpoints, a delivery is acknowledged after the first checkpoint that
 * begins once its processing has started (`seal` at the checkpoint's start, `settle` before the
 * frontier flushes, `ack` once it has): by then its URLs are in the frontier on disk. Without
 * checkpoints (a memory frontier), a delivery is acknowledged as soon as it is processed.
 */
import type { Admission } from '../stages/admission.js';
import type { Candidate } from '../stages/candidate.js';
import type { Log } from '../../obs/log.js';
import { hostnameOfKey, urlParts } from '../../url/url-parts.js';
import type { Delivery } from '../../exchange/exchange.js';
import type { ForwardedPageMessage, LinkSummaryMessage, SimHashBatchMessage } from '../../exchange/messages.js';
import { canObserveRemoteLinks, type OrderingPolicy } from '../../order/policy.js';
import type { Frontier } from '../../frontier/frontier.js';
import { applyPriorityChanges } from '../stages/priority-changes.js';
import type { UrlIds } from '../../url/url-ids.js';

/** Options of {@link Inbox}. */
export interface InboxOptions {
  readonly admission: Admission;
  readonly policy: OrderingPolicy;
  /** The node's URL ids (null when its policy keeps no per-URL state: link summaries are then ignored). */
  readonly urlIds: UrlIds | null;
  readonly frontier: Frontier;
  readonly log: Log;
  /** Handles a forwarded page as if this node had fetched it; null when this node takes no pages. */
  readonly onPage: ((page: ForwardedPageMessage) => Promise<void>) | null;
  /** Whether acknowledgements wait for checkpoints (a persistent frontier). */
  readonly isCheckpointed: boolean;
  /** Also given every link summary (the router's votes for strategies that read citations). */
  readonly onLinks?: (m: LinkSummaryMessage) => void;
  /** Adds another node's kept pages to the near-duplicate index, returning how many were new; absent when this node shares none. */
  readonly onSimHashes?: (m: SimHashBatchMessage) => number;
}

/** What the inbox received, by kind. */
export interface InboxCounts {
  urlBatches: number;
  urls: number;
  pages: number;
  linkSummaries: number;
  /** In-links named by the link summaries given to the ordering policy (Σ of their counts). */
  remoteLinks: number;
  /** Queued URLs whose priority the link summaries changed (those the frontier still held). */
  reprioritized: number;
  simhashBatches: number;
  /** Fingerprints the SimHash batches carried. */
  simhashes: number;
  /** Of them, those added to the near-duplicate index (not held already). */
  simhashesTaken: number;
  controls: number;
  /** Messages that failed to be processed (logged; acknowledged, since processing again would fail again). */
  failed: number;
}

/** Counts of an inbox that has processed nothing. */
export function noInboxCounts(): InboxCounts {
  return {
    urlBatches: 0,
    urls: 0,
    pages: 0,
    linkSummaries: 0,
    remoteLinks: 0,
    reprioritized: 0,
    simhashBatches: 0,
    simhashes: 0,
    simhashesTaken: 0,
    controls: 0,
    failed: 0,
  };
}

/** See the file comment. */
export class Inbox {
  readonly counts: InboxCounts = noInboxCounts();
  /** Deliveries whose processing started since the last seal, with their processing. */
  private open: { delivery: Delivery; done: Promise<void> }[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: InboxOptions) {}

  /** Whether no delivery is being processed. */
  get isIdle(): boolean {
    return this.running.size === 0;
  }

  /** The exchange's delivery callback: starts processing at once (never throws). */
  readonly deliver = (delivery: Delivery): void => {
    const done = this.process(delivery).catch((err: unknown) => {
      this.counts.failed++;
      this.options.log.error('delivery-failed', {
        kind: delivery.message.kind,
        from: delivery.message.from,
        seq: delivery.message.seq,
        message: err instanceof Error ? err.message : String(err),
      });
    });
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
    if (this.options.isCheckpointed) this.open.push({ delivery, done });
    else void done.then(() => delivery.ack());
  };

  /** At a checkpoint's start: the deliveries that checkpoint will acknowledge. */
  seal(): readonly { delivery: Delivery; done: Promise<void> }[] {
    const sealed = this.open;
    this.open = [];
    return sealed;
  }

  /** Resolves once the sealed deliveries are processed. */
  async settle(sealed: readonly { done: Promise<void> }[]): Promise<void> {
    await Promise.all(sealed.map((s) => s.done));
  }

  /** Resolves once no delivery is being processed. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Acknowledges the sealed deliveries (their effects are durable). */
  ack(sealed: readonly { delivery: Delivery }[]): void {
    for (const s of sealed) s.delivery.ack();
  }

  private async process(d: Delivery): Promise<void> {
    const m = d.message;
    const c = this.counts;
    switch (m.kind) {
      case 'urls': {
        c.urlBatches++;
        c.urls += m.urls.length;
        const candidates: Candidate[] = m.urls.map((u) => ({
          url: u.url,
          hostname: hostnameOfKey(urlParts(u.url).hostKey),
          depth: u.depth,
          fromUrl: u.fromUrl,
          ...(u.anchorText === undefined ? {} : { anchorText: u.anchorText }),
        }));
        await this.options.admission.admit(candidates, { isPlaced: true, isReceived: true });
        return;
      }
      case 'page': {
        c.pages++;
        if (this.options.onPage === null) throw new Error(`a page was forwarded to a node that takes no pages (${m.url})`);
        await this.options.onPage(m);
        return;
      }
      case 'links': {
        c.linkSummaries++;
        this.options.onLinks?.(m);
        const policy = this.options.policy;
        if (!canObserveRemoteLinks(policy)) return;
        const ids = this.options.urlIds;
        if (ids === null) return;
        const changes = policy.observeRemoteLinks(
          m.counts.map(([url]) => ids.idOf(url)),
          m.counts.map(([, n]) => n),
          m.shares,
          m.outDegrees,
        );
        c.remoteLinks += m.counts.reduce((sum, [, n]) => sum + n, 0);
        c.reprioritized += applyPriorityChanges(changes, ids, this.options.frontier);
        return;
      }
      case 'simhashes':
        c.simhashBatches++;
        c.simhashes += m.urls.length;
        c.simhashesTaken += this.options.onSimHashes?.(m) ?? 0;
        return;
      case 'control':
        c.controls++;
        return;
    }
  }
}
