/**
 * The models partitioning strategies read, built from files named in the configuration (the
 * strategies themselves do no I/O): for now the true topic labels of a test web's ground-truth
 * export (`cluster.truthDir`), which `truth-topic` places pages by.
 */
import type { CrawlConfig } from '../config/crawl-config.js';
import type { PartitionModels } from '../partition/registry.js';
import type { TopicModel } from '../partition/topic/truth-topic.js';
import { readTruth, type Truth } from '../web/truth/read.js';

/** The true topic of each page of a truth export. */
export function topicModelOf(truth: Truth): TopicModel {
  const categories = truth.manifest.categories;
  return {
    categories,
    topicOf: (url) => {
      const page = truth.pageIdOf(url);
      return page < 0 ? null : (categories[truth.topic[page] as number] ?? null);
    },
  };
}

/** The models the configuration names (none when `cluster.truthDir` is null). */
export async function partitionModelsOf(config: CrawlConfig): Promise<PartitionModels> {
  const dir = config.cluster.truthDir;
  if (dir === null) return {};
  return { topics: topicModelOf(await readTruth(dir)) };
}
