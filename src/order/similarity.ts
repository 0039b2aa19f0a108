/**
 * Anchor-text similarity ordering IS′(A, Q) (seed 004 §4: the anchor text of a link predicts the
 * text of the page it leads to; §2 item 1 for the similarity; SPEC §3 "anchor-text similarity"):
 *
 *     O(u) = max over the links to u seen so far of  cos(Q, D)
 *     D    = anchorWeight · tf(anchor text) + urlWeight · tf(terms of u)      (each term then × idf)
 *     Q    = tf(query) × idf
 *     cos(Q, D) = Σₜ Q[t]·D[t] / (|Q|·|D|)   in [0, 1]; 0 when either vector is empty
 *
 * - **idf** (`idfSource`): `crawled` estimates it from the pages fetched so far, as the paper's
 *   IS′ does: idf(t) = ln((1 + N) / (1 + df(t))) + 1, N = pages fetched with text, df(t) = those
 *   whose title or text contain t (at most {@link MAX_DF_TERMS} distinct terms are tracked; later
 *   new terms count as unseen). Before any page, every idf is 1: plain tf cosine. `reference` reads
 *   a table given as data (`models.idf`); a term missing from it gets the table's largest idf.
 * - **Several anchors.** A URL found again with another anchor keeps its best score; a rise is
 *   returned as a priority change while it is queued.
 * - **Terms** are `[\p{L}\p{N}]+` runs, lowercased (`terms.ts`); a URL's terms are read after its
 *   scheme, percent-decoded.
 *
 * {@link ImportanceEstimator}: IS′(P, Q) for a fetched page with text, its vector being
 * tf(text) + titleWeight · tf(title) (title terms weighted up, §2 item 1); the best anchor score for
 * a page not fetched (or fetched without text).
 *
 * Cost: O(|anchor| + |URL|) per link of a fetched page, scored in `observe`; `prioritize` scores
 * again only a URL found elsewhere (a seed, a sitemap entry, a URL from another node). O(|text|) per
 * fetched page for df and the page's own score, in one term map per page, plus a term → count map
 * (at most {@link MAX_DF_TERMS} entries).
 *
 * Departures: the paper defines idf as 1/df and uses the page itself; shoal uses the smoothed
 * logarithmic idf above (finite for unseen terms, positive for terms on every page), and scores
 * URLs by anchor and URL terms, as §4 proposes. A queued URL keeps the score computed with the idf
 * of when its anchor was seen.
 */
