/**
 * The models partitioning strategies read, built from files named in the configuration (the
 * strategies themselves do no I/O): the true topic labels of a test web's ground-truth export
 * (`cluster.truthDir`), which `truth-topic` places pages by, and the labels and digest of the crawl's
 * topic model (`cluster.model`, the shipped one when null), which `topic` places pages by.
 */
import type { CrawlConfig } from '../config/crawl-config.js';
import { readFileSync } from 'node:fs';
import type { GeoModel, PartitionModels } from '../partition/registry.js';
import type { Classifier } from '../classify/classifier.js';
import { ConfigError } from '../core/errors.js';
import { Gazetteer, GazetteerError, parseTargetList } from '../geo/gazetteer.js';
import { createGeoStrategy, GeoParamError, type GeoPartId } from '../geo/geo-strategies.js';
import type { IpLocator } from '../geo/ip-locator.js';
import { ipLocatorOf } from '../geo/ip-locators.js';
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

/** The models the configuration names: the truth's labels when `cluster.truthDir` is set, the classifier's for `topic`, geo's for `geo`. */
export async function partitionModelsOf(config: CrawlConfig): Promise<PartitionModels> {
  const dir = config.cluster.truthDir;
  const classifier = config.cluster.partition.strategy === 'topic' ? classifierModelOf(config) : undefined;
  const geo = config.cluster.partition.strategy === 'geo' ? geoModelOf(config.cluster.geo) : undefined;
  return {
    ...(dir === null ? {} : { topics: topicModelOf(await readTruth(dir)) }),
    ...(classifier === undefined ? {} : { classifier }),
    ...(geo === undefined ? {} : { geo }),
  };
}

/** The gazetteer of `cluster.geo.targets` (the 100 most populous US cities when null); a ConfigError at that option. */
export function gazetteerOf(targets: string | null): Gazetteer {
  if (targets === null) return Gazetteer.usTop();
  let text: string;
  try {
    text = readFileSync(targets, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: 'cluster.geo.targets', message: `cannot read ${targets}: ${(err as Error).message}` }], { cause: err });
  }
  try {
    return new Gazetteer(parseTargetList(text, targets));
  } catch (err) {
    if (err instanceof GazetteerError) throw new ConfigError([{ path: 'cluster.geo.targets', message: err.message }], { cause: err });
    throw err;
  }
}

/** What a `geo` crawl places by, from `cluster.geo`: its files read, its strategy built. */
export function geoModelOf(geo: CrawlConfig['cluster']['geo']): GeoModel {
  const gazetteer = gazetteerOf(geo.targets);
  const uses = (part: GeoPartId): boolean => geo.strategy === part || (geo.strategy === 'combined' && geo.combine.includes(part));
  const classifier = uses('classifier') && geo.model !== null ? loadCityModel(geo.model) : undefined;
  const locator = uses('ip') && geo.ipDatabase !== null ? ipDatabaseOf(geo.ipDatabase) : undefined;
  try {
    const strategy = createGeoStrategy(geo.strategy, {
      gazetteer,
      alpha: geo.alpha,
      beta: geo.beta,
      combine: geo.combine,
      minProbability: geo.minProbability,
      ...(classifier === undefined ? {} : { classifier }),
      ...(locator === undefined ? {} : { locator }),
    });
    return { gazetteer, strategy, policy: geo.policy, groups: geo.groups };
  } catch (err) {
    if (err instanceof GeoParamError) throw new ConfigError([{ path: 'cluster.geo.strategy', message: err.message }], { cause: err });
    throw err;
  }
}

function loadCityModel(path: string): Classifier {
  try {
    return loadTopicModel(path).classifier;
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError([{ path: 'cluster.geo.model', message: err.message }], { cause: err });
    throw err;
  }
}

function ipDatabaseOf(path: string): IpLocator {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new ConfigError([{ path: 'cluster.geo.ipDatabase', message: `cannot read ${path}: ${(err as Error).message}` }], { cause: err });
  }
  try {
    return ipLocatorOf(path, bytes);
  } catch (err) {
    throw new ConfigError([{ path: 'cluster.geo.ipDatabase', message: (err as Error).message }], { cause: err });
  }
}
