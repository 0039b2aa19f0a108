/**
 * Weighted combinations of ordering policies (seed 004 §2: IC(P) = k₁·IS(P, Q) + k₂·IB(P); §7: IR′,
 * anchor content and distance to hot pages together; SPEC §3 "weighted combinations"):
 *
 *     O(u) = Σₖ wₖ · Oₖ(u)
 *
 * Each component sees every call, exactly as it would on its own; the combination keeps each
 * component's last priority per URL (one Float64Array per component, indexed by id), and when a
 * component re-prioritizes a URL, that URL's sum is recomputed from the stored priorities and
 * returned as a change while the URL is queued.
 *
 * Scale matters: the priorities are summed as they are, not normalized. IB′ counts links (0, 1, 2,
 * ... hundreds), IR′ has mean 1 over the discovered graph, similarity lies in [0, 1], the hot queue
 * is 0 or 1. Weights must bring them to comparable ranges for the sum to mean what is intended
 * (e.g. 1·IR′ + 5·similarity + 10·hot, where the hot term dominates as in the two-queue policy).
 *
 * Optional abilities: link summaries from other nodes go to the components that use them
 * ({@link RemoteLinkObserver}); rank shares and out-degrees for the summaries this node sends are
 * those of its first `pagerank` and `forward-links` components, 0 without one;
 * {@link ImportanceEstimator} gives Σₖ wₖ · (component estimate, or its last priority for a
 * component that cannot estimate).
 *
 * Cost: the components' costs, plus 8 bytes per URL per component and O(changes) per call.
 * Departures: none; the paper names the combination but does not test one as an ordering.
 */
import { ChangeBuffer } from './change-buffer.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { isUrlId } from './id-arrays.js';
import { numberParam, OrderParamError } from './order-params.js';
import { QueuedChanges } from './queued-changes.js';
import {
  canEstimateImportance,
  canObserveRemoteLinks,
  canShareRank,
  canTellOutDegree,
  type DiscoveredUrl,
  type FetchedPage,
  type ImportanceEstimator,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type OutDegreeEstimator,
  type PolicyNeeds,
  type PriorityChanges,
  type RankShareEstimator,
  type RemoteLinkObserver,
} from './policy.js';

/** One term of the sum. */
export interface WeightedComponent {
  readonly policy: OrderingPolicy;
  /** Its weight wₖ: finite, in [−1e9, 1e9]. */
  readonly weight: number;
}

/** The weighted sum of component policies; see the file comment. */
export class WeightedPolicy implements OrderingPolicy, RemoteLinkObserver, ImportanceEstimator, RankShareEstimator, OutDegreeEstimator {
  /** `{ id: 'weighted', params: { components: ['{"weight":1,"id":"pagerank","params":{...}}', ...] } }`. */
  readonly spec: OrderingPolicySpec;
  /** What any component reads. */
  readonly needs: PolicyNeeds;
  private readonly components: readonly OrderingPolicy[];
  private readonly weights: readonly number[];
  /** Per component: last priority per id. */
  private readonly last: Float64Array[];
  private readonly touched = new ChangeBuffer();
  private readonly changes = new QueuedChanges();

  /** @throws OrderParamError on no components or a weight that is not finite and in range. */
  constructor(components: readonly WeightedComponent[]) {
    if (components.length === 0) throw new OrderParamError('components', 'give at least one component');
    this.components = components.map((c) => c.policy);
    this.weights = components.map((c, i) => numberParam(`components.${i}.weight`, c.weight, -1e9, 1e9));
    this.last = components.map(() => new Float64Array(0));
    const any = (key: keyof PolicyNeeds): boolean => this.components.some((c) => c.needs[key] === true);
    this.needs = Object.freeze({
      ids: any('ids'),
      urls: any('urls'),
      anchors: any('anchors'),
      text: any('text'),
      ...(any('anchorContext') ? { anchorContext: true } : {}),
    });
    this.spec = Object.freeze({
      id: 'weighted',
      params: Object.freeze({
        components: Object.freeze(
          components.map((c, i) => JSON.stringify({ weight: this.weights[i], id: c.policy.spec.id, params: c.policy.spec.params })),
        ),
      }),
    });
  }

