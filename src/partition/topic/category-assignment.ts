/**
 * Which partition owns each topic category, shared by the topic strategies (`topic`, `truth-topic`):
 *
 *   A: category → partition,  by default category i → i mod n in the label list's order
 *
 * With fewer partitions than categories several categories share a partition (SPEC §4.2); with
 * more, partitions ≥ the category count own no topic. An explicit assignment must name every
 * category and nothing else. Pages of unknown topic go to `defaultCategory`'s partition, or stay
 * where they were fetched when it is null.
 */
import { PartitionParamError } from '../partition-params.js';
import type { PartitionId, Placement } from '../partitioner.js';

/** Parameters of a category assignment. */
export interface CategoryAssignmentParams {
  /** Category → partition for every category; default null: round-robin in the label list's order. */
  readonly assignment?: Readonly<Record<string, number>> | null;
  /** Category whose partition takes pages of unknown topic; default null: they stay at `self`. */
  readonly defaultCategory?: string | null;
}

/** A validated category → partition map; see the file comment. */
export class CategoryAssignment {
  /** The effective assignment as `CATEGORY=partition` entries in category order (for a strategy's spec). */
  readonly entries: readonly string[];
  readonly defaultCategory: string | null;
  readonly #placementOf: ReadonlyMap<string, Placement>;
  readonly #unknown: Placement | null;

  /** Throws a `PartitionParamError` on a bad category list, assignment or default category. */
  constructor(categories: readonly string[], partitionCount: number, params: CategoryAssignmentParams = {}) {
    const distinct = new Set(categories);
    if (categories.length === 0 || distinct.size !== categories.length || distinct.has('')) {
      throw new PartitionParamError('strategy', 'the topic labels must be at least one category, each non-empty and distinct');
    }
    const assignment = params.assignment ?? Object.fromEntries(categories.map((c, i) => [c, i % partitionCount]));
    checkAssignment(assignment, categories, partitionCount);
    const defaultCategory = params.defaultCategory ?? null;
    if (defaultCategory !== null && !distinct.has(defaultCategory)) {
      throw new PartitionParamError(
        'defaultCategory',
        `must be one of the categories (${categories.join(', ')}) or null, got ${defaultCategory}`,
      );
    }
    this.#placementOf = new Map(categories.map((c) => [c, Object.freeze([assignment[c] as number])]));
    this.#unknown = defaultCategory === null ? null : (this.#placementOf.get(defaultCategory) as Placement);
    this.defaultCategory = defaultCategory;
    this.entries = Object.freeze(categories.map((c) => `${c}=${assignment[c] as number}`));
  }

  /** The partition of `category`; an unknown or null category: the default category's, else `[self]`. */
  placementOf(category: string | null, self: PartitionId): Placement {
    const placement = category === null ? undefined : this.#placementOf.get(category);
    return placement ?? this.#unknown ?? [self];
  }
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
