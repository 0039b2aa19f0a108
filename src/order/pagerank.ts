/**
 * PageRank ordering IR′ (seed 004 §2 item 3 and Figure 2, policy (3), d = 0.9; SPEC §3):
 *
 *     IR′(P) = (1 − d) + d · Σᵢ IR′(Tᵢ)/cᵢ      over the fetched pages Tᵢ known to link to P
 *     O(u)   = IR′(u) / b,    b = (1 − d) + d · (Σ IR′ of the pages without known out-links) / n
 *
 * on the graph discovered so far: its nodes are every URL met (prioritized, fetched, or named by a
 * link), its edges the distinct links of the fetched pages, self-links left out (cᵢ = distinct other
 * targets of Tᵢ). A node with
 * no known out-links (not fetched yet, or a page without links) is treated as linking to every node,
 * as SPEC §3 and `src/eval/pagerank.ts` do; with every link known, IR′ = IR.
 *
 * ## Why the priority is IR′/b
 *
 * b is what every node receives from the pages without known out-links, the IR′ of a URL nobody
 * links to. At the fixed point IR′ = b · y, where y = 1 + d · Σᵢ y(Tᵢ)/cᵢ does not depend on b: the
 * order by IR′/b is the order by IR′ at any moment. But b falls steadily as the crawl turns unfetched
 * (dangling) URLs into fetched pages, which moves the IR′ of every queued URL at once without
 * changing their order. Priorities in units of b do not drift with it, so a recomputation
 * re-prioritizes only the URLs whose links changed their standing (about 40 % as many on the
 * bench graph), and a priority the frontier has held for a while stays comparable with fresh ones.
 * {@link ImportanceEstimator} gives IR′ itself.
 *
 * ## When IR′ is computed
 *
 * - **Recomputation when the crawl has grown**: a recomputation starts once the pages fetched since
 *   the last one started reach
 *
 *       max(recomputeEvery, ⌈recomputeGrowth · F⌉)      F = pages fetched when the last one started (0 at first)
 *
 *   With the defaults (1,000 and 0.1): every 1,000 fetches up to 10,000 fetched pages, then each
 *   time the fetched pages have grown by 10 % (11,000, 12,100, 13,310, ...). `recomputeGrowth: 0`
 *   gives a fixed period of `recomputeEvery` fetches. A recomputation is a Jacobi iteration over the
 *   whole discovered graph, warm-started from the current estimates (a new node starts at b, 1
 *   before the first recomputation, the paper's starting value), stopped when Σ|change|/n <
 *   `tolerance` or after `maxIterations` (default 3). Each recomputation continues the iteration
 *   where the last left off, on a graph that grew by at most a tenth, so a few iterations suffice:
 *   over a crawl the iteration keeps converging. When it ends, queued URLs whose priority moved by
 *   more than `minChange` (relative, default 1 %) since the frontier got it are returned as changes.
 * - **Between recomputations**, each new link P → u adds d·IR′(P)/c_P to u at once (one Jacobi step
 *   on the new links only), so a URL discovered since the last recomputation is ranked by the pages
 *   that found it rather than all alike; queued targets are returned as changes (same threshold).
 *
 * ## Why the period grows with the crawl
 *
 * A recomputation costs a pass over the discovered graph per iteration, so a fixed period makes a
 * crawl's total cost grow with the square of its size: every 1,000 fetches, a million-page crawl
 * makes 1,000 recomputations (more than 3 minutes of `shoal simulate` on the `large` test web). With
 * a growth g the recomputations fall at F·(1 + g)ᵏ, their sizes form a geometric series, and all of
 * them together cost about (1 + g)/g = 11 times the last one: a constant amount of work per fetched
 * page, whatever the size of the crawl (58 recomputations for a million pages). No size must be
 * known in advance, which a crawl does not know; the simulator might, but runs this same code. The
 * floor keeps small crawls as they were (a recomputation every 1,000 fetches below 10,000 pages).
 * Between recomputations the ranks miss at most a tenth of the fetched pages' links, and the
 * one-step increments carry most of their weight. On the `large` test web (1 M pages, 11.8 M links,
 * `shoal simulate`, importance IB, G = top 1 %), growths of 0.02, 0.05, 0.1 and 0.2 and a fixed
 * period of 1 % of the graph gave PST, PCS and weighted coverage within 1.5 points of each other at
 * 1, 2, 5, 10, 20 and 40 % of the crawl (0.1: from 0.2 below to 0.8 above the fixed period); 0.1
 * spent 14–20 s in the policy there, against 33–36 s for 0.05 and 36–65 s for the fixed 1 %
 * (`npm run bench:sim` settings, two runs each on a loaded machine).
 *
 * ## Cost, and why a crawl never stalls on it
 *
 * The graph lives in growable typed arrays: a {@link LinkLog} (4 bytes per link, grouped by source
 * in fetch order, so it is read as a CSR as it is, without a counting-sort rebuild or a transpose),
 * and 25 bytes per node between recomputations, in pages that never move (`core/paged-arrays.ts`):
 * the estimate, the priority the frontier holds, id ↔ local index and flags. A running
 * recomputation adds 16 bytes per node, its iterate and its push sums, whose memory goes back when
 * it ends: the iterate lives in a resizable buffer (`core/releasable-array.ts`); the push sums,
 * written at random places, which such a buffer does at less than half the speed, in a plain array
 * released when the recomputation ends (`core/release-memory.ts`). Plain arrays merely dropped
 * would wait for a full collection, and several could accumulate (a higher peak, not a lower one).
 * In all about 40 MB + 41 MB for 10 M links and 1 M nodes while a recomputation runs, besides the
 * node's URL ids (`url/url-ids.ts`). A recomputation that re-prioritizes most
 * queued URLs returns them in one batch, 12 bytes per change, built once its iterate is given back,
 * counted before it is filled, and given back at the next `observe` (`change-buffer.ts`). An
 * iteration is one pass over the links and one over the nodes: 30–50 ms at that size on one core of
 * the test machine.
 *
 * A recomputation is spread over the fetches that follow it, in slices of at most `sliceWork` units
 * (one unit = one link or node visited; default 2,000,000, a few milliseconds): each `observe` does
 * one slice and the new ranks arrive when the last slice ends, a few dozen fetches later. The
 * recomputation reads a snapshot (the log is append-only); links found meanwhile are re-applied as
 * one-step increments when it ends. Slicing does not change the result (`rank-job.ts`).
 * `sliceWork: 0` does a whole recomputation in the fetch that triggers it. If one is still running
 * when the next is due, the next starts as soon as it ends. Measured by `bench/order.bench.ts`
 * (1 M pages, 10 M links, every 10,000 fetches): see `README.md`.
 *
 * ## Links other nodes saw (SPEC §4.5, Cho's remedy for hash partitioning)
 *
 * In a hash-partitioned crawl a node fetches only its own pages, so the links into them from pages
 * other nodes fetched are missing from its graph: IR′ is the PageRank of a partial graph. Other
 * nodes send link summaries ({@link RemoteLinkObserver}): per URL this node owns, how many of their
 * pages link to it and the sum of what those links carry, Σ y(T)/c_T over the linking pages T
 * (each sender's {@link RankShareEstimator}, y = IR′/b at the sender when it fetched T). The sum is
 * an inflow, in units of b, kept per node (`external`), and the part of IR′/b it brings is a second
 * vector iterated with IR′ (`remote`, `rank-job.ts`):
 *
 *     Y(P) = d · (Σᵢ Y(Tᵢ)/cᵢ + external(P))        O(u) = IR′(u)/b + Y(u)
 *
 * so that y = IR′/b + Y satisfies y(P) = 1 + d · (Σᵢ y(Tᵢ)/cᵢ + external(P)): a remote page T weighs in
 * as it would in the full graph, with the y its own node estimated (given exact shares, the
 * owner's y of its pages is the full graph's; `test/unit/order/pagerank-remote.test.ts`). Y flows
 * along the known links only and is not spread from pages without known out-links, so b stays the
 * local graph's: folding the inflow into IR′ itself would feed b, which would then grow with the
 * inflow without bound. The estimate ({@link ImportanceEstimator}) is IR′ + b · Y.
 *
 * Summaries are deltas (the links counted since the sender's last one); they are merged by
 * addition, never stored as edges, so memory grows with the URLs they name (each a node of the graph
 * anyway), not with the remote links: 16 bytes per node (inflow and Y), plus 24 per node while a
 * recomputation runs (a snapshot of the inflow, the iterate of Y and its push sums). A summary is applied at once as a
 * one-step increment (Y += d · share, the queued URL re-prioritized past `minChange`); the next
 * recomputation carries it through the local links. A summary without shares (a sender whose policy
 * cannot value links) counts each link as carrying 1/c̄, c̄ the mean out-degree of this node's
 * fetched pages.
 *
 * A share is the sender's estimate when it fetched T, not updated afterwards: a summary names the
 * new links only, and re-sending every remote link's share at each recomputation would cost as much
 * as the links themselves. The inflow is thus a lower estimate early in the crawl. A summary
 * delivered twice (at-least-once delivery) counts twice: a nudge to an estimate, as for IB′.
 *
 * Departures: the paper recomputes before each `reorder_queue` and says nothing of convergence;
 * shoal recomputes each time the crawl has grown by a fraction (every N fetches on a small crawl)
 * with a bounded, warm-started iteration, fills the gaps with one-step increments and orders by IR′/b. A page's repeated links count once; a re-fetched page
 * keeps the links of its first fetch.
 */