import { IdFlags, IdNumbers, isUrlId } from './id-arrays.js';
import { numberParam, OrderParamError } from './order-params.js';
import { QueuedChanges } from './queued-changes.js';
import {
  type DiscoveredUrl,
  type FetchedPage,
  type ImportanceEstimator,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';
import { addTokenCounts, tokensOf, urlTokensOf } from './terms.js';

/** Where idf comes from. */
export const IdfSource = {
  /** Estimated from the pages fetched so far. */
  crawled: 'crawled',
  /** A reference table given as data. */
  reference: 'reference',
} as const;
/** Where idf comes from: `crawled` or `reference`. */
export type IdfSource = (typeof IdfSource)[keyof typeof IdfSource];

/** Options of {@link SimilarityPolicy}. */
export interface SimilarityPolicyOptions {
  /** The driving query Q: one or more words. Required. */
  readonly query: string;
  /** Weight of anchor-text terms in D, >= 0. Default 1. */
  readonly anchorWeight?: number;
  /** Weight of URL terms in D, >= 0. Default 0.5. */
  readonly urlWeight?: number;
  /** Weight of title terms (vs 1 for text terms) in a fetched page's vector, >= 0. Default 2. */
  readonly titleWeight?: number;
  /** Where idf comes from. Default `crawled`. */
  readonly idfSource?: IdfSource;
  /** The reference table (term → idf, finite, >= 0), required for `idfSource: reference`. */
  readonly idf?: ReadonlyMap<string, number>;
}

/** Most distinct terms whose document frequency is tracked. */
export const MAX_DF_TERMS = 1_000_000;
/** Default weight of anchor-text terms. */
export const DEFAULT_ANCHOR_WEIGHT = 1;
/** Default weight of URL terms. */
export const DEFAULT_URL_WEIGHT = 0.5;
/** Default weight of title terms in a fetched page's vector. */
export const DEFAULT_TITLE_WEIGHT = 2;

/** IS′(A, Q) ordering; see the file comment. */
export class SimilarityPolicy implements OrderingPolicy, ImportanceEstimator {
  /** `{ id: 'similarity', params: { query, anchorWeight, urlWeight, titleWeight, idfSource } }`. */
  readonly spec: OrderingPolicySpec;
  /** Ids, and anchors / URLs / text as the weights and the idf source require. */
  readonly needs: PolicyNeeds;
  private readonly queryTf: ReadonlyMap<string, number>;
  private readonly anchorWeight: number;
  private readonly urlWeight: number;
  private readonly titleWeight: number;
  private readonly reference: ReadonlyMap<string, number> | null;
  private readonly referenceMax: number;
  private readonly df = new Map<string, number>();
  private documents = 0;
  private readonly best = new IdNumbers();
  private readonly pageScore = new IdNumbers();
  private readonly scored = new IdFlags();
  private readonly fetched = new IdFlags();
  private readonly changes = new QueuedChanges();

  /** @throws OrderParamError on a query without words, bad weights, or `reference` without a table. */
  constructor(options: SimilarityPolicyOptions) {
    const query = typeof options.query === 'string' ? options.query : '';
    const queryTokens = tokensOf(query);
    if (queryTokens.length === 0) throw new OrderParamError('query', 'the driving query needs at least one word');
    this.queryTf = termFrequencies(queryTokens, 1, new Map());
    this.anchorWeight = numberParam('anchorWeight', options.anchorWeight ?? DEFAULT_ANCHOR_WEIGHT, 0, 1e6);
    this.urlWeight = numberParam('urlWeight', options.urlWeight ?? DEFAULT_URL_WEIGHT, 0, 1e6);
    this.titleWeight = numberParam('titleWeight', options.titleWeight ?? DEFAULT_TITLE_WEIGHT, 0, 1e6);
    if (this.anchorWeight === 0 && this.urlWeight === 0)
      throw new OrderParamError('anchorWeight', 'anchorWeight and urlWeight are both 0: nothing to score');
    const idfSource = options.idfSource ?? IdfSource.crawled;
    if (idfSource !== IdfSource.crawled && idfSource !== IdfSource.reference)
      throw new OrderParamError('idfSource', `unknown idf source ${String(idfSource)}`);
    if (idfSource === IdfSource.reference) {
      if (options.idf === undefined || options.idf.size === 0)
        throw new OrderParamError('idfSource', 'reference idf needs a non-empty idf table (models.idf)');
      let max = 0;
      for (const [term, value] of options.idf) {
        if (!Number.isFinite(value) || value < 0)
          throw new OrderParamError('idfSource', `the reference idf of ${JSON.stringify(term)} is ${value}; must be finite and >= 0`);
        max = Math.max(max, value);
      }
      this.reference = options.idf;
      this.referenceMax = max;
    } else {
      this.reference = null;
      this.referenceMax = 0;
    }
    this.needs = Object.freeze({
      ids: true,
      urls: this.urlWeight > 0,
      anchors: this.anchorWeight > 0,
      text: idfSource === IdfSource.crawled,
    });
    this.spec = Object.freeze({
      id: 'similarity',
      params: Object.freeze({
        query,
        anchorWeight: this.anchorWeight,
        urlWeight: this.urlWeight,
        titleWeight: this.titleWeight,
        idfSource,
      }),
    });
  }

  /**
   * The best IS′(A, Q) of the URL: its own anchor and URL, and any anchor met earlier. A link found
   * on a page `observe` has read was scored there, with the same anchor, URL and idf: its best
   * score stands.
   */
  prioritize(url: DiscoveredUrl): number {
    if (!isUrlId(url.id)) return this.linkScore(url.anchorText ?? '', url.url);
    const wasScored = url.fromId !== undefined && this.fetched.has(url.fromId);
    const best = wasScored ? this.best.get(url.id) : Math.max(this.linkScore(url.anchorText ?? '', url.url), this.best.get(url.id));
    this.best.set(url.id, best);
    this.changes.queue(url.id);
    return best;
  }

  /** Learns df from the page, scores it, and raises queued URLs that got a better anchor. */
  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.begin(page.id);
    const isNew = !this.fetched.has(page.id);
    this.fetched.set(page.id, true);
    if (page.title !== undefined || page.text !== undefined) {
      this.pageScore.set(page.id, this.readPage(page.title ?? '', page.text ?? '', this.reference === null && isNew));
      this.scored.set(page.id, true);
    }
    const n = page.outIds.length;
    for (let i = 0; i < n; i++) {
      const id = page.outIds[i] as number;
      if (!isUrlId(id) || this.fetched.has(id)) continue;
      const score = this.linkScore(page.anchors?.[i] ?? '', page.outUrls?.[i] ?? '');
      if (score <= this.best.get(id)) continue;
      this.best.set(id, score);
      changes.setIfQueued(id, score);
    }
    return changes;
  }

  /** IS′(P, Q) of a fetched page with text, else the best anchor score; 0 for an id never met. */
  estimate(id: number): number {
    return this.scored.has(id) ? this.pageScore.get(id) : this.best.get(id);
  }

  /** IS′(A, Q) of one link: anchor text and URL terms, weighted. */
  linkScore(anchorText: string, url: string): number {
    const anchorTokens = this.anchorWeight > 0 ? tokensOf(anchorText) : [];
    const urlTokens = this.urlWeight > 0 && url !== '' ? urlTokensOf(url) : [];
    const isQueryTerm = (t: string): boolean => this.queryTf.has(t);
    if (!anchorTokens.some(isQueryTerm) && !urlTokens.some(isQueryTerm)) return 0;
    const tf = termFrequencies(anchorTokens, this.anchorWeight, new Map());
    return this.cosine(termFrequencies(urlTokens, this.urlWeight, tf));
  }

  /** The current idf of `term`. */
  idf(term: string): number {
    if (this.reference !== null) return this.reference.get(term) ?? this.referenceMax;
    return Math.log((1 + this.documents) / (1 + (this.df.get(term) ?? 0))) + 1;
  }

  /** cos(Q, D) with idf applied to both; 0 when they share no term or a vector is empty. */
  private cosine(tf: ReadonlyMap<string, number>): number {
    let shares = false;
    for (const term of this.queryTf.keys()) if (tf.has(term)) shares = true;
    if (!shares) return 0;
    let dot = 0;
    let queryNorm = 0;
    for (const [term, q] of this.queryTf) {
      const idf = this.idf(term);
      queryNorm += (q * idf) ** 2;
      dot += q * idf * (tf.get(term) ?? 0) * idf;
    }
    let docNorm = 0;
    for (const [term, d] of tf) docNorm += (d * this.idf(term)) ** 2;
    const cos = dot / Math.sqrt(queryNorm * docNorm);
    return Number.isFinite(cos) && cos > 0 ? Math.min(1, cos) : 0;
  }

  /**
   * IS′(P, Q) of a fetched page, after counting its terms into df when `isCounted`. One term →
   * weight map serves both: its keys are the page's distinct terms, and the text is counted into it
   * as it is read, with no token array.
   */
  private readPage(title: string, text: string, isCounted: boolean): number {
    const titleTokens = tokensOf(title);
    const tf = termFrequencies(titleTokens, this.titleWeight, addTokenCounts(text, new Map()));
    if (isCounted) this.countDocument(titleTokens, tf);
    return this.cosine(tf);
  }

  /** Counts a page's distinct terms (its title's, then the other keys of `tf`) into df, up to {@link MAX_DF_TERMS} terms. */
  private countDocument(titleTokens: readonly string[], tf: ReadonlyMap<string, number>): void {
    this.documents++;
    const distinct = new Set(titleTokens);
    for (const t of tf.keys()) distinct.add(t);
    for (const t of distinct) {
      const count = this.df.get(t);
      if (count !== undefined) this.df.set(t, count + 1);
      else if (this.df.size < MAX_DF_TERMS) this.df.set(t, 1);
    }
  }
}

/** Adds `weight` per occurrence of each token to `into`; returns `into`. */
function termFrequencies(tokens: readonly string[], weight: number, into: Map<string, number>): Map<string, number> {
  if (weight === 0) return into;
  for (const t of tokens) into.set(t, (into.get(t) ?? 0) + weight);
  return into;
}
