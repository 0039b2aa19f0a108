/**
 * Fits a discrete power-law tail P(x) ∝ x^(−α), x >= x_min, to positive integer data (degrees,
 * counts), after Clauset, Shalizi & Newman, "Power-law distributions in empirical data", SIAM
 * Review 51(4), 2009:
 *
 *     α̂ = argmax_α  −n · ln ζ(α, x_min) − α · Σᵢ ln xᵢ                          (their eq. 3.5)
 *
 * the discrete maximum-likelihood estimator over the n values xᵢ >= x_min (ζ = Hurwitz zeta,
 * evaluated by Euler–Maclaurin summation), or with `estimator: 'approximate'` its closed form
 *
 *     α̂ = 1 + n · [ Σᵢ ln( xᵢ / (x_min − ½) ) ]⁻¹                          (their eq. 3.7)
 *
 * which is biased low for small x_min (about 2.0 instead of 2.5 at x_min = 1, 2.4 at x_min = 3; the
 * paper quotes ~1 % accuracy only from x_min ≳ 6), hence the exact default. When x_min is not given
 * it is the candidate minimising the Kolmogorov–Smirnov distance
 *
 *     D = max_{x >= x_min} | S_data(x) − S_fit(x) |,   S_fit(x) = ζ(α̂, x) / ζ(α̂, x_min)
 *
 * between the tail's empirical survival function and the fitted discrete one. D is taken over every integer x, which for
 * step functions means at each observed value and one past it.
 *
 * Departures, on purpose: the candidate x_min values are the distinct observed values, but only those
 * leaving at least `minTail` (default 50) values in the tail, and above 50 they are thinned to a 2 %
 * geometric spacing; this keeps the scan near O(n log n) on million-value inputs. No goodness-of-fit
 * p-value (their §4) is computed.
 */

/** Options of {@link fitPowerLaw}. */
export interface PowerLawOptions {
  /** Fix x_min (an integer >= 1) instead of choosing it by KS distance. */
  readonly xmin?: number;
  /** Fewest tail values a candidate x_min may leave. Default 50. */
  readonly minTail?: number;
  /** `exact` (default): numerical MLE, eq. 3.5; `approximate`: the closed form of eq. 3.7. */
  readonly estimator?: 'exact' | 'approximate';
}

/** A fitted power-law tail. */
export interface PowerLawFit {
  /** α̂, the tail exponent (> 1). */
  readonly exponent: number;
  /** The x_min used. */
  readonly xmin: number;
  /** Number of values >= x_min. */
  readonly tailCount: number;
  /** KS distance between the tail and the fit. */
  readonly ks: number;
}

const DEFAULT_MIN_TAIL = 50;
/** Candidates above this value are thinned to a geometric spacing. */
const DENSE_CANDIDATES_UP_TO = 50;
const CANDIDATE_SPACING = 1.02;

/**
 * Fits a discrete power-law tail (Clauset, Shalizi & Newman 2009). Zero values are ignored.
 *
 * @throws RangeError on a negative, non-integer or non-finite value, or when fewer than `minTail`
 *   values (2 with a fixed x_min) lie in the tail.
 */
export function fitPowerLaw(values: ArrayLike<number>, options: PowerLawOptions = {}): PowerLawFit {
  const minTail = options.minTail ?? DEFAULT_MIN_TAIL;
  const sorted = positiveSorted(values);
  // Distinct values, the count of values >= each, and the sum of ln x over values >= each.
  const distinct: number[] = [];
  const countGE: number[] = [];
  const lnSumGE: number[] = [];
  let lnSum = 0;
  for (let i = sorted.length - 1; i >= 0; i--) {
    const x = sorted[i] as number;
    lnSum += Math.log(x);
    if (i === 0 || (sorted[i - 1] as number) !== x) {
      distinct.push(x);
      countGE.push(sorted.length - i);
      lnSumGE.push(lnSum);
    }
  }
  distinct.reverse();
  countGE.reverse();
  lnSumGE.reverse();
  const tail = { distinct, countGE, lnSumGE };

  if (options.xmin !== undefined) {
    const xmin = options.xmin;
    if (!Number.isInteger(xmin) || xmin < 1) throw new RangeError(`fitPowerLaw: xmin must be an integer >= 1, got ${xmin}`);
    const c = distinct.findIndex((x) => x >= xmin);
    const n = c < 0 ? 0 : (countGE[c] as number);
    if (n < 2) throw new RangeError(`fitPowerLaw: only ${n} values >= xmin ${xmin}`);
    const exponent = estimate(n, lnSumGE[c] as number, xmin, options.estimator);
    return { exponent, xmin, tailCount: n, ks: ksDistance(tail, c, xmin, exponent) };
  }

  let best: PowerLawFit | null = null;
  let lastKept = -Infinity;
  for (let c = 0; c < distinct.length; c++) {
    const xmin = distinct[c] as number;
    const n = countGE[c] as number;
    if (n < minTail) break;
    if (xmin > DENSE_CANDIDATES_UP_TO && xmin < lastKept * CANDIDATE_SPACING) continue;
    lastKept = xmin;
    const exponent = estimate(n, lnSumGE[c] as number, xmin, options.estimator);
    const ks = ksDistance(tail, c, xmin, exponent);
    if (best === null || ks < best.ks) best = { exponent, xmin, tailCount: n, ks };
  }
  if (best === null) throw new RangeError(`fitPowerLaw: fewer than ${minTail} positive values`);
  return best;
}

