/**
 * Topic ordering (seed 000, the X4 crawler: each node of a topic-partitioned crawl fetches first the
 * URLs most likely to be on its own topics, so that a URL linked from several topics tends to be
 * fetched by the node that owns it, and late, if at all, by the others; SPEC §4.2 overlap):
 *
 *     O(u) = max over the links to u seen so far of  Σ_{c ∈ own} P(c | words(link))
 *     words(link) = anchor text + extended anchor text (the words before and after the link)
 *                   + the words of u (host and path, after the scheme, percent-decoded)
 *     P(c | d)    = the topic classifier's posterior (the model that labels fetched pages)
 *
 * `own` is the node's categories: in a topic-partitioned crawl, the categories assigned to the
 * partitions it owns (built by the caller, `src/node/order-models.ts`); the `categories` parameter
 * names them for any other crawl (a focused single-node crawl) and, when given, is used as it is.
 * O(u) is in [0, 1]: a link without a word the model knows gets the prior, the same for every such
 * link, so those keep discovery order among themselves.
 *
 * - **Several links.** A URL found again through a link that scores higher keeps the higher score;
 *   a rise is returned as a priority change while it is queued.
 * - **Extended anchor text** comes with a fetched page's links when the caller has it
 *   (`needs.anchorContext`: a crawl gives it, the simulator's graphs hold none); without it a link
 *   is scored on its anchor and URL.
 *
 * Cost: one classification of a few dozen words per link of a fetched page (a table lookup and a row
 * of C additions per word), done in `observe`; `prioritize` classifies again only a URL found
 * elsewhere (a seed, a sitemap entry, a URL from another node). 10 bytes per URL (the best score and two flags).
 *
 * Departures: X4 proposes the ordering in outline; shoal scores with the page classifier itself
 * (its posterior is calibrated on page text, so it is flatter on a handful of link words, which
 * changes the scale of O(u), not the order) and takes the best link rather than combining them.
 */
import { IdFlags, IdNumbers, isUrlId } from './id-arrays.js';
import { OrderParamError } from './order-params.js';
import { QueuedChanges } from './queued-changes.js';
import type { DiscoveredUrl, FetchedPage, OrderingPolicy, OrderingPolicySpec, PolicyNeeds, PriorityChanges } from './policy.js';
import { urlText } from './terms.js';

/**
 * What the policy needs of a topic classifier (`src/classify/classifier.ts` has the full contract):
 * its categories, and per document one probability per category, in that order.
 */
export interface LinkClassifier {
  readonly categories: readonly string[];
  classify(doc: { readonly title: string; readonly text: string }): { readonly probabilities: ArrayLike<number> };
}

/** Options of {@link TopicPolicy}. */
export interface TopicPolicyOptions {
  /** The topic model; required (built by the caller: policies do no I/O). */
  readonly classifier: LinkClassifier | undefined;
  /**
   * The node's own categories, each a category of the classifier: at least one, or null to refuse.
   * An empty list is allowed (a node of a topic crawl that owns only rule categories such as WORLD):
   * every link then scores 0 and the node crawls in discovery order.
   */
  readonly categories: readonly string[] | null;
}

/** Orders URLs by the probability that their link is on one of the node's categories; see the file comment. */
export class TopicPolicy implements OrderingPolicy {
  /** `{ id: 'topic', params: { categories } }`: the effective own categories. */
  readonly spec: OrderingPolicySpec;
  /** Ids, URLs and anchors; extended anchor text when the caller has it. */
  readonly needs: PolicyNeeds = Object.freeze({ ids: true, urls: true, anchors: true, text: false, anchorContext: true });
  private readonly classifier: LinkClassifier;
  /** Indices of the own categories in the classifier's category list. */
  private readonly own: readonly number[];
  private readonly best = new IdNumbers(-1);
  private readonly fetched = new IdFlags();
  private readonly changes = new QueuedChanges();

  /** @throws OrderParamError without a classifier, with null categories, or with a category the model lacks. */
  constructor(options: TopicPolicyOptions) {
    if (options.classifier === undefined) {
      throw new OrderParamError(
        'policy',
        'topic ordering needs the topic model (cluster.model, or the shipped one); the caller did not provide it',
      );
    }
    this.classifier = options.classifier;
    const known = this.classifier.categories;
    if (options.categories === null) {
      throw new OrderParamError(
        'categories',
        `name the categories to favour (e.g. --set 'order.categories=[${known[0] ?? 'SPORTS'}]'), or run a topic-partitioned crawl; the model's: ${known.join(', ')}`,
      );
    }
    const categories = [...new Set(options.categories)];
    const unknown = categories.filter((c) => !known.includes(c));
    if (unknown.length > 0)
      throw new OrderParamError(
        'categories',
        `not categories of the topic model: ${unknown.join(', ')} (the model's: ${known.join(', ')})`,
      );
    this.own = Object.freeze(categories.map((c) => known.indexOf(c)));
    this.spec = Object.freeze({ id: 'topic', params: Object.freeze({ categories: Object.freeze(categories) }) });
  }

  /**
   * The best link score seen for the URL; a link found on a page `observe` has read was scored there
   * (with its extended anchor text, which only `observe` gets).
   */
  prioritize(url: DiscoveredUrl): number {
    if (!isUrlId(url.id)) return this.linkScore(url.anchorText ?? '', '', url.url);
    const wasScored = url.fromId !== undefined && this.fetched.has(url.fromId) && this.best.get(url.id) >= 0;
    const best = wasScored ? this.best.get(url.id) : Math.max(this.linkScore(url.anchorText ?? '', '', url.url), this.best.get(url.id));
    this.best.set(url.id, best);
    this.changes.queue(url.id);
    return best;
  }

  /** Scores the page's links; returns the queued URLs whose best score rose. */
  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.begin(page.id);
    this.fetched.set(page.id, true);
    const n = page.outIds.length;
    for (let i = 0; i < n; i++) {
      const id = page.outIds[i] as number;
      if (!isUrlId(id) || this.fetched.has(id)) continue;
      const score = this.linkScore(page.anchors?.[i] ?? '', page.anchorContexts?.[i] ?? '', page.outUrls?.[i] ?? '');
      if (score <= this.best.get(id)) continue;
      this.best.set(id, score);
      changes.setIfQueued(id, score);
    }
    return changes;
  }

  /** Σ over own categories of P(c | anchor, context, URL words), in [0, 1]. */
  private linkScore(anchor: string, context: string, url: string): number {
    if (this.own.length === 0) return 0;
    const text = `${anchor} ${context} ${url === '' ? '' : urlText(url)}`;
    const p = this.classifier.classify({ title: '', text }).probabilities;
    let sum = 0;
    for (const c of this.own) sum += p[c] as number;
    // A classifier's rounding may leave the sum a hair outside [0, 1]; a NaN would fail the frontier.
    return Number.isFinite(sum) ? Math.min(1, Math.max(0, sum)) : 0;
  }
}