import { ChangeBuffer } from './change-buffer.js';
import { DistinctLinks } from './distinct-links.js';
import { PagedArray } from '../core/paged-arrays.js';
import { ReleasableArray } from '../core/releasable-array.js';
import { releaseMemory } from '../core/release-memory.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { isUrlId } from './id-arrays.js';
import { LinkLog } from './link-log.js';
import { integerParam, numberParam } from './order-params.js';
import {
  NEEDS_LINKS_ONLY,
  type DiscoveredUrl,
  type FetchedPage,
  type ImportanceEstimator,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
  type RankShareEstimator,
  type RemoteLinkObserver,
} from './policy.js';
import { RankJob } from './rank-job.js';

/** Options of {@link PageRankPolicy}. */
export interface PageRankPolicyOptions {
  /** Damping factor d in [0, 1). Default 0.9 (seed 004 §6). */
  readonly damping?: number;
  /** Fewest fetched pages between two recomputations (>= 1). Default 1,000. */
  readonly recomputeEvery?: number;
  /**
   * Growth, as a fraction of the pages fetched when the last recomputation started, that the fetched
   * pages must also reach before the next one (>= 0; 0 = every `recomputeEvery` fetches). Default 0.1.
   */
  readonly recomputeGrowth?: number;
  /** Stop a recomputation when Σ|change|/n is below this (>= 0). Default 1e-4. */
  readonly tolerance?: number;
  /** Iteration cap per recomputation (>= 1). Default 3. */
  readonly maxIterations?: number;
  /** Work units (links + nodes visited) per `observe` spent on a recomputation; 0 = all at once. Default 2,000,000. */
  readonly sliceWork?: number;
  /** Smallest relative change of a queued URL's priority that is returned as a change, in [0, 1]. Default 0.01. */
  readonly minChange?: number;
}

