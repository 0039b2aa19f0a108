/**
 * The ordering policies by configuration id (CONVENTIONS §3): one zod discriminated union on
 * `policy` validates the `order` section, each member with its own parameters and defaults, and a
 * static map turns a validated member into its {@link OrderingPolicy}. An unknown id fails with the
 * list of valid ids; nothing falls back silently.
 *
 * The section is flat: `order: { policy: pagerank, recomputeEvery: 1000 }`. A weighted combination
 * lists policy sections: `order: { policy: weighted, components: [{ policy: { policy: pagerank },
 * weight: 1 }, { policy: { policy: similarity, query: computer }, weight: 5 }] }`. Errors are
 * reported at `order.<option>` paths (`order.components.1.policy.query` inside a combination).
 */
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { BacklinkPolicy } from './backlink.js';
import { BreadthFirstPolicy } from './bfs.js';
import { ForwardLinksPolicy } from './forward-links.js';
import { DEFAULT_HOT_DISTANCE, HotQueuePolicy, MAX_HOT_DISTANCE } from './hot-queue.js';
import { DEFAULT_KEYWORD_WEIGHTS, DEFAULT_SLASH_WEIGHT, DEFAULT_SUFFIX_WEIGHTS, LocationPolicy } from './location.js';
import { OrderParamError } from './order-params.js';
import {
  DEFAULT_MIN_CHANGE,
  DEFAULT_PAGERANK_DAMPING,
  DEFAULT_PAGERANK_MAX_ITERATIONS,
  DEFAULT_PAGERANK_TOLERANCE,
  DEFAULT_RECOMPUTE_EVERY,
  DEFAULT_RECOMPUTE_GROWTH,
  DEFAULT_SLICE_WORK,
  MAX_RECOMPUTE_GROWTH,
  PageRankPolicy,
} from './pagerank.js';
import type { OrderingPolicy } from './policy.js';
import { DEFAULT_RANDOM_SEED, RandomPolicy } from './random.js';
import { DEFAULT_ANCHOR_WEIGHT, DEFAULT_TITLE_WEIGHT, DEFAULT_URL_WEIGHT, IdfSource, SimilarityPolicy } from './similarity.js';
import { type LinkClassifier, TopicPolicy } from './topic.js';
import { WeightedPolicy } from './weighted.js';
import { CommunityPolicy } from './community.js';
import { DEFAULT_MEMBERSHIP_K } from './community/membership.js';
import { DEFAULT_MAX_NEIGHBOURS } from './community/similarity.js';

/** Every policy id, in the order the documentation lists them. */
export const ORDER_POLICY_IDS = [
  'bfs',
  'random',
  'backlink',
  'pagerank',
  'forward-links',
  'location',
  'similarity',
  'hot-queue',
  'topic',
  'community',
  'weighted',
] as const;
/** A policy id. */
export type OrderPolicyId = (typeof ORDER_POLICY_IDS)[number];

const id = <K extends OrderPolicyId>(value: K, doc: string) => z.literal(value).describe(`ordering policy: ${doc}`);
const weight = (doc: string, fallback: number) => z.number().min(-1e9).max(1e9).default(fallback).describe(doc);
const share = (doc: string, fallback: number) => z.number().min(0).max(1e6).default(fallback).describe(doc);
const weights = (doc: string, fallback: Readonly<Record<string, number>>) =>
  z
    .record(z.string().min(1), z.number().min(-1e9).max(1e9))
    .default({ ...fallback })
    .describe(doc);

/** A zod error function that names what to pass when a required option is missing (and leaves other errors alone). */
function required(message: string): (issue: { readonly input?: unknown }) => string | undefined {
  return (issue) => (issue.input === undefined ? message : undefined);
}

