/**
 * One recomputation of IR′ over a snapshot of the discovered graph, done in slices (`pagerank.ts`
 * explains why and what it costs). The Jacobi (power) iteration of SPEC §3,
 *
 *     IR(P) = (1 − d) + d · Σᵢ IR(Tᵢ)/cᵢ,   a page with no known out-links linking to every page,
 *
 * as `src/eval/pagerank.ts` computes it, but:
 * - **push over the link log.** The snapshot is the first `pageCount` pages of a {@link LinkLog},
 *   which already groups links by source (one page's links are appended together), so it is read
 *   as a CSR as it is: no rebuild, no transpose. Each source pushes IR/c to its targets.
 * - **resumable.** `step(budget)` does about `budget` units of work (one unit per link or node
 *   visited) and returns; the state (phase, position, running sums) waits in the object until the
 *   next call. Every phase is a loop with a position and sums run in one order, so the results are
 *   the same, bit for bit, however the work is sliced.
 * - **warm start.** The first iterate is given (the previous ranks), not IR = 1.
 *
 * Per iteration: a push over the links (m units), then one pass over the n nodes that applies
 * IR = base + d · pushed, measures Σ|change| and clears the push array for the next iteration.
 *
 * With an external inflow (links other nodes saw, `pagerank.ts`), a second vector is iterated in
 * the same passes, in units of b: Y(P) = d · (Σᵢ Y(Tᵢ)/cᵢ + external(P)), the part of IR′/b that
 * the remote links bring. It flows along the known links only; what reaches a page without known
 * out-links stays there rather than being spread to every page, so it never feeds b (which would
 * otherwise grow with the inflow without bound).
 */
import type { LinkLog } from './link-log.js';

/** Settings of a {@link RankJob}. */
export interface RankJobSettings {
  /** Damping d in [0, 1). */
  readonly damping: number;
  /** Stop when Σ|IRₖ₊₁ − IRₖ| / n falls below this. */
  readonly tolerance: number;
  /** Stop after this many iterations (>= 1). */
  readonly maxIterations: number;
  /** The inflow from other nodes' links and the vector it drives; absent when there is none. */
  readonly external?: ExternalInflow;
}

/** Arrays of the external part of a {@link RankJob}, each of length >= its nodeCount. */
export interface ExternalInflow {
  /** Per node, the inflow in units of b (finite, >= 0); read only, fixed while the job runs. */
  readonly inflow: Float64Array;
  /** The first iterate of Y (the previous values). */
  readonly warm: Float64Array;
  /** Work buffers owned by the job until it is done: Y, and its push sums. */
  readonly rank: Float64Array;
  readonly pushed: Float64Array;
}

const PUSH = 0;
const APPLY = 1;
const DONE = 2;

/** A sliced IR′ computation over a snapshot of a link log; see the file comment. */
export class RankJob {
  /** Nodes of the snapshot: local indices 0 .. nodeCount − 1. */
  readonly nodeCount: number;
  /** Pages of the snapshot: the first `pageCount` pages of the log. */
  readonly pageCount: number;
  /** Iterations completed. */
  iterations = 0;
  /** Σ|change| / n of the last completed iteration (Infinity before the first). */
  residual = Infinity;
  /** (1 − d) + d · (dangling mass)/n of the last iteration: what a page without known in-links gets. */
  base = 1;
  private readonly log: LinkLog;
  private readonly rank: Float64Array;
  private readonly pushed: Float64Array;
  private readonly settings: RankJobSettings;
  private phase: number = PUSH;
  private position = 0;
  /** Σ IR over all nodes at the start of the current iteration. */
  private total = 0;
  /** Σ IR over the pages with out-links, gathered by the push. */
  private linkedMass = 0;
  private change = 0;
  private sum = 0;
  /** Partial results handed back by the loops below. */
  private readonly acc = new Float64Array(2);

  /**
   * Snapshot of the first `pageCount` pages of `log`, over `nodeCount` nodes (every target and key
   * of those pages is below it), started from `warm[0 .. nodeCount)` (finite, >= 0). `rank` and
   * `pushed` are work buffers of length >= nodeCount, owned by the job until it is done.
   */
  constructor(
    log: LinkLog,
    pageCount: number,
    nodeCount: number,
    warm: Float64Array,
    rank: Float64Array,
    pushed: Float64Array,
    settings: RankJobSettings,
  ) {
    this.log = log;
    this.pageCount = pageCount;
    this.nodeCount = nodeCount;
    this.rank = rank;
    this.pushed = pushed;
    this.settings = settings;
    rank.set(warm.subarray(0, nodeCount));
    pushed.fill(0, 0, nodeCount);
    const ext = settings.external;
    if (ext !== undefined) {
      ext.rank.set(ext.warm.subarray(0, nodeCount));
      ext.pushed.fill(0, 0, nodeCount);
    }
    let total = 0;
    for (let v = 0; v < nodeCount; v++) total += rank[v] as number;
    this.total = total;
    if (nodeCount === 0) {
      this.phase = DONE;
      this.residual = 0;
    }
  }

  /** Whether the iteration has stopped (tolerance reached or iteration cap). */
  get isDone(): boolean {
    return this.phase === DONE;
  }

  /** Y of nodes 0 .. nodeCount − 1 (units of b), when there is an external inflow; else null. */
  get externalRanks(): Float64Array | null {
    return this.settings.external?.rank ?? null;
  }

