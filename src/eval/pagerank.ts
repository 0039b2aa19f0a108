/**
 * PageRank IR(P) as SPEC §3 defines it (seed 004, Cho, Garcia-Molina & Page, "Efficient crawling
 * through URL ordering", after Page & Brin):
 *
 *     IR(P) = (1 − d) + d · Σᵢ IR(Tᵢ) / cᵢ      over the pages Tᵢ linking to P, cᵢ = out-degree of Tᵢ
 *
 * with d = 0.9. A page with no out-links is treated as linking to every page, itself included, so
 * its rank is spread evenly over all n pages. Solved by Jacobi (power) iteration from IR = 1; every
 * iterate then sums to n, which makes the unnormalised scale of the paper (mean rank 1) exact.
 *
 * Departures, on purpose: none in the formula. The iteration stops when the L1 change divided by n
 * falls below `tolerance` or after `maxIterations` (the paper does not say when it stopped). Edges are
 * counted as given: pass a deduplicated graph if a page linking twice to Q should count once.
 *
 * Implementation: push iteration over the CSR (sequential reads of `targets`, one Float64Array per
 * iterate, no per-node objects), O(n + m) per iteration.
 */
import type { Csr } from './csr.js';

/** Options of {@link pageRank}. */
export interface PageRankOptions {
  /** Damping factor d in [0, 1). Default 0.9 (SPEC §3). */
  readonly damping?: number;
  /** Stop when Σ|IRₖ₊₁ − IRₖ| / n is below this. Default 1e-9. */
  readonly tolerance?: number;
  /** Iteration cap (>= 1). Default 100. */
  readonly maxIterations?: number;
}

/** PageRank with how the iteration ended. */
export interface PageRankResult {
  /** IR of every node; sums to n (up to rounding). */
  readonly ranks: Float64Array;
  /** Iterations performed. */
  readonly iterations: number;
  /** L1 change / n of the last iteration (0 for an empty graph). */
  readonly residual: number;
  /** Whether the residual went below the tolerance before the cap. */
  readonly converged: boolean;
}

/** Default damping factor d of SPEC §3. */
export const DEFAULT_DAMPING = 0.9;
/** Default stopping threshold on the L1 change per node. */
export const DEFAULT_TOLERANCE = 1e-9;
/** Default iteration cap. */
export const DEFAULT_MAX_ITERATIONS = 100;

/**
 * PageRank IR of every node of `graph` (SPEC §3), iterated from IR = 1.
 *
 * @returns one rank per node, summing to `graph.nodeCount`.
 * @throws RangeError on a damping outside [0, 1), a negative tolerance or a cap below 1.
 */
export function pageRank(graph: Csr, options?: PageRankOptions): Float64Array {
  return pageRankDetailed(graph, options).ranks;
}

/** {@link pageRank}, also reporting the iteration count and the final residual. */
export function pageRankDetailed(graph: Csr, options: PageRankOptions = {}): PageRankResult {
  const d = options.damping ?? DEFAULT_DAMPING;
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!(d >= 0 && d < 1)) throw new RangeError(`pageRank: damping must be in [0, 1), got ${d}`);
  if (!(tolerance >= 0)) throw new RangeError(`pageRank: tolerance must be >= 0, got ${tolerance}`);
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new RangeError(`pageRank: maxIterations must be an integer >= 1, got ${maxIterations}`);
  }
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  let rank = new Float64Array(n).fill(1);
  if (n === 0) return { ranks: rank, iterations: 0, residual: 0, converged: true };
  let next = new Float64Array(n);
  let iterations = 0;
  let residual = Infinity;
  while (iterations < maxIterations) {
    iterations++;
    next.fill(0);
    let dangling = 0;
    for (let u = 0; u < n; u++) {
      const start = offsets[u] as number;
      const end = offsets[u + 1] as number;
      const r = rank[u] as number;
      if (end === start) {
        dangling += r;
        continue;
      }
      const share = r / (end - start);
      for (let e = start; e < end; e++) {
        const v = targets[e] as number;
        next[v] = (next[v] as number) + share;
      }
    }
    const base = 1 - d + (d * dangling) / n;
    let change = 0;
    for (let v = 0; v < n; v++) {
      const x = base + d * (next[v] as number);
      change += Math.abs(x - (rank[v] as number));
      next[v] = x;
    }
    const swap = rank;
    rank = next;
    next = swap;
    residual = change / n;
    if (residual < tolerance) break;
  }
  return { ranks: rank, iterations, residual, converged: residual < tolerance };
}