/** The members every section may name, a combination aside. */
const singleSchemas = [
  z.strictObject({ policy: id('bfs', 'breadth-first, URLs in discovery order') }),
  z.strictObject({
    policy: id('random', 'a seeded random draw per URL (the baseline)'),
    seed: z
      .number()
      .int()
      .min(0)
      .max(0xffffffff)
      .default(DEFAULT_RANDOM_SEED)
      .describe('seed of the draws; the same seed and crawl give the same order'),
  }),
  z.strictObject({ policy: id('backlink', "IB′: in-links seen so far (other nodes' counts included)") }),
  z.strictObject({
    policy: id(
      'pagerank',
      'IR′: PageRank of the discovered graph, recomputed each time the fetched pages grew by recomputeGrowth, and no more often than every recomputeEvery fetches',
    ),
    damping: z
      .number()
      .min(0)
      .max(0.999_999)
      .default(DEFAULT_PAGERANK_DAMPING)
      .describe('damping factor d of IR = (1 − d) + d · Σ IR(T)/c(T)'),
    recomputeEvery: z
      .number()
      .int()
      .min(1)
      .meta({ unit: 'fetches' })
      .default(DEFAULT_RECOMPUTE_EVERY)
      .describe('fewest fetched pages between two recomputations; in between, new links add one-step increments'),
    recomputeGrowth: z
      .number()
      .min(0)
      .max(MAX_RECOMPUTE_GROWTH)
      .default(DEFAULT_RECOMPUTE_GROWTH)
      .describe(
        'the next recomputation also waits until the fetched pages grew by this fraction since the ' +
          'last one started (a cost proportional to the graph); 0 = every recomputeEvery fetches',
      ),
    tolerance: z
      .number()
      .min(0)
      .default(DEFAULT_PAGERANK_TOLERANCE)
      .describe('a recomputation stops when Σ|change| / nodes falls below this'),
    maxIterations: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .meta({ unit: 'iterations' })
      .default(DEFAULT_PAGERANK_MAX_ITERATIONS)
      .describe('iteration cap per recomputation (each warm-starts from the last ranks)'),
    sliceWork: z
      .number()
      .int()
      .min(0)
      .meta({ unit: 'links+nodes' })
      .default(DEFAULT_SLICE_WORK)
      .describe('work per fetched page spent on a running recomputation (about 2-4 ns a unit); 0 = the whole recomputation at once'),
    minChange: z
      .number()
      .min(0)
      .max(1)
      .default(DEFAULT_MIN_CHANGE)
      .describe('a queued URL is re-prioritized only when its IR′ moved by more than this fraction; 0 = any change'),
  }),
  z.strictObject({ policy: id('forward-links', 'the largest out-degree among fetched pages linking to the URL (index pages first)') }),
  z.strictObject({
    policy: id('location', 'IL(u): a weighted sum of URL rules (path slashes, host suffixes, keywords)'),
    slashWeight: weight('added per "/" of the path; negative = shallow pages first', DEFAULT_SLASH_WEIGHT),
    suffixWeights: weights('host suffix (whole labels) -> weight added when the host ends with it', DEFAULT_SUFFIX_WEIGHTS),
    keywordWeights: weights(
      'URL substring -> weight added when the URL (after its scheme, lowercased) contains it',
      DEFAULT_KEYWORD_WEIGHTS,
    ),
  }),
  z.strictObject({
    policy: id('similarity', 'IS′(A, Q): TF-IDF cosine of the driving query with anchor text and URL terms'),
    query: z
      .string({ error: required('policy similarity needs its driving query: --set order.query=WORDS (e.g. --set order.query=computer)') })
      .min(1)
      .describe('the driving query Q (required): words of the topic'),
    anchorWeight: share('weight of anchor-text terms', DEFAULT_ANCHOR_WEIGHT),
    urlWeight: share('weight of URL terms', DEFAULT_URL_WEIGHT),
    titleWeight: share('weight of title terms vs text terms when a fetched page is scored', DEFAULT_TITLE_WEIGHT),
    idfSource: z
      .enum(IdfSource)
      .default(IdfSource.crawled)
      .describe('idf estimated from the pages crawled so far, or read from a reference table given as data'),
  }),
  z.strictObject({
    policy: id('hot-queue', 'two queues, hot URLs first: a query term in the anchor or URL, or near a hot page'),
    terms: z
      .array(z.string().min(1), {
        error: required("policy hot-queue needs its terms: --set 'order.terms=[WORD, ...]' (e.g. --set 'order.terms=[computer]')"),
      })
      .min(1)
      .describe('query terms (required), one word each'),
    hotDistance: z
      .number()
      .int()
      .min(0)
      .max(MAX_HOT_DISTANCE)
      .meta({ unit: 'links' })
      .default(DEFAULT_HOT_DISTANCE)
      .describe('URLs within fewer links than this of a hot page are hot; 0 = anchor and URL only (plain hot queue)'),
    titleMin: z
      .number()
      .int()
      .min(1)
      .meta({ unit: 'occurrences' })
      .default(1)
      .describe('a page is hot when a term occurs this often in its title'),
    bodyMin: z.number().int().min(1).meta({ unit: 'occurrences' }).default(10).describe('... or this often in its text'),
  }),
  z.strictObject({
    policy: id(
      'topic',
      "the probability, by the topic model, that a link's anchor, surrounding words and URL are on one of the node's categories (X4: less overlap in a topic crawl)",
    ),
    categories: z
      .array(z.string().min(1))
      .default([])
      .describe("the categories to favour; [] = the categories of the node's partitions in a topic-partitioned crawl (required otherwise)"),
  }),
  z.strictObject({
    policy: id('community', 'membership in the community of the pages fetched so far (seed 002): m_k from links, co-citation and coupling'),
    rank: z
      .enum(['candidate', 'citing'])
      .default('candidate')
      .describe("candidate: a URL's own membership from its citers; citing: the best citing page's (the paper's)"),
    k: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .meta({ unit: 'pages' })
      .default(DEFAULT_MEMBERSHIP_K)
      .describe('k of m_k: the most similar fetched pages averaged'),
    alpha: z.number().min(0).max(1e6).meta({ unit: 'weight' }).default(1).describe('weight of a direct link (1/2 one way, 1 both)'),
    beta: z.number().min(0).max(1e6).meta({ unit: 'weight' }).default(1).describe('weight of bibliographic coupling (common out-links)'),
    gamma: z.number().min(0).max(1e6).meta({ unit: 'weight' }).default(1).describe('weight of co-citation (common in-links)'),
    representatives: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .meta({ unit: 'pages' })
      .default(0)
      .describe('spreading: members of highest membership that pass it on to pages within maxDistance links (0 = off)'),
    discount: z.number().gt(0).max(1).meta({ unit: 'factor' }).default(0.5).describe('spreading: discount i per link'),
    maxDistance: z.number().int().min(1).max(10).meta({ unit: 'links' }).default(2).describe('spreading: greatest link distance D'),
    maxNeighbours: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .meta({ unit: 'links' })
      .default(DEFAULT_MAX_NEIGHBOURS)
      .describe('links kept per page and direction for the similarities (bounds memory; later links are not counted)'),
  }),
] as const;