  /** IR′ of nodes 0 .. nodeCount − 1 (the last iterate; final once `isDone`). */
  get ranks(): Float64Array {
    return this.rank;
  }

  /** Works for about `budget` units (<= 0: until done); returns whether the job is done. */
  step(budget: number): boolean {
    let left = budget > 0 ? budget : Infinity;
    while (this.phase !== DONE && left > 0) left = this.phase === PUSH ? this.push(left) : this.apply(left);
    return this.phase === DONE;
  }

  private push(budget: number): number {
    const { log } = this;
    this.acc[0] = this.linkedMass;
    const ext = this.settings.external;
    const from = this.position;
    const end = pushPages(log.starts, log.keys, log.targets, this.rank, this.pushed, from, this.pageCount, budget, this.acc);
    if (ext !== undefined) pushExternal(log.starts, log.keys, log.targets, ext.rank, ext.pushed, from, end);
    this.linkedMass = this.acc[0] as number;
    this.position = end;
    if (end === this.pageCount) {
      this.phase = APPLY;
      this.position = 0;
    }
    return budget - (this.acc[1] as number);
  }

  private apply(budget: number): number {
    const n = this.nodeCount;
    const d = this.settings.damping;
    const dangling = Math.max(0, this.total - this.linkedMass);
    const base = 1 - d + (d * dangling) / n;
    const from = this.position;
    const stop = Math.min(n, from + Math.max(1, Math.ceil(budget)));
    this.acc[0] = this.change;
    this.acc[1] = this.sum;
    applyNodes(this.rank, this.pushed, from, stop, base, d, this.acc);
    const ext = this.settings.external;
    if (ext !== undefined) this.acc[0] = (this.acc[0] as number) + base * applyExternal(ext, from, stop, d);
    this.change = this.acc[0] as number;
    this.sum = this.acc[1] as number;
    this.position = stop;
    if (stop < n) return 0;
    this.iterations++;
    this.residual = this.change / n;
    this.base = base;
    this.total = this.sum;
    this.linkedMass = 0;
    this.change = 0;
    this.sum = 0;
    this.position = 0;
    const isFinished = this.residual < this.settings.tolerance || this.iterations >= this.settings.maxIterations;
    this.phase = isFinished ? DONE : PUSH;
    return budget - (stop - from);
  }
}

/*
 * The two hot loops are plain functions of typed arrays, so the engine compiles them once for those
 * types, apart from the job's bookkeeping (which runs once per slice and would otherwise keep
 * throwing the optimized loop away).
 */

/**
 * Pushes IR/c from pages [from, to) to their targets until about `budget` units are spent; returns
 * the page it stopped before. Adds the IR of the pages with links to `acc[0]` (a running sum, so
 * slicing does not change the order of the additions); sets `acc[1]` to the units spent.
 */
function pushPages(
  starts: Uint32Array,
  keys: Uint32Array,
  targets: Uint32Array,
  rank: Float64Array,
  pushed: Float64Array,
  from: number,
  to: number,
  budget: number,
  acc: Float64Array,
): number {
  let spent = 0;
  let linked = acc[0] as number;
  let k = from;
  while (k < to && spent < budget) {
    const start = starts[k] as number;
    const end = starts[k + 1] as number;
    spent += end - start + 1;
    if (end > start) {
      const r = rank[keys[k] as number] as number;
      linked += r;
      const share = r / (end - start);
      for (let e = start; e < end; e++) {
        const t = targets[e] as number;
        pushed[t] = (pushed[t] as number) + share;
      }
    }
    k++;
  }
  acc[0] = linked;
  acc[1] = spent;
  return k;
}

/** Pushes Y/c from pages [from, to) to their targets (the external vector, over the same pages as the IR push). */
function pushExternal(
  starts: Uint32Array,
  keys: Uint32Array,
  targets: Uint32Array,
  y: Float64Array,
  pushed: Float64Array,
  from: number,
  to: number,
): void {
  for (let k = from; k < to; k++) {
    const start = starts[k] as number;
    const end = starts[k + 1] as number;
    if (end === start) continue;
    const share = (y[keys[k] as number] as number) / (end - start);
    if (share === 0) continue;
    for (let e = start; e < end; e++) {
      const t = targets[e] as number;
      pushed[t] = (pushed[t] as number) + share;
    }
  }
}

/** Y = d · (pushed + inflow) for nodes [from, to), clearing the push sums; returns Σ|change|. */
function applyExternal(ext: ExternalInflow, from: number, to: number, d: number): number {
  const { inflow, rank, pushed } = ext;
  let change = 0;
  for (let v = from; v < to; v++) {
    const y = d * ((pushed[v] as number) + (inflow[v] as number));
    change += Math.abs(y - (rank[v] as number));
    rank[v] = y;
    pushed[v] = 0;
  }
  return change;
}

/** IR = base + d · pushed for nodes [from, to), clearing `pushed`; adds to the running Σ|change| (`acc[0]`) and Σ IR (`acc[1]`). */
function applyNodes(rank: Float64Array, pushed: Float64Array, from: number, to: number, base: number, d: number, acc: Float64Array): void {
  let change = acc[0] as number;
  let sum = acc[1] as number;
  for (let v = from; v < to; v++) {
    const x = base + d * (pushed[v] as number);
    change += Math.abs(x - (rank[v] as number));
    sum += x;
    rank[v] = x;
    pushed[v] = 0;
  }
  acc[0] = change;
  acc[1] = sum;
}