/** Default damping d. */
export const DEFAULT_PAGERANK_DAMPING = 0.9;
/** Default of the fewest fetches between recomputations. */
export const DEFAULT_RECOMPUTE_EVERY = 1_000;
/** Default growth of the fetched pages between recomputations, as a fraction. */
export const DEFAULT_RECOMPUTE_GROWTH = 0.1;
/** Default stopping threshold on Σ|change|/n. */
export const DEFAULT_PAGERANK_TOLERANCE = 1e-4;
/** Default iteration cap per recomputation. */
export const DEFAULT_PAGERANK_MAX_ITERATIONS = 3;
/** Default work per `observe` spent on a running recomputation. */
export const DEFAULT_SLICE_WORK = 2_000_000;
/** Largest `recomputeGrowth`: 1,000 times the pages fetched so far, about never. */
export const MAX_RECOMPUTE_GROWTH = 1_000;
/** Default smallest relative change returned to the frontier. */
export const DEFAULT_MIN_CHANGE = 0.01;

const FETCHED = 1;
const QUEUED = 2;
/** The push sums while no recomputation runs. */
const NO_PUSH_SUMS = new Float64Array(0);

/** IR′ ordering over the discovered graph; see the file comment. */
export class PageRankPolicy implements OrderingPolicy, ImportanceEstimator, RemoteLinkObserver, RankShareEstimator {
  /** `{ id: 'pagerank', params: { damping, recomputeEvery, tolerance, maxIterations, sliceWork, minChange } }`. */
  readonly spec: OrderingPolicySpec;
  /** Ids and links only. */
  readonly needs: PolicyNeeds = NEEDS_LINKS_ONLY;
  private readonly damping: number;
  private readonly recomputeEvery: number;
  private readonly recomputeGrowth: number;
  private readonly tolerance: number;
  private readonly maxIterations: number;
  private readonly sliceWork: number;
  private readonly minChange: number;
  /** URL id → 1 + local node index, 0 when not met (paged: one cell per URL id the node numbered). */
  private readonly localOf = new PagedArray(Int32Array);
  /** Local node index → URL id. The per-node state is paged (`core/paged-arrays.ts`): a node per URL the crawl queued, a million or more. */
  private readonly idOf = new PagedArray(Uint32Array);
  /** Local node index → current IR′ estimate. */
  private readonly rank = new PagedArray(Float64Array);
  /** Local node index → the priority (IR′/b) the frontier holds for it, valid while QUEUED. */
  private readonly given = new PagedArray(Float64Array);
  /** Local node index → FETCHED | QUEUED bits. */
  private readonly state = new PagedArray(Uint8Array);
  /**
   * Local node index → inflow from links other nodes saw, in units of b (Σ of received shares).
   * With `remote`, allocated at the first link summary: a node that never receives one (a crawl
   * alone) keeps no 16 bytes per node of zeros.
   */
  private external = new Float64Array(0);
  /** Local node index → Y, the part of IR′/b the inflow brings (see the file comment); all 0 until `hasInflow`. */
  private remote = new Float64Array(0);
  /** Whether a link summary has arrived: `external` and `remote` then cover every node. */
  private hasInflow = false;
  /** `external` as the running recomputation read it (null: it read none), and the job's work arrays for Y. */
  private externalAtStart: Float64Array | null = null;
  private readonly externalWork = new ReleasableArray(Float64Array);
  private readonly remoteWork = new ReleasableArray(Float64Array);
  private remotePushed = NO_PUSH_SUMS;
  private nodeCount = 0;
  private remoteLinkCount = 0;
  private remoteShareSum = 0;
  /** Out-links of fetched pages, keyed and targeted by local index. */
  private readonly log = new LinkLog();
  private readonly links = new DistinctLinks();
  private localTargets = new Uint32Array(64);
  private readonly changes = new ChangeBuffer();
  private job: RankJob | null = null;
  /**
   * The iterate of a recomputation and its push sums, memory only while one runs: the iterate in a
   * resizable buffer, the push sums in a plain array (an array of a resizable buffer is read at
   * full speed in the iteration but written at less than half, and the push is random writes),
   * released when the recomputation ends (the file comment).
   */
  private readonly work = new ReleasableArray(Float64Array);
  private pushed = NO_PUSH_SUMS;
  private fetchesSinceStart = 0;
  /** New fetches since the last recomputation started after which the next is due. */
  private dueAfter: number;
  /** b: what a node with no known in-link gets, from the last recomputation (1 before any). */
  private b = 1;
  private completed = 0;
  private lastIterations = 0;

