/**
 * Figures of `npm run experiment:community`, shared by its synthetic and real-graph sections: a
 * score's mean and sample standard deviation over draws, and the row of a table of crawler variants
 * built from the draws of one variant.
 */
import type { MeanCommunityScores } from '../../src/eval/community-metrics.js';

/** Mean and sample standard deviation (0 for one value). */
export interface Stat {
  readonly mean: number;
  readonly sd: number;
}

/** Mean and sample standard deviation of `values` (not empty). */
export function stat(values: readonly number[]): Stat {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return { mean, sd };
}

/** One draw of a variant: the crawlers' mean scores and the overlap of their sets. */
export interface DrawScores {
  readonly mean: MeanCommunityScores;
  readonly overlap: number;
}

/** A variant's scores over its draws. */
export interface Row {
  readonly cohesion: Stat;
  readonly precision: Stat;
  readonly recall: Stat;
  readonly overlap: Stat;
  /** Distinct majority communities among the crawlers. */
  readonly communities: Stat;
}

/** The {@link Row} of a variant's draws (at least one). */
export function communityRow(draws: readonly DrawScores[]): Row {
  return {
    cohesion: stat(draws.map((r) => r.mean.cohesion)),
    precision: stat(draws.map((r) => r.mean.precision)),
    recall: stat(draws.map((r) => r.mean.recall)),
    overlap: stat(draws.map((r) => r.overlap)),
    communities: stat(draws.map((r) => r.mean.distinctMajorities)),
  };
}
