/**
 * Topic partitioning with an ideal classifier (SPEC §4.2; seed 000, the X4 crawler):
 *
 *   placeUrl(u)  = placePage(page u was found on) when the node gives it (`fromPage`), else { self }
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
import { checkPartitionCount } from '../partition-params.js';
import { CategoryAssignment, type CategoryAssignmentParams } from './category-assignment.js';
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
export type TruthTopicParams = CategoryAssignmentParams;

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
  /** URLs stay where they are found: a page's links follow the page (the `urls` forward mode sends them). */
  readonly urlsFollowPages = true;
  readonly #model: TopicModel;
  readonly #assignment: CategoryAssignment;

  /** Throws a `PartitionParamError` on a bad count, category list, assignment or default category. */
  constructor(model: TopicModel, partitionCount: number, params: TruthTopicParams = {}) {
    checkPartitionCount(partitionCount);
    this.#model = model;
    this.#assignment = new CategoryAssignment(model.categories, partitionCount, params);
    this.partitionCount = partitionCount;
    this.spec = Object.freeze({
      id: 'truth-topic',
      params: Object.freeze({ assignment: this.#assignment.entries, defaultCategory: this.#assignment.defaultCategory ?? '' }),
    });
  }

  /** Before fetch: where the page that links to it belongs, else `[self]`; topic crawling does not hash URLs (SPEC §4.2). */
  placeUrl(url: UrlToPlace, self: PartitionId): Placement {
    return url.fromPage ?? [self];
  }

  /** After fetch: the partition of the page's true topic; unknown topic: the default category's, else `[self]`. */
  placePage(page: PageToPlace, self: PartitionId): Placement {
    return this.#assignment.placementOf(this.#model.topicOf(page.url), self);
  }
}
