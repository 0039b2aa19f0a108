/**
 * The partitioning strategies by configuration id (CONVENTIONS §3): one zod discriminated union on
 * `strategy` validates the `partition` section, each member with its own parameters and defaults,
 * and a static map turns a validated member into its {@link Partitioner}. An unknown id fails with
 * the list of valid ids; nothing falls back silently.
 *
 * The section is flat: `partition: { strategy: consistent-hash, key: domain }`. Errors are reported
 * at `partition.<option>` paths.
 */
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { ConsistentHashPartitioner, DEFAULT_VIRTUAL_NODES, MAX_VIRTUAL_NODES } from './hash/consistent-hash.js';
import { ContentHashPartitioner, ContentHashUrls } from './hash/content-hash.js';
import { DomainHashPartitioner } from './hash/domain-hash.js';
import { HashKey } from './hash/hash-key.js';
import { HostHashPartitioner } from './hash/host-hash.js';
import { IpHashPartitioner } from './hash/ip-hash.js';
import { UrlHashPartitioner } from './hash/url-hash.js';
import { checkPartitionCount, PartitionParamError } from './partition-params.js';
import { canPlacePages, type Partitioner } from './partitioner.js';
import { TopicPartitioner } from './topic/topic.js';
import { TruthTopicPartitioner, type TopicModel } from './topic/truth-topic.js';
import { GeoPartitioner, type GeoPolicy } from './geo/geo.js';
import { CommunityPartitioner, DEFAULT_COMMUNITY_K, DEFAULT_TRACKED_URLS, readsCitations } from './community/community.js';
import type { Gazetteer } from '../geo/gazetteer.js';
import type { GeoStrategy } from '../geo/geo-strategy.js';

export type { TopicModel };

/** Every strategy id, in the order the documentation lists them. */
export const PARTITIONER_IDS = [
  'url-hash',
  'host-hash',
  'domain-hash',
  'ip-hash',
  'consistent-hash',
  'content-hash',
  'topic',
  'truth-topic',
  'geo',
  'community',
] as const;
/** A strategy id. */
export type PartitionerId = (typeof PARTITIONER_IDS)[number];

const id = <K extends PartitionerId>(value: K, doc: string) => z.literal(value).describe(`partitioning strategy: ${doc}`);

const memberSchemas = [
  z.strictObject({ strategy: id('url-hash', 'h(normalized URL); no overlap, p_l = 1/n') }),
  z.strictObject({ strategy: id('host-hash', 'h(host name); politeness and same-host links stay local') }),
  z.strictObject({ strategy: id('domain-hash', 'h(registrable domain); every host of a domain on one node') }),
  z.strictObject({ strategy: id('ip-hash', 'h(resolved address), the host name while unknown; the node resolves before placing') }),
  z.strictObject({
    strategy: id('consistent-hash', 'a ring with virtual nodes: a node joining or leaving moves ~1/n of the keys'),
    key: z
      .enum(HashKey)
      .default(HashKey.host)
      .describe('what is hashed onto the ring: host name, registrable domain, normalized URL, or address (host name while unknown)'),
    virtualNodes: z
      .number()
      .int()
      .min(1)
      .max(MAX_VIRTUAL_NODES)
      .meta({ unit: 'points' })
      .default(DEFAULT_VIRTUAL_NODES)
      .describe('ring points per partition; load deviates from 1/n by about 1/sqrt(virtualNodes)'),
  }),
  z.strictObject({
    strategy: id('content-hash', 'pages to h(content digest), which runs duplicate detection; exported share (n-1)/n'),
    urls: z
      .enum(ContentHashUrls)
      .default(ContentHashUrls.urlHash)
      .describe('how URLs are placed before fetch, when the content is not known yet'),
  }),
  z.strictObject({
    strategy: id('topic', 'pages to the node of the category a trained classifier gives them (cluster.model); URLs stay where found'),
    assignment: z
      .record(z.string().min(1), z.number().int().min(0).meta({ unit: 'partition' }))
      .nullable()
      .default(null)
      .describe(
        'category -> partition, naming every category the pipeline can give (the model’s, then WORLD and the other topic.* categories); null = round-robin in that order',
      ),
    defaultCategory: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'category whose partition takes pages left without a category (unclassifiable with topic.unclassifiableCategory null); null = they stay on the node that fetched them',
      ),
  }),
  z.strictObject({
    strategy: id('truth-topic', 'pages to the node of their TRUE topic label (ideal classifier, test web only); URLs stay where found'),
    assignment: z
      .record(z.string().min(1), z.number().int().min(0).meta({ unit: 'partition' }))
      .nullable()
      .default(null)
      .describe(
        'category -> partition, naming every category; null = categories dealt round-robin to partitions 0..n-1 in the model order',
      ),
    defaultCategory: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('category whose partition takes pages of unknown topic; null = they stay on the node that fetched them'),
  }),
  z.strictObject({
    strategy: id(
      'geo',
      'geo-sensitive nodes own groups of target cities, general nodes the rest; links go by pr(city | link or page) (cluster.geo)',
    ),
  }),
  z.strictObject({
    strategy: id(
      'community',
      'each node a community crawler: a link goes to the node whose pages cite its URL most (link summaries); seeds by host hash',
    ),
    k: z
      .number()
      .int()
      .min(1)
      .meta({ unit: 'links' })
      .default(DEFAULT_COMMUNITY_K)
      .describe('the k of m_k: links from one node’s pages counted per URL at most'),
    trackedUrls: z
      .number()
      .int()
      .min(1)
      .max(1 << 24)
      .meta({ unit: 'urls' })
      .default(DEFAULT_TRACKED_URLS)
      .describe('URLs whose link counts a node keeps (the oldest forgotten first); about partitions × 4 bytes each plus the URL'),
  }),
] as const;

