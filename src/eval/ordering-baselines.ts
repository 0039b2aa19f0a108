/**
 * The two reference crawlers of every URL-ordering chart (SPEC §3; seed 004, Cho, Garcia-Molina &
 * Page, §3), as curves on the same sample points as a crawl of T pages:
 *
 *     model   random crawler                 ideal crawler
 *     PCS     100·K/T                        100                       (NaN at K = 0, as PCS)
 *     PST     100·K/T                        100·min(K, H)/H           (NaN everywhere when H = 0)
 *     WC      100·K/T  (raw: Σw·K/T)         the K largest weights first
 *     PBC     100·(min(K, B)/B)·(H/T)        100·min(K, H, B)/B
 *
 * The random crawler is the paper's: it picks pages uniformly and may revisit them, so its expected
 * share is a straight line. For PBC the paper only says "analogous": shoal's random crawler keeps a
 * uniform sample of min(K, B) pages, and the ideal one visits hot pages first and never evicts one.
 * The ideal PBC *for a given visit order* is `pbcCurve` (./ordering-buffer.ts) with the true importance
 * as the estimate.
 */
import {
  fractions,
  importanceOf,
  resolveHot,
  sampleCounts,
  checkValues,
  type CrawlerSpec,
  type Curve,
  type CurveModel,
  type HotPages,
  type ImportanceInput,
  type SampleOptions,
} from './ordering-curve.js';
import type { SpecValue } from '../core/strings.js';
import type { ImportanceSpec } from './importance.js';

/** The random or ideal crawler. */
export type Baseline = 'random' | 'ideal';

function baseline(
  id: CurveModel,
  kind: Baseline,
  pages: number,
  importance: ImportanceSpec,
  params: Record<string, SpecValue>,
  options: SampleOptions,
  value: (k: number) => number,
  yUnit: 'percent' | 'weight' = 'percent',
): Curve {
  const ks = sampleCounts(pages, pages, options);
  const crawler: CrawlerSpec = { kind };
  return {
    spec: { id, params: { pages, ...params }, crawler, importance, label: kind, xUnit: 'fraction', yUnit },
    x: fractions(ks, pages),
    y: Float64Array.from(ks, value),
  };
}

/** PCS of the random (100·K/T) or ideal (100) crawler over the T pages of `importance`. */
export function pcsBaseline(kind: Baseline, importance: ImportanceInput, options: SampleOptions = {}): Curve {
  const { spec, values } = importanceOf(importance);
  const pages = values.length;
  return baseline('pcs', kind, pages, spec, {}, options, (k) => (k === 0 ? NaN : kind === 'ideal' ? 100 : (100 * k) / pages));
}

/** PST of the random (100·K/T) or ideal (100·min(K, H)/H) crawler. */
export function pstBaseline(kind: Baseline, hot: HotPages, options: SampleOptions = {}): Curve {
  const { mask, hotPages, importance, params } = resolveHot(hot);
  const pages = mask.length;
  const value = (k: number): number => {
    if (hotPages === 0) return NaN;
    return kind === 'ideal' ? (100 * Math.min(k, hotPages)) / hotPages : (100 * k) / pages;
  };
  return baseline('pst', kind, pages, importance, { hotPages, ...params }, options, value);
}

/**
 * Weighted coverage of the random crawler (expected share K/T of the total) or the ideal one (the
 * heaviest pages first); normalized to percent of the total weight unless `normalized` is false.
 */
export function weightedCoverageBaseline(
  kind: Baseline,
  weights: ImportanceInput,
  options: SampleOptions & { readonly normalized?: boolean } = {},
): Curve {
  const { spec, values } = importanceOf(weights);
  checkValues('weightedCoverageBaseline', values, true);
  const pages = values.length;
  const isNormalized = options.normalized ?? true;
  const descending = Float64Array.from(values).sort().reverse();
  const prefix = new Float64Array(pages + 1);
  for (let k = 0; k < pages; k++) prefix[k + 1] = (prefix[k] as number) + (descending[k] as number);
  const total = prefix[pages] as number;
  const scale = isNormalized ? (total === 0 ? NaN : 100 / total) : 1;
  const value = (k: number): number => (kind === 'ideal' ? (prefix[k] as number) : (total * k) / pages) * scale;
  return baseline('wc', kind, pages, spec, { normalized: isNormalized }, options, value, isNormalized ? 'percent' : 'weight');
}

/** PBC of the random (100·(min(K, B)/B)·(H/T)) or ideal (100·min(K, H, B)/B) crawler with a buffer of B pages. */
export function pbcBaseline(kind: Baseline, hot: HotPages, capacity: number, options: SampleOptions = {}): Curve {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`pbcBaseline: capacity must be an integer >= 1, got ${capacity}`);
  const { mask, hotPages, importance, params } = resolveHot(hot);
  const pages = mask.length;
  const value = (k: number): number =>
    kind === 'ideal' ? (100 * Math.min(k, hotPages, capacity)) / capacity : (100 * Math.min(k, capacity) * hotPages) / (capacity * pages);
  return baseline('pbc', kind, pages, importance, { capacity, hotPages, ...params }, options, value);
}
