/**
 * Measurements of a graph that explain why an ordering does well or badly on it, all over the T
 * pages reachable from the seeds: link depth from the seeds, how local links are (same host), where
 * the hot pages sit, whether hot pages link to hot pages (the property the modified hot queue uses),
 * and how many hot pages an anchor or URL names. Also the choice of the topic word.
 */
import { countTermsIn, tokensOf, urlText } from '../../src/order/terms.js';
import { reachablePages } from '../../src/sim/evaluation.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';

/** Facts of a graph over its T pages. */
export interface GraphFacts {
  /** T. */
  readonly pages: number;
  /** Followed links between T pages. */
  readonly links: number;
  /** Hosts holding T pages. */
  readonly hosts: number;
  /** Share of those links within one host. */
  readonly sameHostShare: number;
  /** Link depth of each page from the nearest seed (−1 unreachable). */
  readonly depth: Int32Array;
  /** The smallest depth within which at least a tenth of the T pages lie: "near the seeds". */
  readonly nearDepth: number;
  /** Share of T pages within `nearDepth` links of a seed. */
  readonly nearShare: number;
  /** Share of the T pages on the host that holds the most of them. */
  readonly largestHostShare: number;
  /** That host. */
  readonly largestHost: number;
  /** Mean depth of the T pages. */
  readonly meanDepth: number;
  readonly isReached: Uint8Array;
}

/** Breadth-first link depth from `seeds` over followed links. */
function depths(graph: SimGraph, seeds: ArrayLike<number>): Int32Array {
  const { offsets, targets } = graph.csr;
  const depth = new Int32Array(graph.pageCount).fill(-1);
  const queue = new Uint32Array(graph.pageCount);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < seeds.length; i++) {
    const s = seeds[i] as number;
    if (depth[s] !== -1) continue;
    depth[s] = 0;
    queue[tail++] = s;
  }
  while (head < tail) {
    const u = queue[head++] as number;
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      if (graph.edgeNofollow?.[e] === 1) continue;
      const v = targets[e] as number;
      if (depth[v] !== -1) continue;
      depth[v] = (depth[u] as number) + 1;
      queue[tail++] = v;
    }
  }
  return depth;
}

/** The facts of `graph` crawled from `seeds`. */
export function graphFacts(graph: SimGraph, seeds: Uint32Array): GraphFacts {
  const isReached = reachablePages(graph, seeds);
  const depth = depths(graph, seeds);
  const { offsets, targets } = graph.csr;
  let pages = 0;
  let links = 0;
  let sameHost = 0;
  let depthSum = 0;
  const hosts = new Map<number, number>();
  const atDepth: number[] = [];
  for (let p = 0; p < graph.pageCount; p++) {
    if (isReached[p] !== 1) continue;
    pages++;
    const h = graph.pageHost[p] as number;
    hosts.set(h, (hosts.get(h) ?? 0) + 1);
    const d = depth[p] as number;
    depthSum += d;
    atDepth[d] = (atDepth[d] ?? 0) + 1;
    for (let e = offsets[p] as number; e < (offsets[p + 1] as number); e++) {
      const t = targets[e] as number;
      if (graph.edgeNofollow?.[e] === 1 || t === p) continue;
      links++;
      if (graph.pageHost[t] === graph.pageHost[p]) sameHost++;
    }
  }
  let nearDepth = 0;
  let near = atDepth[0] ?? 0;
  while (near < pages / 10) near += atDepth[++nearDepth] ?? 0;
  let largestHost = 0;
  let largest = 0;
  for (const [h, n] of hosts) {
    if (n > largest) {
      largest = n;
      largestHost = h;
    }
  }
  return {
    pages,
    links,
    hosts: hosts.size,
    sameHostShare: sameHost / Math.max(1, links),
    depth,
    nearDepth,
    nearShare: near / pages,
    meanDepth: depthSum / pages,
    largestHostShare: largest / pages,
    largestHost,
    isReached,
  };
}