  /** @throws OrderParamError on a damping outside [0, 1), or a count or tolerance out of range. */
  constructor(options: PageRankPolicyOptions = {}) {
    this.damping = numberParam('damping', options.damping ?? DEFAULT_PAGERANK_DAMPING, 0, 0.999_999);
    this.recomputeEvery = integerParam('recomputeEvery', options.recomputeEvery ?? DEFAULT_RECOMPUTE_EVERY, 1);
    this.recomputeGrowth = numberParam('recomputeGrowth', options.recomputeGrowth ?? DEFAULT_RECOMPUTE_GROWTH, 0, MAX_RECOMPUTE_GROWTH);
    this.dueAfter = this.recomputeEvery;
    this.tolerance = numberParam('tolerance', options.tolerance ?? DEFAULT_PAGERANK_TOLERANCE, 0);
    this.maxIterations = integerParam('maxIterations', options.maxIterations ?? DEFAULT_PAGERANK_MAX_ITERATIONS, 1, 1_000_000);
    this.sliceWork = integerParam('sliceWork', options.sliceWork ?? DEFAULT_SLICE_WORK, 0);
    this.minChange = numberParam('minChange', options.minChange ?? DEFAULT_MIN_CHANGE, 0, 1);
    this.spec = Object.freeze({
      id: 'pagerank',
      params: Object.freeze({
        damping: this.damping,
        recomputeEvery: this.recomputeEvery,
        recomputeGrowth: this.recomputeGrowth,
        tolerance: this.tolerance,
        maxIterations: this.maxIterations,
        sliceWork: this.sliceWork,
        minChange: this.minChange,
      }),
    });
  }

