/**
 * Random ordering, the baseline every curve of seed 004 is compared with (§3: a random crawler finds
 * hot pages in proportion to the pages it visited, 100·K/T; SPEC §3 "random").
 *
 *     O(u) = a uniform draw in [0, 1), fixed when u is discovered
 *
 * Each discovered URL draws one number from a seeded generator (the test web's sfc32, `Rng` of
 * `src/core/prng.ts`, on its own purpose; two 32-bit draws make a 53-bit fraction, so ties are
 * practically impossible), and the frontier serves the highest draw first. The draws depend only on the seed and the order of `prioritize` calls: the same crawl with
 * the same seed visits the same pages in the same order.
 *
 * Departures: the paper's random crawler may revisit pages; this one fetches each URL once, in a
 * random order of the URLs discovered so far (a random permutation of the frontier), which is what
 * a real crawler can do.
 */
import { Purpose, Rng } from '../core/prng.js';
import { integerParam } from './order-params.js';
import {
  NEEDS_NOTHING,
  NO_PRIORITY_CHANGES,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';

/** Options of {@link RandomPolicy}. */
export interface RandomPolicyOptions {
  /** Seed of the generator, an integer in [0, 2^32 − 1]. Default 1. */
  readonly seed?: number;
}

/** Default seed of the random policy. */
export const DEFAULT_RANDOM_SEED = 1;

/** Random ordering by a seeded draw per discovered URL; see the file comment. */
export class RandomPolicy implements OrderingPolicy {
  /** `{ id: 'random', params: { seed } }`. */
  readonly spec: OrderingPolicySpec;
  /** Reads nothing: the draw is the whole policy. */
  readonly needs: PolicyNeeds = NEEDS_NOTHING;
  private readonly rng: Rng;

  /** @throws OrderParamError when the seed is not an integer in [0, 2^32 − 1]. */
  constructor(options: RandomPolicyOptions = {}) {
    const seed = integerParam('seed', options.seed ?? DEFAULT_RANDOM_SEED, 0, 0xffffffff);
    this.spec = Object.freeze({ id: 'random', params: Object.freeze({ seed }) });
    this.rng = new Rng(seed, Purpose.orderRandom, 0);
  }

  /** The next draw of the generator, in [0, 1). */
  prioritize(_url: DiscoveredUrl): number {
    const high = this.rng.nextU32() >>> 5;
    const low = this.rng.nextU32() >>> 6;
    return (high * 2 ** 26 + low) / 2 ** 53;
  }

  /** The draw of a URL never changes. */
  observe(_page: FetchedPage): PriorityChanges {
    return NO_PRIORITY_CHANGES;
  }
}
