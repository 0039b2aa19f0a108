/**
 * How long to wait before visiting a page again, from what its earlier visits saw (SPEC §2 item 12).
 *
 * A page is assumed to change as a Poisson process of rate λ (Cho & Garcia-Molina 2003, "Estimating
 * frequency of change", ACM TOIT 3(3), §4). A crawler does not see the changes, only whether the page
 * differed at each visit. With n visits at interval I of which X saw a change, the naive estimate
 * X / (n·I) is biased low (several changes between two visits count once). Their improved estimator
 *
 *     r̂ = −ln((n − X + 0.5) / (n + 0.5)),    λ̂ = r̂ / I
 *
 * is nearly unbiased for n·I·λ in the range a crawler meets and stays finite when every visit saw a
 * change (X = n).
 *
 * The interval then follows from λ̂ by one of two rules, clamped to [minIntervalMs, maxIntervalMs]:
 *
 * - `cho-optimal` (the default): the freshness-optimal interval of Cho & Garcia-Molina ("Effective
 *   page refresh policies for Web crawlers", ACM TODS 28(4), 2003, §4). A page of rate λ visited
 *   every I is fresh a share F = (1 − e^(−λI)) / (λI) of the time. Spending requests where they buy
 *   the most freshness means giving every page the same marginal gain ∂F/∂f = μ (f = 1/I), which is
 *
 *       1 − e^(−λI)·(1 + λI) = λ·μ,
 *
 *   solved here for I (`tradeoffMs` is μ). A page that changes rarely gets a long interval, growing
 *   like √(2μ/λ) rather than 1/λ; a page that changes more often than once per μ (λμ ≥ 1) is not
 *   worth chasing at all: whatever copy is fetched is stale soon after, so it gets `maxIntervalMs`.
 *   A larger μ buys more freshness with more requests.
 * - `cho`: the expected time between changes, 1/λ̂ (visits in proportion to the change rate). The
 *   same paper shows this is worse than uniform visits at equal cost once most pages change;
 *   docs/experiments/freshness.md measures it.
 *
 * Departures:
 * - Visits here are irregular (the interval adapts), so I is the mean interval of the compared visits
 *   (the time they cover divided by their count): the estimator of the paper's §4 under a constant
 *   interval, applied to the average one.
 * - With no change seen yet (X = 0) the estimate is λ̂ = 0, which would jump a page seen unchanged once
 *   straight to the maximum; the interval grows at most twofold per visit instead, so a page needs
 *   several unchanged visits to reach the bound.
 * - The history is halved once it holds {@link MAX_HISTORY} visits (n, X and the time covered alike),
 *   so a page whose rate moves is followed instead of being averaged over its whole life.
 *
 * `halve-double` is the simple rule (halve the interval on a change, double it otherwise) kept for
 * comparison. Pure functions: no clock, no I/O (the simulator and the experiment run them as is).
 */

/** What the visits of one page saw. Immutable. */
export interface ChangeHistory {
  /** Visits compared with the one before (the first visit of a page is not: n). */
  readonly visits: number;
  /** Of which saw the page changed (X). */
  readonly changes: number;
  /** Time between the compared visits and the ones before them, summed, ms. */
  readonly observedMs: number;
  /** The interval that preceded the last visit (or the initial one), ms. */
  readonly intervalMs: number;
}

/** Which rule picks the next interval. */
export type RevisitEstimator = 'cho-optimal' | 'cho' | 'halve-double';

/** The bounds and the rule (the `recrawl` section's fields that matter here). */
export interface RevisitBounds {
  readonly estimator: RevisitEstimator;
  readonly initialIntervalMs: number;
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  /** μ of `cho-optimal`, ms: pages changing more often than once per μ are not chased. */
  readonly tradeoffMs: number;
}

/** Visits kept in a page's history before it is halved. */
export const MAX_HISTORY = 32;

/** A page's history after its first visit. */
export function firstVisit(bounds: RevisitBounds): ChangeHistory {
  return { visits: 0, changes: 0, observedMs: 0, intervalMs: clamp(bounds.initialIntervalMs, bounds) };
}

/** The history after one more visit, `elapsedMs` after the previous one, that saw a change or not. */
export function recordVisit(h: ChangeHistory, elapsedMs: number, isChanged: boolean): ChangeHistory {
  let visits = h.visits + 1;
  let changes = h.changes + (isChanged ? 1 : 0);
  let observedMs = h.observedMs + Math.max(0, elapsedMs);
  if (visits >= MAX_HISTORY) {
    visits /= 2;
    changes /= 2;
    observedMs /= 2;
  }
  return { visits, changes, observedMs, intervalMs: h.intervalMs };
}

/**
 * Cho & Garcia-Molina's estimate of the change rate, changes per ms; 0 before any compared visit or
 * when none saw a change.
 */
export function changeRatePerMs(h: ChangeHistory): number {
  if (h.visits <= 0 || h.observedMs <= 0 || h.changes <= 0) return 0;
  const meanIntervalMs = h.observedMs / h.visits;
  const r = -Math.log((h.visits - h.changes + 0.5) / (h.visits + 0.5));
  return r / meanIntervalMs;
}

/**
 * The interval before the next visit, ms, after the last visit recorded in `h` (whose `isChanged`
 * the halve-double rule needs). Always within [minIntervalMs, maxIntervalMs].
 */
export function nextIntervalMs(h: ChangeHistory, isChanged: boolean, bounds: RevisitBounds): number {
  if (h.visits === 0) return clamp(h.intervalMs, bounds);
  if (bounds.estimator === 'halve-double') return clamp(isChanged ? h.intervalMs / 2 : h.intervalMs * 2, bounds);
  const rate = changeRatePerMs(h);
  if (rate <= 0) return clamp(2 * h.intervalMs, bounds);
  const estimate = bounds.estimator === 'cho' ? 1 / rate : optimalIntervalMs(rate, bounds.tradeoffMs);
  return clamp(Math.min(estimate, 2 * h.intervalMs), bounds);
}

/**
 * The freshness-optimal interval of a page of rate `ratePerMs` for the marginal gain `tradeoffMs`
 * (μ): the I solving 1 − e^(−λI)(1 + λI) = λμ; Infinity when λμ ≥ 1 (not worth chasing).
 */
export function optimalIntervalMs(ratePerMs: number, tradeoffMs: number): number {
  const y = ratePerMs * tradeoffMs;
  if (!(y < 1)) return Number.POSITIVE_INFINITY;
  if (y <= 0) return Number.POSITIVE_INFINITY;
  // g(x) = 1 − e^(−x)(1 + x) rises from 0 to 1: bisection on x = λI.
  let lo = 0;
  let hi = 1;
  while (1 - Math.exp(-hi) * (1 + hi) < y) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (1 - Math.exp(-mid) * (1 + mid) < y) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2 / ratePerMs;
}

function clamp(ms: number, b: RevisitBounds): number {
  return Math.round(Math.min(b.maxIntervalMs, Math.max(b.minIntervalMs, ms)));
}
