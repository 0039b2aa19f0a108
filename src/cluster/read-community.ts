/**
 * The community metrics of a crawl directory (SPEC §5; seed 002), against a test web's ground truth
 * whose pages carry their community (the `community` link model): for each node, the set S of truth
 * pages it downloaded, its cohesion (edges inside S over edges touching S, on the truth's graph), its
 * majority community C, precision |S ∩ C| / |S| and recall |S ∩ C| / |C| (`src/eval/community-metrics.ts`),
 * their means over the nodes, and the overlap between the nodes' sets. Null when the truth names no
 * communities. Also what a running crawl scores its nodes by, live ({@link liveCommunitiesOf}).
 */
import { communityScores, meanCommunityScores, setOverlap, type CommunityEval } from '../eval/community-metrics.js';
import { LiveCommunityScores } from '../eval/live-community-scores.js';
import { readTruth, type Truth } from '../web/truth/read.js';
import type { LiveCommunities } from './live-collab.js';
import { readCrawlForEval, truthPageOfKey, type CrawlForEval } from './read-crawl.js';

export type { CommunityEval, NodeCommunityScores } from '../eval/community-metrics.js';

/**
 * Reads `dir` and scores each node's downloads against the truth's communities; `crawl` is the same
 * directory as `readCrawlForEval(dir, truth)` read it, when already read. Null when the truth has no
 * communities.
 */
export async function readCommunityEval(dir: string, truth: Truth, crawl?: CrawlForEval): Promise<CommunityEval | null> {
  if (!truth.community.some((c) => c >= 0)) return null;
  const read = crawl ?? (await readCrawlForEval(dir, truth));
  const sets = read.nodes.map((n) => {
    const pages = new Set<number>();
    for (const d of n.downloads) {
      const p = truthPageOfKey(d.url);
      if (p >= 0) pages.add(p);
    }
    return { node: n.node, pages: [...pages] };
  });
  const nodes = sets.map((s) => ({ node: s.node, ...communityScores(truth.graph, truth.community, s.pages) }));
  return {
    nodes,
    mean: meanCommunityScores(nodes.filter((n) => n.size > 0)),
    overlap: setOverlap(sets.map((s) => s.pages)),
  };
}

/**
 * The live community scores of a collaborative crawl of `nodes` nodes whose configuration names a
 * truth (`cluster.truthDir`) with communities; null without one.
 */
export async function liveCommunitiesOf(truthDir: string | null, nodes: number): Promise<LiveCommunities | null> {
  if (truthDir === null) return null;
  const truth = await readTruth(truthDir);
  if (!truth.community.some((c) => c >= 0)) return null;
  return { scores: new LiveCommunityScores(truth.graph, truth.community, nodes), pageOf: (url) => truth.pageIdOf(url) };
}
