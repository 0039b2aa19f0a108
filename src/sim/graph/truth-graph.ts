/**
 * A test web's ground-truth export (`shoal web export`, `src/web/truth/`) as a simulator graph: the
 * deduplicated page graph, the pages' hosts, URLs, addresses and robots.txt Crawl-delays, the seeds
 * a crawl of that web starts from, and the true labels and PageRank for the evaluation.
 *
 * A link is not followed (`edgeNofollow`) when every occurrence of it is rel=nofollow, or when its
 * page says meta robots nofollow: what a real crawl of the web does (`node/stages/page-processor.ts`).
 * Pages that serve content are shown to the ordering policy and their links followed; a redirect's
 * target is followed like a link (the export's redirect edge); error pages end there, as in a crawl
 * (`web/model.ts` `servesContent`). What a real crawl also meets and the simulator does not model:
 * robots.txt rules, transient errors and retries, and traps (not in the export). A page linking twice
 * to one target has one edge, at its first followed occurrence; with the content rebuilt, a policy
 * that reads anchors, URLs or text is shown every occurrence with its anchor (`linksOf`), as a crawl
 * shows it.
 */
import { NOFOLLOW_BIT } from '../../web/truth/format.js';
import { readTruth, type Truth } from '../../web/truth/read.js';
import { truthContent } from './truth-content.js';
import { SimGraphFormat, SimPageKind, type PageContent, type PageLinks, type SimGraph } from './sim-graph.js';

/** Options of {@link loadTruthGraph}. */
export interface TruthGraphOptions {
  /**
   * Rebuild the web from the export's configuration for page titles, text and anchor texts
   * (`truth-content.ts`), which the export does not hold. Default false.
   */
  readonly rebuildContent?: boolean;
}

/**
 * Reads the ground truth in `dir`.
 * @throws ShoalError `TRUTH_FORMAT` when it is incomplete, of another version, or damaged.
 */
export async function loadTruthGraph(dir: string, options: TruthGraphOptions = {}): Promise<SimGraph> {
  const truth = await readTruth(dir);
  return truthGraphOf(truth, dir, options.rebuildContent === true ? truthContent(truth) : {});
}

/** Providers of what the export does not hold. */
export interface TruthProviders {
  readonly contentOf?: (page: number) => PageContent;
  readonly anchorOf?: (edge: number) => string;
  readonly linksOf?: (page: number) => PageLinks;
}

/** The simulator's view of a truth already read. */
export function truthGraphOf(truth: Truth, source: string, options: TruthProviders = {}): SimGraph {
  const m = truth.manifest;
  const n = truth.pageCount;
  const port = m.port;
  const portText = port === null || port === 80 ? '' : `:${port}`;
  const hostNames = truth.hosts.map((h) => `${h.name}${portText}`);
  const crawlDelayMs = Float64Array.from(truth.hosts, (h) => (h.crawlDelaySeconds === null ? 0 : h.crawlDelaySeconds * 1000));

  const { offsets } = truth.graph;
  const nofollowPage = m.pageFlags['nofollow'] ?? 0;
  const edgeNofollow = new Uint8Array(truth.linkKinds.length);
  for (let p = 0; p < n; p++) {
    const isPageNofollow = nofollowPage !== 0 && ((truth.flags[p] as number) & nofollowPage) !== 0;
    const end = offsets[p + 1] as number;
    for (let e = offsets[p] as number; e < end; e++) {
      if (isPageNofollow || ((truth.linkKinds[e] as number) & NOFOLLOW_BIT) !== 0) edgeNofollow[e] = 1;
    }
  }

  // A mirror serves its original's bytes; a near-duplicate is edited, so its digest differs.
  const nearDuplicate = m.pageKinds.indexOf('nearDuplicate');
  const sameContentAs = Int32Array.from(truth.dupOf, (d, p) => (truth.kind[p] === nearDuplicate ? -1 : d));

  // What a crawl gets from each page: content (observed, links followed), a redirect, or nothing.
  const redirectKind = m.pageKinds.indexOf('redirect');
  const contentKinds = new Set(['ok', 'unavailable', 'reset', 'oversized', 'nearDuplicate'].map((k) => m.pageKinds.indexOf(k)));
  const pageKinds = Uint8Array.from(truth.kind, (k) =>
    contentKinds.has(k) ? SimPageKind.page : k === redirectKind ? SimPageKind.redirect : SimPageKind.noContent,
  );

  const urlOf = (page: number): string => `http://${hostNames[truth.pageHost[page] as number] as string}${truth.paths.at(page)}`;
  return {
    format: SimGraphFormat.truth,
    source,
    pageCount: n,
    linkCount: truth.graph.targets.length,
    csr: truth.graph,
    pageHost: truth.pageHost,
    hosts: {
      count: hostNames.length,
      nameOf: (h) => hostNames[h] as string,
      ips: truth.hosts.map((h) => h.ip),
      crawlDelayMs,
      measuredLatencyMs: null,
    },
    edgeNofollow,
    pageKinds,
    seeds: Uint32Array.from(m.seeds),
    hasUrls: true,
    urlOf,
    nameOf: urlOf,
    pageIdOf: (name) => (/^\d+$/.test(name) ? (Number(name) < n ? Number(name) : -1) : truth.pageIdOf(name)),
    anchorOf: options.anchorOf ?? null,
    contentOf: options.contentOf ?? null,
    linksOf: options.linksOf ?? null,
    pageBytes: null,
    labels: {
      categories: m.categories,
      topic: truth.topic,
      languages: m.languages,
      lang: truth.lang,
      sameContentAs,
      pagerank: truth.pagerank,
      community: truth.community.some((c) => c >= 0) ? truth.community : null,
    },
    close: () => {},
  };
}