/** The `partition` section: a strategy id and its parameters, defaults filled in. */
export const partitionStrategySchema = z
  .discriminatedUnion('strategy', memberSchemas, {
    error: (issue) => (issue.code === 'invalid_union' && issue.path?.at(-1) === 'strategy' ? unknownStrategy(issue.input) : undefined),
  })
  .describe('how the nodes split the Web (SPEC §4)');

/** The message for a missing or unknown id: what was given and every valid id. */
function unknownStrategy(section: unknown): string {
  const given = (section as { strategy?: unknown } | null | undefined)?.strategy;
  const what = given === undefined ? 'no partition strategy given' : `unknown partition strategy ${JSON.stringify(given)}`;
  return `${what}; valid: ${PARTITIONER_IDS.join(', ')}`;
}

/** A validated partition section. */
export type PartitionStrategyConfig = z.output<typeof partitionStrategySchema>;
/** A partition section as written: any parameter may be left out. */
export type PartitionStrategyInput = z.input<typeof partitionStrategySchema>;

/** What strategies may read besides their parameters; each is built by the caller (no I/O here). */
export interface PartitionModels {
  /** True topic labels (`truth-topic`). */
  readonly topics?: TopicModel;
  /** The categories the crawl's topic pipeline gives, and its model's digest (`topic`). */
  readonly classifier?: { readonly labels: readonly string[]; readonly digest: string };
  /** The gazetteer, strategy and grouping of a geographically focused crawl (`geo`, from `cluster.geo`). */
  readonly geo?: GeoModel;
}

/** What `geo` places by. */
export interface GeoModel {
  readonly gazetteer: Gazetteer;
  readonly strategy: GeoStrategy;
  readonly policy: GeoPolicy;
  readonly groups: readonly (readonly string[])[] | null;
}

type ConfigOf<K extends PartitionerId> = Extract<PartitionStrategyConfig, { strategy: K }>;
type Factory<K extends PartitionerId> = (config: ConfigOf<K>, n: number, models: PartitionModels) => Partitioner;