  /** Σₖ wₖ · Oₖ(u), each component prioritizing the URL as usual. */
  prioritize(url: DiscoveredUrl): number {
    const isKept = isUrlId(url.id);
    let sum = 0;
    for (let k = 0; k < this.components.length; k++) {
      const p = (this.components[k] as OrderingPolicy).prioritize(url);
      if (isKept) this.store(k, url.id, p);
      sum += (this.weights[k] as number) * (Number.isFinite(p) ? p : 0);
    }
    this.changes.queue(url.id);
    return finite(sum);
  }

  /** Shows the page to every component; returns the new sums of the queued URLs any of them changed. */
  observe(page: FetchedPage): PriorityChanges {
    this.touched.reset();
    const changes = this.changes.begin(page.id);
    for (let k = 0; k < this.components.length; k++) this.take(k, (this.components[k] as OrderingPolicy).observe(page));
    return this.resum(changes);
  }

  /** Passes other nodes' link counts (shares, out-degrees) to the components that use them; returns the changed sums. */
  observeRemoteLinks(
    ids: ArrayLike<number>,
    counts: ArrayLike<number>,
    shares?: ArrayLike<number>,
    outDegrees?: ArrayLike<number>,
  ): PriorityChanges {
    this.touched.reset();
    const changes = this.changes.reset();
    for (let k = 0; k < this.components.length; k++) {
      const c = this.components[k] as OrderingPolicy;
      if (canObserveRemoteLinks(c)) this.take(k, c.observeRemoteLinks(ids, counts, shares, outDegrees));
    }
    return this.resum(changes);
  }

  /** The share of the first component that values links (a `pagerank` component); 0 when none does. */
  rankShare(id: number): number {
    for (const c of this.components) if (canShareRank(c)) return c.rankShare(id);
    return 0;
  }

  /** The out-degree the first component that knows out-degrees (a `forward-links` component) gives; 0 when none does. */
  outDegree(id: number): number {
    for (const c of this.components) if (canTellOutDegree(c)) return c.outDegree(id);
    return 0;
  }

  /** Σₖ wₖ · (component estimate, or its last priority for the id); 0 for an id never met. */
  estimate(id: number): number {
    let sum = 0;
    for (let k = 0; k < this.components.length; k++) {
      const c = this.components[k] as OrderingPolicy;
      const value = canEstimateImportance(c) ? c.estimate(id) : this.lastOf(k, id);
      sum += (this.weights[k] as number) * (Number.isFinite(value) ? value : 0);
    }
    return finite(sum);
  }

  /** Stores component k's changes and notes the ids touched. */
  private take(k: number, changes: PriorityChanges): void {
    for (let i = 0; i < changes.length; i++) {
      const id = changes.ids[i] as number;
      const p = changes.priorities[i] as number;
      if (!isUrlId(id) || !Number.isFinite(p)) continue;
      this.store(k, id, p);
      this.touched.set(id, 0);
    }
  }

  /** Adds to `changes` the new sums of the touched ids that are queued. */
  private resum(changes: QueuedChanges): PriorityChanges {
    const touched = this.touched;
    for (let i = 0; i < touched.length; i++) {
      const id = touched.ids[i] as number;
      if (!changes.isQueued(id)) continue;
      let sum = 0;
      for (let k = 0; k < this.components.length; k++) sum += (this.weights[k] as number) * this.lastOf(k, id);
      changes.set(id, finite(sum));
    }
    return changes;
  }

  private store(k: number, id: number, p: number): void {
    const a = withRoomFor(this.last[k] as Float64Array, id + 1);
    this.last[k] = a;
    a[id] = Number.isFinite(p) ? p : 0;
  }

  private lastOf(k: number, id: number): number {
    const a = this.last[k] as Float64Array;
    return id >= 0 && id < a.length ? (a[id] as number) : 0;
  }
}

/** `x` clamped into the finite range (a sum of large weighted terms may overflow). */
function finite(x: number): number {
  if (Number.isNaN(x)) return 0;
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, x));
}