const GOLDEN = (Math.sqrt(5) - 1) / 2;

/** α̂ for n tail values >= xmin whose logarithms sum to lnSum. */
function estimate(n: number, lnSum: number, xmin: number, estimator: PowerLawOptions['estimator']): number {
  const approximate = 1 + n / (lnSum - n * Math.log(xmin - 0.5));
  if (estimator === 'approximate') return approximate;
  // The log-likelihood is concave in α (ln ζ is a log-partition function), so golden-section
  // search over a bracket holding the approximate root converges to the unique maximum.
  const logLik = (a: number): number => -n * Math.log(hurwitzZeta(a, xmin)) - a * lnSum;
  let lo = 1 + 1e-9;
  let hi = Math.max(approximate * 2, 10);
  let x1 = hi - GOLDEN * (hi - lo);
  let x2 = lo + GOLDEN * (hi - lo);
  let f1 = logLik(x1);
  let f2 = logLik(x2);
  while (hi - lo > 1e-10) {
    if (f1 < f2) {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + GOLDEN * (hi - lo);
      f2 = logLik(x2);
    } else {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - GOLDEN * (hi - lo);
      f1 = logLik(x1);
    }
  }
  return (lo + hi) / 2;
}

function positiveSorted(values: ArrayLike<number>): Float64Array {
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isInteger(x) || x < 0) throw new RangeError(`fitPowerLaw: value ${i} is ${x}, not a non-negative integer`);
    if (x > 0) count++;
  }
  const out = new Float64Array(count);
  let j = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (x > 0) out[j++] = x;
  }
  return out.sort();
}

interface Tail {
  readonly distinct: readonly number[];
  readonly countGE: readonly number[];
  readonly lnSumGE: readonly number[];
}

/** KS distance over all integers x >= xmin between the data's and the fit's survival functions. */
function ksDistance(tail: Tail, first: number, xmin: number, alpha: number): number {
  const { distinct, countGE } = tail;
  const n = countGE[first] as number;
  const z0 = hurwitzZeta(alpha, xmin);
  let d = 0;
  for (let k = first; k < distinct.length; k++) {
    const x = distinct[k] as number;
    const empirical = (countGE[k] as number) / n;
    d = Math.max(d, Math.abs(empirical - hurwitzZeta(alpha, x) / z0));
    // Just past x the data's survival drops to the next observed value's (0 after the last).
    const nextEmpirical = k + 1 < distinct.length ? (countGE[k + 1] as number) / n : 0;
    d = Math.max(d, Math.abs(nextEmpirical - hurwitzZeta(alpha, x + 1) / z0));
  }
  return d;
}

/** B₂ⱼ / (2j)! for j = 1..6 (Bernoulli numbers over factorials). */
const EM_COEFFS = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000];

/**
 * Hurwitz zeta ζ(s, q) = Σ_{k>=0} (q + k)^(−s) for s > 1, q > 0, by Euler–Maclaurin summation
 * (relative error below 1e-12 for the s and q met here).
 */
export function hurwitzZeta(s: number, q: number): number {
  if (!(s > 1) || !(q > 0)) throw new RangeError(`hurwitzZeta: needs s > 1 and q > 0, got s=${s} q=${q}`);
  const terms = Math.max(0, 12 - Math.floor(q));
  let sum = 0;
  for (let k = 0; k < terms; k++) sum += Math.pow(q + k, -s);
  const a = q + terms;
  sum += Math.pow(a, 1 - s) / (s - 1) + 0.5 * Math.pow(a, -s);
  // Σ B₂ⱼ/(2j)! · s(s+1)…(s+2j−2) · a^(−s−2j+1)
  let rising = s;
  let power = Math.pow(a, -s - 1);
  const inv2 = 1 / (a * a);
  for (let j = 0; j < EM_COEFFS.length; j++) {
    sum += (EM_COEFFS[j] as number) * rising * power;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power *= inv2;
  }
  return sum;
}
