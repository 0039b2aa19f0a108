/**
 * The models partitioning strategies read, built from files named in the configuration (the
 * strategies themselves do no I/O): the true topic labels of a test web's ground-truth export
 * (`cluster.truthDir`), which `truth-topic` places pages by, and the labels and digest of the crawl's
 * topic model (`cluster.model`, the shipped one when null), which `topic` places pages by.
 */
import type { CrawlConfig } from '../config/crawl-config.js';
import type { PartitionModels } from '../partition/registry.js';
import type { TopicModel } from '../partition/topic/truth-topic.js';
import { readTruth, type Truth } from '../web/truth/read.js';
import { loadTopicModel } from '../classify/model-loader.js';
import { TopicLabeler } from '../classify/topic-labeler.js';
import { topicSetupOf } from '../node/build-node.js';

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

/** The labels the crawl's topic pipeline gives and its model's digest, or undefined when `topic.classify` is off. */
export function classifierModelOf(config: CrawlConfig): PartitionModels['classifier'] {
  const setup = topicSetupOf(config);
  if (setup === null) return undefined;
  const model = loadTopicModel(setup.modelPath);
  return { labels: new TopicLabeler(model.classifier, setup.labeler).labels, digest: model.digest };
}

/** The models the configuration names: the truth's labels when `cluster.truthDir` is set, the classifier's for `topic`. */
export async function partitionModelsOf(config: CrawlConfig): Promise<PartitionModels> {
  const dir = config.cluster.truthDir;
  const classifier = config.cluster.partition.strategy === 'topic' ? classifierModelOf(config) : undefined;
  return {
    ...(dir === null ? {} : { topics: topicModelOf(await readTruth(dir)) }),
    ...(classifier === undefined ? {} : { classifier }),
  };
}