/** Where the hot pages of one definition sit. */
export interface HotFacts {
  readonly hotPages: number;
  /** Share of hot pages within the graph's `nearDepth` links of a seed. */
  readonly nearShare: number;
  /** Hosts holding hot pages. */
  readonly hosts: number;
  readonly meanDepth: number;
  /** Share of the hot pages' in-links (distinct sources) that come from their own host. */
  readonly sameHostInShare: number;
  /** Share of the hot pages on the graph's largest host. */
  readonly largestHostShare: number;
}

/** Facts of the hot pages `isHot` of a graph. */
export function hotFacts(graph: SimGraph, facts: GraphFacts, isHot: (page: number) => boolean): HotFacts {
  const { offsets, targets } = graph.csr;
  let hot = 0;
  let near = 0;
  let depthSum = 0;
  const hosts = new Set<number>();
  let onLargest = 0;
  for (let p = 0; p < graph.pageCount; p++) {
    if (facts.isReached[p] !== 1 || !isHot(p)) continue;
    hot++;
    hosts.add(graph.pageHost[p] as number);
    if (graph.pageHost[p] === facts.largestHost) onLargest++;
    const d = facts.depth[p] as number;
    depthSum += d;
    if (d <= facts.nearDepth) near++;
  }
  let inLinks = 0;
  let sameHost = 0;
  const lastSource = new Int32Array(graph.pageCount).fill(-1);
  for (let u = 0; u < graph.pageCount; u++) {
    if (facts.isReached[u] !== 1) continue;
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      const v = targets[e] as number;
      if (v === u || lastSource[v] === u || !isHot(v)) continue;
      lastSource[v] = u;
      inLinks++;
      if (graph.pageHost[u] === graph.pageHost[v]) sameHost++;
    }
  }
  return {
    hotPages: hot,
    nearShare: near / Math.max(1, hot),
    hosts: hosts.size,
    meanDepth: depthSum / Math.max(1, hot),
    sameHostInShare: sameHost / Math.max(1, inLinks),
    largestHostShare: onLargest / Math.max(1, hot),
  };
}

/** How the topic's hot pages relate to each other and to what the hot queue can see. */
export interface TopicFacts {
  /** Share of the followed links out of hot pages that lead to hot pages. */
  readonly hotToHotShare: number;
  /** Share of the followed links out of other pages that lead to hot pages. */
  readonly coldToHotShare: number;
  /** Share of hot pages that some link's anchor, or the page's URL, names the word (the plain hot queue's cue). */
  readonly namedShare: number;
  /** Share of hot pages within 2 links of another hot page (what the modified hot queue can use). */
  readonly nearHotShare: number;
}

/** Topic facts for `word` and its hot pages. */
export function topicFacts(graph: SimGraph, facts: GraphFacts, word: string, isHot: (page: number) => boolean): TopicFacts {
  const { offsets, targets } = graph.csr;
  let hotOut = 0;
  let hotOutHot = 0;
  let coldOut = 0;
  let coldOutHot = 0;
  const isNamed = new Uint8Array(graph.pageCount);
  const distance = new Uint8Array(graph.pageCount).fill(255);
  for (let u = 0; u < graph.pageCount; u++) {
    if (facts.isReached[u] !== 1) continue;
    const fromHot = isHot(u);
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      if (graph.edgeNofollow?.[e] === 1) continue;
      const v = targets[e] as number;
      const toHot = isHot(v);
      if (fromHot) {
        hotOut++;
        if (toHot) hotOutHot++;
        if (v !== u) distance[v] = Math.min(distance[v] as number, 1);
      } else {
        coldOut++;
        if (toHot) coldOutHot++;
      }
      if (toHot && graph.anchorOf !== null && tokensOf(graph.anchorOf(e)).includes(word)) isNamed[v] = 1;
    }
  }
  // Distance 2: through one page at distance 1.
  for (let u = 0; u < graph.pageCount; u++) {
    if (distance[u] !== 1) continue;
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      const v = targets[e] as number;
      if (graph.edgeNofollow?.[e] !== 1 && (distance[v] as number) > 2) distance[v] = 2;
    }
  }
  let hot = 0;
  let named = 0;
  let nearHot = 0;
  for (let p = 0; p < graph.pageCount; p++) {
    if (facts.isReached[p] !== 1 || !isHot(p)) continue;
    hot++;
    if (isNamed[p] === 1 || urlText(graph.urlOf(p)).includes(word)) named++;
    if ((distance[p] as number) <= 2) nearHot++;
  }
  return {
    hotToHotShare: hotOutHot / Math.max(1, hotOut),
    coldToHotShare: coldOutHot / Math.max(1, coldOut),
    namedShare: named / Math.max(1, hot),
    nearHotShare: nearHot / Math.max(1, hot),
  };
}

