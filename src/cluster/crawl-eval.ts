/**
 * Every metric `shoal eval` gives for crawl directories, in one object, so that `shoal eval` and
 * `shoal report` show the same numbers from the same code: the collaboration metrics of SPEC §5
 * over the directories' nodes; with one directory whose pages have categories, the topic metrics;
 * for a `geo` crawl with a truth, the geographic ones; with one directory and a truth that has
 * communities, the community scores.
 */
import type { CollaborationMetrics } from '../eval/collab-metrics.js';
import { collaborationMetrics } from '../eval/collab-metrics.js';
import type { CommunityEval } from '../eval/community-metrics.js';
import type { GeoMetrics } from '../eval/geo-metrics.js';
import type { TopicEval } from '../eval/topic-metrics.js';
import type { PartitionerSpec } from '../partition/partitioner.js';
import type { Truth } from '../web/truth/read.js';
import { readCommunityEval } from './read-community.js';
import { readCrawlForEval, type CrawlForEval } from './read-crawl.js';
import { geoTargetsOfSpec, readGeoEval } from './read-geo.js';
import { readTopicEval } from './read-topic.js';

/** What {@link evaluateCrawl} gives. */
export interface CrawlEvaluation {
  /** Each directory as `readCrawlForEval` read it, with the truth. */
  readonly crawls: readonly CrawlForEval[];
  /** The strategy of a collaborative crawl read from one directory; null otherwise. */
  readonly partitioner: PartitionerSpec | null;
  /** The first directory's partitions (`cluster.json`), else the number of directories. */
  readonly partitionCount: number;
  readonly metrics: CollaborationMetrics;
  /** One directory whose pages have categories: its topic metrics; null otherwise. */
  readonly topic: TopicEval | null;
  /** A `geo` crawl with a truth: its geographic metrics; null otherwise. */
  readonly geo: GeoMetrics | null;
  /** A `geo` crawl read without a truth, whose geographic metrics therefore are missing. */
  readonly isGeoWithoutTruth: boolean;
  /** One directory and a truth with communities: each node's scores; null otherwise. */
  readonly community: CommunityEval | null;
}

/**
 * Reads and measures `dirs` (a crawl directory, or the directories of the nodes of a distributed
 * crawl). `crawls`, when given, are the directories as `readCrawlForEval(dir, truth)` already read them.
 * @throws ShoalError `IO` for a directory that is no crawl directory or a damaged file.
 */
export async function evaluateCrawl(
  dirs: readonly string[],
  truth: Truth | null,
  crawls?: readonly CrawlForEval[],
): Promise<CrawlEvaluation> {
  const read: CrawlForEval[] = [];
  for (const [i, dir] of dirs.entries()) read.push(crawls?.[i] ?? (await readCrawlForEval(dir, truth)));
  const first = read[0];
  const target = first?.target ?? null;
  const metrics = collaborationMetrics({
    nodes: read.flatMap((c) => c.nodes),
    links: read.flatMap((c) => c.links),
    ...(target === null ? {} : { target }),
  });
  const partitioner = read.length === 1 ? (first?.manifest?.partitioner ?? null) : null;
  const only = dirs.length === 1 ? (dirs[0] as string) : null;
  const topic = only === null ? null : await readTopicEval(only, truth, first);
  const geoTargets = partitioner === null ? null : geoTargetsOfSpec(partitioner, first?.manifest?.partitionCount ?? 0);
  const geo = geoTargets === null || truth === null ? null : await readGeoEval(dirs[0] as string, truth, { ...geoTargets, crawl: first });
  const community = truth === null || only === null ? null : await readCommunityEval(only, truth, first);
  return {
    crawls: read,
    partitioner,
    partitionCount: first?.manifest?.partitionCount ?? dirs.length,
    metrics,
    topic: topic !== null && topic.categorised > 0 ? topic : null,
    geo,
    isGeoWithoutTruth: geoTargets !== null && truth === null,
    community,
  };
}
