/**
 * Coverage of a crawl against a known target Web (SPEC §5):
 *
 *     coverage = |D ∩ T| / |T|
 *
 * T = URLs of the pages reachable in the target Web (the test web's truth, or the simulator's
 * graph), D = distinct URLs downloaded by all nodes. SPEC §5 writes I / |T| with I = |D|; counting
 * only D ∩ T is the same when the crawl stays inside the target, and keeps coverage in [0, 1] when
 * it does not: downloads outside T (out-of-scope hosts, URLs the truth does not list) never raise
 * coverage, they are reported apart as `offTargetPages`. URLs are compared as given, so D and T must
 * be normalized the same way.
 */
import type { NodeCrawl } from './collab-input.js';

/** Coverage with the counts it is made of. */
export interface CoverageResult {
  /** |T|: distinct target URLs. */
  readonly targetPages: number;
  /** |D ∩ T|: target pages downloaded by at least one node. */
  readonly coveredPages: number;
  /** |T \ D|: target pages no node downloaded. */
  readonly missedPages: number;
  /** |D \ T|: distinct downloaded URLs outside the target (not counted in coverage). */
  readonly offTargetPages: number;
  /** |D ∩ T| / |T|, in [0, 1]; null when the target is empty. */
  readonly coverage: number | null;
}

/**
 * Coverage of the downloads of every node against `target`.
 *
 * @param target URLs of the reachable target pages; duplicates count once. A `Set` is used as is.
 */
export function coverage(nodes: readonly Pick<NodeCrawl, 'downloads'>[], target: Iterable<string>): CoverageResult {
  const targetSet: ReadonlySet<string> = target instanceof Set ? (target as ReadonlySet<string>) : new Set(target);
  const seen = new Set<string>();
  let coveredPages = 0;
  let offTargetPages = 0;
  for (const { downloads } of nodes) {
    for (const { url } of downloads) {
      if (seen.has(url)) continue;
      seen.add(url);
      if (targetSet.has(url)) coveredPages++;
      else offTargetPages++;
    }
  }
  const targetPages = targetSet.size;
  return {
    targetPages,
    coveredPages,
    missedPages: targetPages - coveredPages,
    offTargetPages,
    coverage: targetPages === 0 ? null : coveredPages / targetPages,
  };
}
