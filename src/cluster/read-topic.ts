/**
 * The topic metrics of a crawl directory (`shoal eval`, the end of a topic crawl, `experiment:x4`):
 * every node's stored pages with their categories (`pages.jsonl`), the union of the nodes' link
 * graphs (as `read-crawl.ts` reads them) in one id space, and, with a test web's ground truth, the true labels and PageRank.
 *
 * - topic locality over the union's linked pairs, categories as the crawl gave them (and the true
 *   locality of the same pairs with a truth);
 * - classifier accuracy against the truth (a page's category vs its true topic);
 * - Kendall τ-b of each node's subcollection (the pages it stored): PageRank on the subcollection's
 *   links vs global PageRank (the truth's, else PageRank of the union graph), and the same for the
 *   same pages dealt to as many groups by a hash of their content (X4's comparison; the payload
 *   digest, or the URL for a page without one).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { classifierAccuracy, type ClassifierAccuracy } from '../eval/classifier-accuracy.js';
import { csrFromEdges } from '../eval/csr.js';
import { pageRank } from '../eval/pagerank.js';
import { hashGroups, meanTau, subcollectionTaus, topicLocality, type TopicEval } from '../eval/topic-metrics.js';
import { nodeDirsOf } from '../store/crawl-dir.js';
import { PAGE_METADATA_FILE, readPageMetadata } from '../store/page-metadata.js';
import type { Truth } from '../web/truth/read.js';
import { evalKeyOf, readCrawlForEval, truthPageOfKey, type CrawlForEval } from './read-crawl.js';

export type { TopicEval } from '../eval/topic-metrics.js';

/**
 * Reads `dir` (one node or a collaborative crawl) and computes its topic metrics; `crawl` is the
 * same directory as {@link readCrawlForEval} read it with the same truth (read here when not given),
 * whose link graphs are used rather than read again.
 */
export async function readTopicEval(dir: string, truth: Truth | null = null, crawl?: CrawlForEval): Promise<TopicEval> {
  const read = crawl ?? (await readCrawlForEval(dir, truth));
  const keyOf = evalKeyOf(truth);
  const ids = new Map<string, number>();
  const idOf = (url: string): number => {
    let id = ids.get(url);
    if (id === undefined) {
      id = ids.size;
      ids.set(url, id);
    }
    return id;
  };
  const categoryOfId = new Map<number, string | null>();
  const digestOfId = new Map<number, string>();
  const groups = new Map<string, number[]>();
  const perCategory: Record<string, number> = {};
  let categorised = 0;
  let uncategorised = 0;
  const from: number[] = [];
  const to: number[] = [];
  for (const [nodeId, nodeDir] of nodeDirsOf(dir).nodes) {
    const pages: number[] = [];
    const metadata = join(nodeDir, PAGE_METADATA_FILE);
    if (existsSync(metadata)) {
      for await (const p of readPageMetadata(metadata)) {
        const id = idOf(keyOf(p.url));
        pages.push(id);
        if (!categoryOfId.has(id) || categoryOfId.get(id) === null) categoryOfId.set(id, p.category);
        if (p.payloadDigest !== null) digestOfId.set(id, p.payloadDigest);
        if (p.category === null) uncategorised++;
        else {
          categorised++;
          perCategory[p.category] = (perCategory[p.category] ?? 0) + 1;
        }
      }
    }
    groups.set(nodeId ?? 'shoal', pages);
  }
  for (const graph of read.links) {
    for (let i = 0; i < graph.from.length; i++) {
      from.push(idOf(graph.urls[graph.from[i] as number] as string));
      to.push(idOf(graph.urls[graph.to[i] as number] as string));
    }
  }
  const keys = [...ids.keys()];
  const truthPage = truth === null ? null : Int32Array.from(keys, truthPageOfKey);
  const trueCategoryOf =
    truth === null
      ? undefined
      : (id: number): string | null => {
          const p = (truthPage as Int32Array)[id] as number;
          return p < 0 ? null : (truth.manifest.categories[truth.topic[p] as number] ?? null);
        };
  const links = { from, to };
  const locality = topicLocality(links, (id) => categoryOfId.get(id) ?? null, trueCategoryOf);

  let accuracy: ClassifierAccuracy | null = null;
  if (trueCategoryOf !== undefined) {
    const truthLabels: string[] = [];
    const predicted: (string | null)[] = [];
    for (const [id, category] of categoryOfId) {
      const t = trueCategoryOf(id);
      if (t === null) continue;
      truthLabels.push(t);
      predicted.push(category);
    }
    accuracy = classifierAccuracy(truthLabels, predicted, truth?.manifest.categories ?? []);
  }

  let globalRank: (id: number) => number;
  if (truth !== null && truthPage !== null) {
    globalRank = (id) => {
      const p = truthPage[id] as number;
      return p < 0 ? 0 : (truth.pagerank[p] as number);
    };
  } else {
    const ranks = ids.size === 0 ? new Float64Array(0) : pageRank(csrFromEdges(ids.size, Uint32Array.from(from), Uint32Array.from(to)));
    globalRank = (id) => ranks[id] as number;
  }
  const taus = subcollectionTaus(groups, links, globalRank);
  const stored = [...new Set([...groups.values()].flat())];
  const hashTaus = subcollectionTaus(
    hashGroups(stored, Math.max(1, groups.size), (id) => digestOfId.get(id) ?? (keys[id] as string)),
    links,
    globalRank,
  );
  return {
    categorised,
    uncategorised,
    perCategory,
    locality,
    accuracy,
    taus,
    meanTau: meanTau(taus),
    hashTaus,
    meanHashTau: meanTau(hashTaus),
  };
}
