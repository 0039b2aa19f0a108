/**
 * Topic partitioning with a trained classifier (SPEC §4.2; seed 000, the X4 crawler):
 *
 *   placeUrl(u)  = placePage(page u was found on) when the node gives it (`fromPage`), else { self }
 *   placePage(p) = { A(category(p)) },  A: category → partition (category-assignment.ts)
 *
 * Each node owns one or more categories. After fetch, every page gets a category from the X4
 * pipeline, run where the page was analysed (src/classify/topic-labeler.ts: under 50 terms
 * unclassifiable, other languages WORLD, else the Naive Bayes classifier); a page whose category
 * belongs to another node is a boundary page. URLs are not hashed: each node queues the links it
 * finds, so a URL linked from several categories may be fetched by several nodes (overlap).
 *
 * The categories are the labeler's labels (the model's categories, then the rule categories such
 * as WORLD), passed in by the caller: no I/O here. A page the pipeline left without a category
 * (unclassifiable, with no default category) goes to `defaultCategory`'s partition, or stays where
 * it was fetched.
 */
import { checkPartitionCount } from '../partition-params.js';
import type { PagePlacer, PageToPlace, Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';
import { CategoryAssignment, type CategoryAssignmentParams } from './category-assignment.js';

/** Parameters of {@link TopicPartitioner}. */
export type TopicParams = CategoryAssignmentParams;

/** `topic`: pages go to the partition of the category the classifier gave them; URLs stay where found. */
export class TopicPartitioner implements Partitioner, PagePlacer {
  /** `{ id: 'topic', params: { assignment, defaultCategory, model } }`; `model` is the classifier's digest. */
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  readonly needsIp = false;
  /** URLs stay where they are found: a page's links follow the page (the `urls` forward mode sends them). */
  readonly urlsFollowPages = true;
  readonly #assignment: CategoryAssignment;

  /**
   * @param labels every category a page can get, in a fixed order (the default round-robin order).
   * @param modelDigest the digest of the model that gives the categories, named in the spec.
   * Throws a `PartitionParamError` on a bad count, label list, assignment or default category.
   */
  constructor(labels: readonly string[], modelDigest: string, partitionCount: number, params: TopicParams = {}) {
    checkPartitionCount(partitionCount);
    this.#assignment = new CategoryAssignment(labels, partitionCount, params);
    this.partitionCount = partitionCount;
    this.spec = Object.freeze({
      id: 'topic',
      params: Object.freeze({
        assignment: this.#assignment.entries,
        defaultCategory: this.#assignment.defaultCategory ?? '',
        model: modelDigest,
      }),
    });
  }

  /** Before fetch: where the page that links to it belongs, else `[self]`; topic crawling does not hash URLs (SPEC §4.2). */
  placeUrl(url: UrlToPlace, self: PartitionId): Placement {
    return url.fromPage ?? [self];
  }

  /** After fetch: the partition of the page's category; none or unknown: the default category's, else `[self]`. */
  placePage(page: PageToPlace, self: PartitionId): Placement {
    return this.#assignment.placementOf(page.category ?? null, self);
  }
}