const FACTORIES: { readonly [K in PartitionerId]: Factory<K> } = {
  'url-hash': (_c, n) => new UrlHashPartitioner(n),
  'host-hash': (_c, n) => new HostHashPartitioner(n),
  'domain-hash': (_c, n) => new DomainHashPartitioner(n),
  'ip-hash': (_c, n) => new IpHashPartitioner(n),
  'consistent-hash': (c, n) => new ConsistentHashPartitioner(n, { key: c.key, virtualNodes: c.virtualNodes }),
  'content-hash': (c, n) => new ContentHashPartitioner(n, { urls: c.urls }),
  topic: (c, n, models) => {
    if (models.classifier === undefined) {
      throw new PartitionParamError(
        'strategy',
        'topic places pages by their classified category: it needs the crawl’s topic model (topic.classify on)',
      );
    }
    return new TopicPartitioner(models.classifier.labels, models.classifier.digest, n, {
      assignment: c.assignment,
      defaultCategory: c.defaultCategory,
    });
  },
  'truth-topic': (c, n, models) => {
    if (models.topics === undefined) {
      throw new PartitionParamError(
        'strategy',
        'truth-topic reads true topic labels: it needs a topic model (the test web’s ground truth)',
      );
    }
    return new TruthTopicPartitioner(models.topics, n, { assignment: c.assignment, defaultCategory: c.defaultCategory });
  },
  geo: (_c, n, models) => {
    if (models.geo === undefined)
      throw new PartitionParamError(
        'strategy',
        'geo places links by what pages and anchors say (cluster.geo): a crawl reads them; a stored graph (shoal simulate) has none',
      );
    try {
      return new GeoPartitioner(models.geo.strategy, models.geo.gazetteer, n, { policy: models.geo.policy, groups: models.geo.groups });
    } catch (err) {
      // Geo's parameters are written in cluster.geo, not in the partition section.
      if (err instanceof PartitionParamError && err.param !== 'strategy') {
        throw new ConfigError([{ path: `cluster.geo.${err.param}`, message: err.message.slice(err.param.length + 2) }], { cause: err });
      }
      throw err;
    }
  },
  community: (c, n) => new CommunityPartitioner(n, { k: c.k, trackedUrls: c.trackedUrls }),
};

/**
 * Builds the partitioner a validated section names, for `partitionCount` partitions. Throws a
 * {@link ConfigError} at `partition.strategy` when `truth-topic` has no topic model or the count is
 * not an integer in [1, 65,536], and at `partition.<option>` for a parameter the strategy rejects
 * (an assignment naming unknown categories, say); the config is validated again, so a hand-built
 * object cannot slip past the schema.
 */
export function createPartitioner(config: PartitionStrategyConfig, partitionCount: number, models: PartitionModels = {}): Partitioner {
  const parsed = partitionStrategySchema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => ({ path: ['partition', ...i.path.map(String)].join('.'), message: i.message })));
  }
  try {
    checkPartitionCount(partitionCount);
    const factory = FACTORIES[parsed.data.strategy] as Factory<PartitionerId>;
    return factory(parsed.data as ConfigOf<PartitionerId>, partitionCount, models);
  } catch (err) {
    if (err instanceof PartitionParamError)
      throw new ConfigError([{ path: `partition.${err.param}`, message: err.message }], { cause: err });
    throw err;
  }
}

/** What a node forwards to other partitions: URLs (placeUrl), boundary pages (placePage), or both. */
export type ForwardMode = 'urls' | 'pages' | 'both';

const DEFAULT_FORWARD_MODES: { readonly [K in PartitionerId]: ForwardMode } = {
  'url-hash': 'urls',
  'host-hash': 'urls',
  'domain-hash': 'urls',
  'ip-hash': 'urls',
  'consistent-hash': 'urls',
  'content-hash': 'both',
  topic: 'pages',
  'truth-topic': 'pages',
  geo: 'urls',
  community: 'urls',
};

/**
 * The forward mode a strategy is designed for, the default of `partition.forward`:
 * - hash strategies `urls`: the owner fetches each URL, so pages are already where they belong;
 * - `content-hash` `both`: URLs go to their fetch owner, then each page to the node of its digest,
 *   which keeps it and runs duplicate detection (SPEC §4.1);
 * - `truth-topic` `pages`: URLs stay where found; a boundary page goes to its category's node,
 *   which treats it as its own and queues its links (SPEC §4.2; `urls`, sending only the links of
 *   boundary pages, is the alternative mode);
 * - `geo` `urls`: each link goes to the node of its city or of its page's (seed 003's Policies A and B
 *   place URLs; pages stay where they were fetched).
 * - `community` `urls`: each link goes to the node whose pages cite it most; pages stay where fetched.
 * A strategy unknown to this registry: `pages` when it can place pages, else `urls`.
 */
export function defaultForwardMode(p: Partitioner): ForwardMode {
  const mode = DEFAULT_FORWARD_MODES[p.spec.id as PartitionerId] as ForwardMode | undefined;
  return mode ?? (canPlacePages(p) ? 'pages' : 'urls');
}

/**
 * How often a node sends link summaries when the configuration leaves it to the strategy: every
 * second when placements read them (`community`: a URL found before the other nodes' counts arrive
 * is placed on this node's votes alone), else every 10 s (backlink and PageRank estimates).
 */
export function defaultLinkSummaryIntervalMs(p: Partitioner): number {
  return readsCitations(p) ? 1_000 : 10_000;
}
