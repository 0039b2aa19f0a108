/**
 * Breadth-first ordering: URLs are fetched in the order they were discovered (seed 004, Figure 2,
 * policy (1): the queue is left in discovery order; SPEC §3 "breadth-first (FIFO)").
 *
 *     O(u) = constant
 *
 * Every URL gets the same priority, so the frontier's first-come first-served rule among equal
 * priorities is the whole policy. Depth order follows without looking at the depth: the links of
 * a page at depth d are discovered only after that page was fetched, hence after every URL of depth
 * ≤ d was queued. Politeness can still bring a later URL of a ready host before an earlier one of a
 * host in its delay, as in any real breadth-first crawler (seed 004 §5.1).
 *
 * Departures: none. In a collaborative crawl, URLs forwarded by other nodes count as discovered when
 * they arrive (their depth or priority hint is not used), which keeps the order a plain FIFO.
 */
import {
  NEEDS_NOTHING,
  NO_PRIORITY_CHANGES,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';

/** The one priority breadth-first gives every URL. */
export const BFS_PRIORITY = 0;

/** Breadth-first (FIFO by discovery) ordering; see the file comment. */
export class BreadthFirstPolicy implements OrderingPolicy {
  /** `{ id: 'bfs', params: {} }`: breadth-first has no parameters. */
  readonly spec: OrderingPolicySpec = Object.freeze({ id: 'bfs', params: Object.freeze({}) });
  /** Reads nothing: discovery order is the whole policy. */
  readonly needs: PolicyNeeds = NEEDS_NOTHING;

  /** Always {@link BFS_PRIORITY}: discovery order decides. */
  prioritize(_url: DiscoveredUrl): number {
    return BFS_PRIORITY;
  }

  /** Breadth-first learns nothing from fetched pages: never any change. */
  observe(_page: FetchedPage): PriorityChanges {
    return NO_PRIORITY_CHANGES;
  }
}
