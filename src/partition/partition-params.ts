/**
 * Construction checks shared by every partitioning strategy, and the placements they hand out.
 *
 * Strategies throw {@link PartitionParamError} for a bad parameter (the contract in
 * `partitioner.ts`: bad parameters throw at construction, Web data never does); the registry turns
 * it into a `ConfigError` at `partition.<param>`, so the user sees the option to fix.
 */
import type { PartitionId, Placement } from './partitioner.js';

/**
 * Most partitions a crawl may have: 2^16. Far beyond any crawl, and small enough that the
 * multiply-shift range reduction (`hash/hash-key.ts`, h · n < 2^48) and the ring's packed sort keys
 * (`hash/consistent-hash.ts`, point · 2^16 + owner < 2^48) stay exact in a double.
 */
export const MAX_PARTITIONS = 65_536;

/** A strategy parameter that cannot be used; `param` is its name in the `partition` section. */
export class PartitionParamError extends RangeError {
  /** Name of the offending option, e.g. `virtualNodes` (`strategy` for the partition count). */
  readonly param: string;
  constructor(param: string, message: string) {
    super(`${param}: ${message}`);
    this.name = 'PartitionParamError';
    this.param = param;
  }
}

/** Throws unless `n` is an integer in [1, {@link MAX_PARTITIONS}]. */
export function checkPartitionCount(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARTITIONS) {
    throw new PartitionParamError('strategy', `the partition count must be an integer in [1, ${MAX_PARTITIONS}], got ${n}`);
  }
}

/**
 * One frozen single-partition placement per partition, `[p]` at index p: hash strategies return
 * these on the hot path instead of allocating an array per URL (placements are read-only anyway).
 */
export function singletonPlacements(n: number): readonly Placement[] {
  return Array.from({ length: n }, (_, p: PartitionId) => Object.freeze([p]));
}
