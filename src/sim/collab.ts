/**
 * The collaboration metrics of SPEC §5 for a simulated crawl of several nodes, from the functions a
 * real crawl's `shoal eval` uses (`src/eval/`): overlap and its histogram, coverage of the pages
 * reachable from the seeds, diversity, communication overhead (URLs exchanged per page downloaded,
 * counted exactly by the simulated exchange), load balance, and p_l over the links of the pages the
 * nodes downloaded (each distinct pair once, owners = the nodes that downloaded each page).
 *
 * With a graph whose pages carry communities, the community scores of each node's visits
 * ({@link simCommunityScores}), as `shoal eval --truth` scores a crawl.
 *
 * Message sizes are not modelled: the message byte counters (and so the exported and imported
 * ratios) are 0; forwarded pages' bytes are counted when the graph knows page sizes (crawl graphs).
 */
import { collaborationMetrics, type CollaborationMetrics, type NodeCrawl } from '../eval/collab-metrics.js';
import { communityScores, meanCommunityScores, setOverlap } from '../eval/community-metrics.js';
import type { Csr } from '../eval/csr.js';
import { linkLocality } from '../eval/link-locality.js';
import type { SimCommunityScores } from './result.js';
import type { SimGraph } from './graph/sim-graph.js';
import type { SimulationRun } from './simulator.js';

/** Every collaboration metric of a run; page keys are page ids. */
export function simCollaborationMetrics(graph: SimGraph, run: SimulationRun, reachable: Uint8Array): CollaborationMetrics {
  const { visits } = run;
  const downloads: NodeCrawl['downloads'][number][][] = run.nodes.map(() => []);
  const hostName = (p: number): string => graph.hosts.nameOf(graph.pageHost[p] as number);
  for (let i = 0; i < visits.count; i++) {
    const p = visits.pages[i] as number;
    (downloads[visits.nodes[i] as number] as NodeCrawl['downloads'][number][]).push({
      url: String(p),
      host: hostName(p),
      bytes: graph.pageBytes?.[p] ?? 0,
    });
  }
  const nodes: NodeCrawl[] = run.nodes.map((n, k) => ({
    node: String(n.node),
    downloads: downloads[k] as NodeCrawl['downloads'],
    exchange: {
      urlsSent: n.urlsSent,
      urlsReceived: n.urlsReceived,
      pagesSent: n.pagesSent,
      pagesReceived: n.pagesReceived,
      pageBytesSent: n.pageBytesSent,
      pageBytesReceived: n.pageBytesReceived,
      bytesSent: 0,
      bytesReceived: 0,
    },
  }));
  const target: string[] = [];
  for (let p = 0; p < reachable.length; p++) if (reachable[p] === 1) target.push(String(p));
  const metrics = collaborationMetrics({ nodes, target: new Set(target) });
  return { ...metrics, linkLocality: runLinkLocality(graph, run) };
}

/** p_l over the out-links of downloaded pages, a page's owners being the nodes that downloaded it. */
function runLinkLocality(graph: SimGraph, run: SimulationRun): ReturnType<typeof linkLocality> {
  const n = graph.pageCount;
  const { visits } = run;
  const firstOwner = new Int32Array(n).fill(-1);
  const moreOwners = new Map<number, number[]>();
  for (let i = 0; i < visits.count; i++) {
    const p = visits.pages[i] as number;
    const k = visits.nodes[i] as number;
    const first = firstOwner[p] as number;
    if (first < 0) {
      firstOwner[p] = k;
    } else if (first !== k) {
      const more = moreOwners.get(p) ?? [first];
      if (!more.includes(k)) more.push(k);
      moreOwners.set(p, more);
    }
  }
  const { offsets, targets } = graph.csr;
  let m = 0;
  for (let p = 0; p < n; p++) if ((firstOwner[p] as number) >= 0) m += (offsets[p + 1] as number) - (offsets[p] as number);
  const from = new Uint32Array(m);
  const to = new Uint32Array(m);
  let at = 0;
  for (let p = 0; p < n; p++) {
    if ((firstOwner[p] as number) < 0) continue;
    const end = offsets[p + 1] as number;
    for (let e = offsets[p] as number; e < end; e++, at++) {
      from[at] = p;
      to[at] = targets[e] as number;
    }
  }
  const none: readonly number[] = [];
  const single: number[][] = [];
  const ownersOf = (p: number): readonly number[] => {
    const first = firstOwner[p] as number;
    if (first < 0) return none;
    return moreOwners.get(p) ?? (single[first] ??= [first]);
  };
  return linkLocality({ from, to }, ownersOf, { distinctPairs: graph.format !== 'truth' });
}

/** Cohesion, precision and recall of each node's visited pages against `community`, their means and the overlap. */
export function simCommunityScores(graph: Csr, community: Int32Array, run: SimulationRun): SimCommunityScores {
  const sets: number[][] = run.nodes.map(() => []);
  for (let i = 0; i < run.visits.count; i++) (sets[run.visits.nodes[i] as number] as number[]).push(run.visits.pages[i] as number);
  const nodes = sets.map((pages) => communityScores(graph, community, pages));
  return { nodes, mean: meanCommunityScores(nodes.filter((n) => n.size > 0)), overlap: setOverlap(sets) };
}