  /** Recomputations completed so far. */
  get recomputations(): number {
    return this.completed;
  }

  /** Iterations of the last completed recomputation (0 before the first). */
  get lastRecomputationIterations(): number {
    return this.lastIterations;
  }

  /** In-links counted by other nodes and received in link summaries so far. */
  get remoteLinks(): number {
    return this.remoteLinkCount;
  }

  /** Σ of the shares (inflow in units of b) received in link summaries so far. */
  get remoteShare(): number {
    return this.remoteShareSum;
  }

  /** b of the last recomputation: the IR′ of a URL without known in-links (1 before the first). */
  get base(): number {
    return this.b;
  }

  /** IR′(u)/b: the URL's current IR′ estimate (the link that found it counted) in units of b. */
  prioritize(url: DiscoveredUrl): number {
    if (!isUrlId(url.id)) return 1;
    const v = this.nodeOf(url.id);
    this.state.set(v, this.state.get(v) | QUEUED);
    const priority = this.priorityOf(v);
    this.given.set(v, priority);
    return priority;
  }

  /** Adds the page's links, starts or advances a recomputation; returns the queued URLs whose priority moved by more than `minChange`. */
  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.reset();
    if (!isUrlId(page.id)) {
      this.advance(changes);
      return changes;
    }
    const s = this.nodeOf(page.id);
    const wasFetched = (this.state.get(s) & FETCHED) !== 0;
    this.state.set(s, FETCHED);
    if (!wasFetched) {
      this.addLinks(s, page.id, page.outIds, changes);
      this.fetchesSinceStart++;
    }
    this.advance(changes);
    return changes;
  }

  /**
   * Adds the inflow of links other nodes saw to the URLs `ids` (see the file comment); returns the
   * queued URLs whose priority moved by more than `minChange`.
   */
  observeRemoteLinks(ids: ArrayLike<number>, counts: ArrayLike<number>, shares?: ArrayLike<number>): PriorityChanges {
    const changes = this.changes.reset();
    const n = Math.min(ids.length, counts.length);
    if (n > 0 && !this.hasInflow) {
      this.hasInflow = true;
      this.external = new Float64Array(this.nodeCount);
      this.remote = new Float64Array(this.nodeCount);
    }
    const pages = this.log.pageCount;
    const perLink = pages > 0 && this.log.linkCount > 0 ? pages / this.log.linkCount : 1;
    const d = this.damping;
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      const count = counts[i] as number;
      if (!isUrlId(id) || !Number.isFinite(count) || count < 0) continue;
      const given = shares === undefined || i >= shares.length ? NaN : (shares[i] as number);
      const share = Number.isFinite(given) && given >= 0 ? given : count * perLink;
      if (share === 0 && count === 0) continue;
      const v = this.nodeOf(id);
      this.external[v] = (this.external[v] as number) + share;
      this.remote[v] = (this.remote[v] as number) + d * share;
      this.remoteLinkCount += count;
      this.remoteShareSum += share;
      if ((this.state.get(v) & QUEUED) !== 0) this.emit(v, changes);
    }
    return changes;
  }

  /** y(P)/c_P = IR′(P)/(b · c_P) of a fetched page with links; 0 otherwise. */
  rankShare(id: number): number {
    const v = isUrlId(id) ? this.localOf.get(id) - 1 : -1;
    if (v < 0 || (this.state.get(v) & FETCHED) === 0) return 0;
    const k = this.log.pageOf(v);
    if (k < 0) return 0;
    const c = this.log.end(k) - this.log.start(k);
    if (c === 0) return 0;
    const share = this.priorityOf(v) / c;
    return Number.isFinite(share) && share > 0 ? share : 0;
  }

  /** IR′ estimate of `id` (with the inflow of remote links, IR′ + b · Y); 0 for an id never met. */
  estimate(id: number): number {
    const v = isUrlId(id) ? this.localOf.get(id) - 1 : -1;
    return v < 0 ? 0 : this.rank.get(v) + this.b * this.remoteOf(v);
  }

  /** Logs the page's distinct links and applies their one-step increments. */
  private addLinks(s: number, pageId: number, outIds: ArrayLike<number>, changes: ChangeBuffer): void {
    const count = this.links.of(outIds, pageId);
    this.localTargets = withRoomFor(this.localTargets, count);
    for (let i = 0; i < count; i++) this.localTargets[i] = this.nodeOf(this.links.targets[i] as number);
    const targets = this.localTargets;
    this.log.append(s, targets, count);
    if (count === 0) return;
    const increment = (this.damping * this.rank.get(s)) / count;
    const remoteIncrement = (this.damping * this.remoteOf(s)) / count;
    for (let i = 0; i < count; i++) {
      const t = targets[i] as number;
      this.rank.set(t, this.rank.get(t) + increment);
      if (remoteIncrement !== 0) this.remote[t] = (this.remote[t] as number) + remoteIncrement;
      if ((this.state.get(t) & QUEUED) !== 0) this.emit(t, changes);
    }
  }

  /** Starts a recomputation when one is due, and gives the running one its slice. */
  private advance(changes: ChangeBuffer): void {
    if (this.job === null && this.fetchesSinceStart >= this.dueAfter) {
      this.fetchesSinceStart = 0;
      this.dueAfter = Math.max(this.recomputeEvery, Math.ceil(this.recomputeGrowth * this.log.pageCount));
      const n = this.nodeCount;
      const work = this.work.acquire(n);
      this.pushed = new Float64Array(n);
      this.externalAtStart = null;
      let external = {};
      if (this.remoteShareSum > 0) {
        this.remotePushed = new Float64Array(n);
        this.externalAtStart = this.externalWork.acquire(n);
        this.externalAtStart.set(this.external.subarray(0, n));
        const inflow = { inflow: this.externalAtStart, warm: this.remote, rank: this.remoteWork.acquire(n), pushed: this.remotePushed };
        external = { external: inflow };
      }
      // The job starts from the current estimates, copied flat into its work array (its own start).
      this.rank.copyTo(work, n);
      this.job = new RankJob(this.log, this.log.pageCount, n, work, work, this.pushed, {
        damping: this.damping,
        tolerance: this.tolerance,
        maxIterations: this.maxIterations,
        ...external,
      });
    }
    if (this.job !== null && this.job.step(this.sliceWork)) this.install(this.job, changes);
  }

  /** Takes a finished recomputation's ranks, re-applies the links found meanwhile, emits queued URLs. */
  private install(job: RankJob, changes: ChangeBuffer): void {
    const n = job.nodeCount;
    this.rank.copyFrom(job.ranks, n);
    const ys = job.externalRanks;
    const d = this.damping;
    // Y and the summaries received while the job ran: their one-step increments were overwritten
    // with the rest. A job that read no inflow left Y and its increments alone.
    if (ys !== null) {
      this.remote.set(ys.subarray(0, n));
      const before = this.externalAtStart as Float64Array;
      for (let v = 0; v < n; v++) {
        const added = (this.external[v] as number) - (before[v] as number);
        if (added !== 0) this.remote[v] = (this.remote[v] as number) + d * added;
      }
    }
    const { log } = this;
    for (let k = job.pageCount; k < log.pageCount; k++) {
      const start = log.start(k);
      const end = log.end(k);
      if (end === start) continue;
      const key = log.keyOf(k);
      const increment = (d * this.rank.get(key)) / (end - start);
      const remoteIncrement = ys === null ? 0 : (d * (this.remote[key] as number)) / (end - start);
      for (let e = start; e < end; e++) {
        const t = log.targets[e] as number;
        if (t >= n) continue;
        this.rank.set(t, this.rank.get(t) + increment);
        if (remoteIncrement !== 0) this.remote[t] = (this.remote[t] as number) + remoteIncrement;
      }
    }
    this.b = job.base > 0 ? job.base : this.b;
    // The work arrays go back before the batch of changes grows, so the two never add up.
    for (const a of [this.work, this.externalWork, this.remoteWork]) a.release();
    for (const a of [this.pushed, this.remotePushed]) releaseMemory(a);
    this.pushed = NO_PUSH_SUMS;
    this.remotePushed = NO_PUSH_SUMS;
    this.externalAtStart = null;
    // Counted first, then appended as the batch's closing run: sized once, and not indexed.
    let moved = 0;
    for (let v = 0; v < this.nodeCount; v++) {
      if ((this.state.get(v) & QUEUED) !== 0 && this.hasMoved(v, this.priorityOf(v))) moved++;
    }
    changes.reserve(moved);
    for (let v = 0; v < this.nodeCount; v++) {
      if ((this.state.get(v) & QUEUED) === 0) continue;
      const priority = this.priorityOf(v);
      if (!this.hasMoved(v, priority)) continue;
      this.given.set(v, priority);
      changes.setClosing(this.idOf.get(v), priority);
    }
    this.completed++;
    this.lastIterations = job.iterations;
    this.job = null;
  }

  /** IR′/b + Y of local node v, finite. */
  private priorityOf(v: number): number {
    const p = this.rank.get(v) / this.b + this.remoteOf(v);
    return Number.isFinite(p) ? p : 0;
  }

  /** Returns a queued node's priority as a change if it moved by more than `minChange` (relative) from what the frontier holds. */
  private emit(v: number, changes: ChangeBuffer): void {
    const priority = this.priorityOf(v);
    if (!this.hasMoved(v, priority)) return;
    this.given.set(v, priority);
    changes.set(this.idOf.get(v), priority);
  }

  /** Whether `priority` differs from what the frontier holds for node v by more than `minChange` (relative). */
  private hasMoved(v: number, priority: number): boolean {
    const given = this.given.get(v);
    return !(Math.abs(priority - given) <= this.minChange * Math.abs(given));
  }

  /** Y of local node v: 0 while no link summary has arrived. */
  private remoteOf(v: number): number {
    return this.hasInflow ? (this.remote[v] as number) : 0;
  }

  /** Local index of `id`, adding it as a node (IR′ = b) on first sight. */
  private nodeOf(id: number): number {
    const known = this.localOf.get(id);
    if (known > 0) return known - 1;
    const v = this.nodeCount++;
    this.localOf.set(id, v + 1);
    if (this.hasInflow) {
      this.external = withRoomFor(this.external, v + 1);
      this.remote = withRoomFor(this.remote, v + 1);
    }
    this.idOf.set(v, id);
    this.rank.set(v, this.b);
    return v;
  }
}
