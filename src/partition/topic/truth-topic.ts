/**
 * Topic partitioning with an ideal classifier (SPEC §4.2; seed 000, the X4 crawler):
 *
 *   placeUrl(u)  = { self }
 *   placePage(p) = { A(topic(p)) },  A: category → partition
 *
 * The X4 crawler gives each node one or more broad categories, classifies every fetched page and
 * sends a boundary page (category ≠ this node's) to its category's node. URLs are not hashed: each
 * node queues the links it finds, so a URL linked from several categories may be fetched by several
 * nodes (overlap, measured). This strategy is the upper bound of that design: instead of a trained
 * classifier (X4 measured 60.7% accuracy), `topic(p)` is the test web's TRUE label of the page, read
 * from its ground truth through a {@link TopicModel}. Comparing a classifier-driven crawl with this
 * one separates the cost of classification errors from the cost of topic partitioning itself.
 *
 * A (param `assignment`): by default the categories, in the model's order, are dealt round-robin to
 * partitions 0 .. n − 1 (category i → i mod n), so with fewer partitions than categories several
 * categories share a partition, as SPEC §4.2 allows; with more, partitions ≥ the category count own
 * no topic and keep only the pages they fetch whose topic is unknown. An explicit assignment must
 * name every category.
 *
 * Unknown topics (the model returns null, or a label that is not one of its categories): the page
 * goes to `defaultCategory`'s partition, as X4 sends unclassifiable pages to a default category;
 * with no default (null) it stays where it was fetched (`self`).
 */
import { checkPartitionCount, PartitionParamError } from '../partition-params.js';
import type { PagePlacer, PageToPlace, Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';

/**
 * The true topic labels a topic strategy reads, built by the caller (no I/O in `src/partition/`),
 * typically from the test web's ground truth (`web/truth/`: `pages.tsv` column `topic`). The test
 * web's labels are its `topics.categories`: by default the 16 top Open Directory categories in upper
 * case, `ADULT`, `ARTS`, ... `SPORTS`, `WORLD` (`DEFAULT_CATEGORIES` in `web/config.ts`), every
 * non-English page labelled `WORLD` (`topics.worldCategory`); a custom web may use any names
 * matching `[A-Za-z][A-Za-z0-9_-]*`.
 */
export interface TopicModel {
  /**
   * The label of the page at `url`, a normalized absolute URL (with its port when not the default:
   * a lookup keyed by path and host name must strip it), or null when the page is unknown.
   */
  topicOf(url: string): string | null;
  /** Every label, in a fixed order (the order of the default round-robin assignment); distinct, non-empty. */
  readonly categories: readonly string[];
}

/** Parameters of {@link TruthTopicPartitioner}. */
export interface TruthTopicParams {
  /** Category → partition for every category; default null: round-robin in the model's order. */
  readonly assignment?: Readonly<Record<string, number>> | null;
  /** Category whose partition takes pages of unknown topic; default null: they stay at `self`. */
  readonly defaultCategory?: string | null;
}

/** `truth-topic`: pages go to the partition of their true topic; URLs stay where they were found. */
export class TruthTopicPartitioner implements Partitioner, PagePlacer {
  /**
   * `{ id: 'truth-topic', params: { assignment, defaultCategory } }`: the effective assignment as
   * `CATEGORY=partition` entries in category order, and `defaultCategory` '' when null.
   */
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  /** False: placement reads URLs and labels only. */
  readonly needsIp = false;
  readonly #model: TopicModel;
  /** Category → frozen placement of its partition. */
  readonly #placementOf: ReadonlyMap<string, Placement>;
  /** Placement of pages of unknown topic, or null to keep them at `self`. */
  readonly #unknownPlacement: Placement | null;

  /** Throws a `PartitionParamError` on a bad count, category list, assignment or default category. */
  constructor(model: TopicModel, partitionCount: number, params: TruthTopicParams = {}) {
    checkPartitionCount(partitionCount);
    const categories = model.categories;
    const distinct = new Set(categories);
    if (categories.length === 0 || distinct.size !== categories.length || distinct.has('')) {
      throw new PartitionParamError('strategy', 'the topic model must list at least one category, each non-empty and distinct');
    }
    const assignment = params.assignment ?? roundRobin(categories, partitionCount);
    checkAssignment(assignment, categories, partitionCount);
    const defaultCategory = params.defaultCategory ?? null;
    if (defaultCategory !== null && !distinct.has(defaultCategory)) {
      throw new PartitionParamError('defaultCategory', `must be one of the model's categories (${categories.join(', ')}) or null, got ${defaultCategory}`);
    }
    this.#model = model;
    this.#placementOf = new Map(categories.map((c) => [c, Object.freeze([assignment[c] as number])]));
    this.#unknownPlacement = defaultCategory === null ? null : (this.#placementOf.get(defaultCategory) as Placement);
    this.partitionCount = partitionCount;
    this.spec = Object.freeze({
      id: 'truth-topic',
      params: Object.freeze({
        assignment: Object.freeze(categories.map((c) => `${c}=${assignment[c] as number}`)),
        defaultCategory: defaultCategory ?? '',
      }),
    });
  }

  /** Before fetch: `[self]`; topic crawling does not hash URLs (SPEC §4.2). */
  placeUrl(_url: UrlToPlace, self: PartitionId): Placement {
    return [self];
  }

  /** After fetch: the partition of the page's true topic; unknown topic: the default category's, else `[self]`. */
  placePage(page: PageToPlace, self: PartitionId): Placement {
    const topic = this.#model.topicOf(page.url);
    const placement = topic === null ? undefined : this.#placementOf.get(topic);
    return placement ?? this.#unknownPlacement ?? [self];
  }
}

/** Category i → partition i mod n. */
function roundRobin(categories: readonly string[], n: number): Readonly<Record<string, number>> {
  return Object.fromEntries(categories.map((c, i) => [c, i % n]));
}

/** Every category assigned, nothing else, each to an integer partition in [0, n). */
function checkAssignment(assignment: Readonly<Record<string, number>>, categories: readonly string[], n: number): void {
  const known = new Set(categories);
  const unknown = Object.keys(assignment).filter((c) => !known.has(c));
  const missing = categories.filter((c) => !Object.hasOwn(assignment, c));
  const bad = Object.entries(assignment).filter(([, p]) => !Number.isInteger(p) || p < 0 || p >= n);
  const problems = [
    ...(unknown.length > 0 ? [`not categories of the model: ${unknown.join(', ')}`] : []),
    ...(missing.length > 0 ? [`categories not assigned: ${missing.join(', ')}`] : []),
    ...bad.map(([c, p]) => `${c} → ${p} is not a partition in [0, ${n})`),
  ];
  if (problems.length > 0) throw new PartitionParamError('assignment', problems.join('; '));
}
