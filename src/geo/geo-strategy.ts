/**
 * The GeoStrategy extension point (SPEC §4.3; seed 003 §3.4): how a geographically focused crawl
 * estimates pr(c | ·), the chance that what a link points to, or what a page is about, is target
 * city c of the gazetteer.
 *
 * A strategy judges **links** (the URL of the link and its anchor text, read before the target is
 * fetched: `url`, `anchor`), **pages** (the fetched page whose links are being placed: `content`,
 * `classifier`, `ip`), or both (`combined`). The geo partitioner (src/partition/geo/geo.ts) asks a
 * link first, then the page the link is on, and sends the link to the nodes of the cities with the
 * best score (Policy A) or of every city with a score (Policy B); with no score at all, to a general
 * node.
 *
 * ## Contract
 *
 * - **Returned.** {@link GeoScores}: target index → score, only targets of the strategy's gazetteer,
 *   only scores > 0, empty when the strategy sees no city (or does not judge that kind of input). The
 *   best score is the strategy's pr(c | ·) argmax; ties go to the lower target index (the more
 *   populous city in the default list). Scores are comparable within one answer, not across.
 * - **Pure and deterministic.** No I/O, no clock: models, tables and address databases come in at
 *   construction. The same input gives the same scores in every process.
 * - **Failure.** Web data never throws: no text, no anchor, an odd URL, an unknown address give
 *   empty scores. Bad parameters throw at construction.
 * - **Identity.** `spec` names the strategy and every parameter that changes a score.
 *
 * ## Sources
 *
 * Seed 003 §3.4 (URL-based, extended anchor text, full content, classification and IP-address
 * strategies) and §3.5 (aliases and ambiguity).
 */

/** A link about to be placed: the URL it points to and the text around it on the page. */
export interface GeoLink {
  /** Normalized absolute URL. */
  readonly url: string;
  readonly anchorText?: string;
  /** Up to N words before and after the anchor (the extended anchor text, `parse.anchorContextTokens`). */
  readonly anchorBefore?: string;
  readonly anchorAfter?: string;
}

/** A fetched page whose links are being placed. */
export interface GeoPage {
  readonly url: string;
  readonly title: string | null;
  /** Visible text, or null when the page was not analysed. */
  readonly text: string | null;
  /** The address the page was fetched from, or null. */
  readonly ip: string | null;
}

/** pr(c | ·) over target indices: sparse, positive scores only. */
export type GeoScores = ReadonlyMap<number, number>;

/** A strategy parameter or resource that cannot be used (thrown at construction). */
export class GeoParamError extends RangeError {}

/** The empty answer: no city. */
export const NO_CITY: GeoScores = new Map();

/** What a strategy is, exactly. */
export interface GeoStrategySpec {
  readonly id: string;
  readonly params: Readonly<Record<string, string | number>>;
}

/** The extension point; see the file comment for the Contract. */
export interface GeoStrategy {
  readonly spec: GeoStrategySpec;
  /** Whether {@link scoreLink} can give scores (else it always answers {@link NO_CITY}). */
  readonly readsLinks: boolean;
  /** Whether {@link scorePage} can give scores. */
  readonly readsPages: boolean;
  /** pr(c | link): judged before the link's target is fetched. */
  scoreLink(link: GeoLink): GeoScores;
  /** pr(c | page): judged after the page is fetched, for every link on it. */
  scorePage(page: GeoPage): GeoScores;
}

/** The best-scoring target (lower index on ties), or −1 for empty scores. */
export function bestTarget(scores: GeoScores): number {
  let best = -1;
  let bestScore = 0;
  for (const [t, s] of scores) {
    if (s > bestScore || (s === bestScore && t < best)) {
      best = t;
      bestScore = s;
    }
  }
  return best;
}

/** Adds `score` to target `t`, keeping the larger (`max`) or the sum (`add`). */
export function addScore(scores: Map<number, number>, t: number, score: number, how: 'max' | 'add'): void {
  if (t < 0 || !(score > 0)) return;
  const prev = scores.get(t) ?? 0;
  scores.set(t, how === 'max' ? Math.max(prev, score) : prev + score);
}