/** A candidate topic word and how often it occurs. */
export interface WordCount {
  readonly word: string;
  /** T pages whose title or text holds the word. */
  readonly present: number;
  /** T pages on the topic: the word in the title, or at least `bodyMin` times in the text (IS = 1). */
  readonly onTopic: number;
}

/** The rule of {@link chooseTopic}. */
export interface TopicRule {
  readonly preferred: string;
  /** Presence share window [min, max] of T. */
  readonly minPresentShare: number;
  readonly maxPresentShare: number;
  /** Fewest pages on the topic: at least this many, and at least this share of T. */
  readonly minOnTopic: number;
  readonly minOnTopicShare: number;
  readonly bodyMin: number;
}

/**
 * The topic word among `candidates`: eligible when the share of T pages that contain it is within the
 * rule's window and enough pages are on the topic; the preferred word when eligible, else the eligible word with the most pages on the
 * topic (ties: alphabetical). Returns the choice and every eligible word, most on-topic pages first.
 * @throws Error when no candidate is eligible.
 */
export function chooseTopic(
  graph: SimGraph,
  facts: GraphFacts,
  candidates: readonly string[],
  rule: TopicRule,
): { readonly chosen: WordCount; readonly eligible: readonly WordCount[] } {
  const words = [...new Set(candidates.map((w) => w.toLowerCase()))];
  const present = new Uint32Array(words.length);
  const onTopic = new Uint32Array(words.length);
  const contentOf = graph.contentOf;
  if (contentOf === null) throw new Error('the graph has no page text to choose a topic word from');
  for (let p = 0; p < graph.pageCount; p++) {
    if (facts.isReached[p] !== 1) continue;
    const c = contentOf(p);
    const inTitle = countTermsIn(c.title ?? '', words);
    const inText = countTermsIn(c.text ?? '', words);
    for (let i = 0; i < words.length; i++) {
      const t = inTitle[i] as number;
      const b = inText[i] as number;
      if (t > 0 || b > 0) present[i] = (present[i] as number) + 1;
      if (t > 0 || b >= rule.bodyMin) onTopic[i] = (onTopic[i] as number) + 1;
    }
  }
  const all = words.map((word, i): WordCount => ({ word, present: present[i] as number, onTopic: onTopic[i] as number }));
  const eligible = all
    .filter(
      (w) =>
        w.present >= rule.minPresentShare * facts.pages &&
        w.present <= rule.maxPresentShare * facts.pages &&
        w.onTopic >= Math.max(rule.minOnTopic, rule.minOnTopicShare * facts.pages),
    )
    .sort((a, b) => b.onTopic - a.onTopic || (a.word < b.word ? -1 : 1));
  const chosen = eligible.find((w) => w.word === rule.preferred) ?? eligible[0];
  if (chosen === undefined)
    throw new Error(
      `no candidate topic word is present in ${rule.minPresentShare * 100}–${rule.maxPresentShare * 100} % of the pages with enough pages on the topic`,
    );
  return { chosen, eligible };
}