/** A section naming one policy other than `weighted` (a combination's component). */
const singleSchema = z.discriminatedUnion('policy', singleSchemas, {
  error: (issue) =>
    issue.code === 'invalid_union' && issue.path?.at(-1) === 'policy' ? unknownPolicy(issue.input, 'weighted') : undefined,
});

/** The `order` section: a policy id and its parameters, defaults filled in. */
export const orderPolicySchema = z
  .discriminatedUnion(
    'policy',
    [
      ...singleSchemas,
      z.strictObject({
        policy: id('weighted', 'Σ weight · priority over component policies (priorities summed as they are: mind their scales)'),
        components: z
          .array(
            z.strictObject({
              policy: singleSchema.describe('a policy section (any policy but weighted)'),
              weight: z.number().min(-1e9).max(1e9).describe('its weight'),
            }),
          )
          .min(1)
          .describe('the terms of the sum (required)'),
      }),
    ],
    {
      error: (issue) => (issue.code === 'invalid_union' && issue.path?.at(-1) === 'policy' ? unknownPolicy(issue.input) : undefined),
    },
  )
  .describe('which discovered URL a node fetches first (SPEC §3); the parameters and defaults of each policy: src/order/README.md');

/** The message for a missing or unknown id: what was given and every valid id. */
function unknownPolicy(section: unknown, excluded?: OrderPolicyId): string {
  const given = (section as { policy?: unknown } | null | undefined)?.policy;
  const what =
    given === undefined
      ? 'no ordering policy given'
      : given === excluded
        ? `${JSON.stringify(given)} cannot be a component of a combination`
        : `unknown ordering policy ${JSON.stringify(given)}`;
  return `${what}; valid: ${ORDER_POLICY_IDS.filter((p) => p !== excluded).join(', ')}`;
}

/** A validated order section. */
export type OrderPolicyConfig = z.output<typeof orderPolicySchema>;
/** An order section as written: any parameter with a default may be left out. */
export type OrderPolicyInput = z.input<typeof orderPolicySchema>;

/** What policies may read besides their parameters; each is built by the caller (policies do no I/O). */
export interface OrderModels {
  /** Reference idf table, term (lowercase word) → idf, for `similarity` with `idfSource: reference`. */
  readonly idf?: ReadonlyMap<string, number>;
  /**
   * For `topic`: the topic model (`cluster.model`) and, in a topic-partitioned crawl, the model's
   * categories assigned to the node's partitions (used when the section names none; possibly none,
   * for a node that owns only rule categories such as WORLD); null outside a topic-partitioned crawl.
   */
  readonly topic?: { readonly classifier: LinkClassifier; readonly categories: readonly string[] | null };
}

type ConfigOf<K extends OrderPolicyId> = Extract<OrderPolicyConfig, { policy: K }>;
type Factory<K extends OrderPolicyId> = (config: ConfigOf<K>, models: OrderModels) => OrderingPolicy;

const FACTORIES: { readonly [K in OrderPolicyId]: Factory<K> } = {
  bfs: () => new BreadthFirstPolicy(),
  random: (c) => new RandomPolicy({ seed: c.seed }),
  backlink: () => new BacklinkPolicy(),
  pagerank: (c) =>
    new PageRankPolicy({
      damping: c.damping,
      recomputeEvery: c.recomputeEvery,
      recomputeGrowth: c.recomputeGrowth,
      tolerance: c.tolerance,
      maxIterations: c.maxIterations,
      sliceWork: c.sliceWork,
      minChange: c.minChange,
    }),
  'forward-links': () => new ForwardLinksPolicy(),
  location: (c) => new LocationPolicy({ slashWeight: c.slashWeight, suffixWeights: c.suffixWeights, keywordWeights: c.keywordWeights }),
  similarity: (c, models) =>
    new SimilarityPolicy({
      query: c.query,
      anchorWeight: c.anchorWeight,
      urlWeight: c.urlWeight,
      titleWeight: c.titleWeight,
      idfSource: c.idfSource,
      ...(models.idf === undefined ? {} : { idf: models.idf }),
    }),
  'hot-queue': (c) => new HotQueuePolicy({ terms: c.terms, hotDistance: c.hotDistance, titleMin: c.titleMin, bodyMin: c.bodyMin }),
  topic: (c, models) =>
    new TopicPolicy({
      classifier: models.topic?.classifier,
      categories: c.categories.length > 0 ? c.categories : (models.topic?.categories ?? null),
    }),
  community: (c) =>
    new CommunityPolicy({
      rank: c.rank,
      k: c.k,
      alpha: c.alpha,
      beta: c.beta,
      gamma: c.gamma,
      representatives: c.representatives,
      discount: c.discount,
      maxDistance: c.maxDistance,
      maxNeighbours: c.maxNeighbours,
    }),
  weighted: (c, models) =>
    new WeightedPolicy(
      c.components.map((component, i) => {
        try {
          return { policy: build(component.policy, models), weight: component.weight };
        } catch (err) {
          if (err instanceof OrderParamError) throw new OrderParamError(`components.${i}.policy.${err.param}`, err.detail, { cause: err });
          throw err;
        }
      }),
    ),
};

function build(config: OrderPolicyConfig, models: OrderModels): OrderingPolicy {
  const factory = FACTORIES[config.policy] as Factory<OrderPolicyId>;
  return factory(config as ConfigOf<OrderPolicyId>, models);
}

/**
 * Builds the ordering policy a validated `order` section names. Throws a {@link ConfigError} at
 * `order.<option>` for a parameter the policy rejects (a query without words, `idfSource: reference`
 * without `models.idf`, ...); the section is validated again, so a hand-built object cannot slip past
 * the schema.
 */
export function orderingPolicyFrom(config: OrderPolicyConfig, models: OrderModels = {}): OrderingPolicy {
  const parsed = orderPolicySchema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => ({ path: ['order', ...i.path.map(String)].join('.'), message: i.message })));
  }
  try {
    return build(parsed.data, models);
  } catch (err) {
    if (err instanceof OrderParamError) throw new ConfigError([{ path: `order.${err.param}`, message: err.detail }], { cause: err });
    throw err;
  }
}
