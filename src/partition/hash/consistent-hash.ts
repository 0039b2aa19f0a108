/**
 * Consistent hashing with virtual nodes (SPEC §4.1; seed 003 §3.3; Karger et al., "Consistent
 * hashing and random trees", STOC 1997):
 *
 *   ring   = { h(`${p}#${i}`) : p ∈ [0, n), i ∈ [0, V) }   points on [0, 2^32), owner p
 *   owner(k) = owner of the first ring point ≥ h(k), wrapping past 2^32 − 1 to the smallest point
 *
 * Why: going from n to n + 1 partitions, `h mod n` moves n/(n + 1) of the keys and the
 * multiply-shift of `hash-key.ts` about half of them (its n runs each shift by a growing amount),
 * to every partition, so a node joining or leaving reshuffles much of the crawl. On the ring the
 * points of partitions 0 .. n − 1 do not depend on n, so adding partition n moves only the keys
 * whose next point is now one of its V points (about 1/(n + 1) of them, and only to it), and
 * removing a partition moves only its own keys. V virtual points per partition even out the arc
 * lengths: a partition's load deviates from 1/n by about 1/√V of it (one standard deviation).
 *
 * The key (param `key`): the host name by default, as host hashing, so politeness stays local;
 * `domain`, `url` or `ip` (which falls back to the host name when the address is null, like
 * `ip-hash`) as in `hash-key.ts`. Ties between equal points (a 32-bit collision) go to the lower
 * partition number, which keeps the join property exact: a new, higher partition never takes a key
 * through a point it shares with an old one.
 */
import { checkPartitionCount, MAX_PARTITIONS, PartitionParamError, singletonPlacements } from '../partition-params.js';
import type { Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';
import { HASH_KEYS, HashKey, hash32, hashKeyOf } from './hash-key.js';

/** Default virtual points per partition: a partition's load deviates from 1/n by about 9% (1/√128, one σ). */
export const DEFAULT_VIRTUAL_NODES = 128;
/** Most virtual points per partition (memory: 8 bytes per point). */
export const MAX_VIRTUAL_NODES = 4096;

/** Parameters of {@link ConsistentHashPartitioner}. */
export interface ConsistentHashParams {
  /** What is hashed onto the ring; default `host`. */
  readonly key?: HashKey;
  /** Ring points per partition, an integer in [1, 4096]; default 128. */
  readonly virtualNodes?: number;
}

/** `consistent-hash`: each URL goes to the owner of the first ring point clockwise from h(key). */
export class ConsistentHashPartitioner implements Partitioner {
  /** `{ id: 'consistent-hash', params: { key, virtualNodes } }`. */
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  /** True when the key is `ip`. */
  readonly needsIp: boolean;
  readonly #key: HashKey;
  /** Ring points in ascending order. */
  readonly #points: Uint32Array;
  /** Owner partition of each point, index for index. */
  readonly #owners: Uint16Array;
  readonly #placements: readonly Placement[];

  /** Builds the ring; throws a `PartitionParamError` on a bad count, key or `virtualNodes`. */
  constructor(partitionCount: number, params: ConsistentHashParams = {}) {
    checkPartitionCount(partitionCount);
    const key = params.key ?? HashKey.host;
    const virtualNodes = params.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    if (!HASH_KEYS.includes(key)) throw new PartitionParamError('key', `must be one of ${HASH_KEYS.join(', ')}, got ${String(key)}`);
    if (!Number.isInteger(virtualNodes) || virtualNodes < 1 || virtualNodes > MAX_VIRTUAL_NODES) {
      throw new PartitionParamError('virtualNodes', `must be an integer in [1, ${MAX_VIRTUAL_NODES}], got ${virtualNodes}`);
    }
    this.spec = Object.freeze({ id: 'consistent-hash', params: Object.freeze({ key, virtualNodes }) });
    this.partitionCount = partitionCount;
    this.needsIp = key === HashKey.ip;
    this.#key = key;
    [this.#points, this.#owners] = buildRing(partitionCount, virtualNodes);
    this.#placements = singletonPlacements(partitionCount);
  }

  /** The owner of the first ring point at or after h(key of `url`); `self` is not read. */
  placeUrl(url: UrlToPlace, _self?: PartitionId): Placement {
    return this.#placements[this.ownerOf(hash32(hashKeyOf(this.#key, url)))] as Placement;
  }

  /** The partition owning ring position `h` (a 32-bit unsigned hash): binary search, then wrap. */
  ownerOf(h: number): number {
    const points = this.#points;
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((points[mid] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    return this.#owners[lo === points.length ? 0 : lo] as number;
  }
}

/**
 * The sorted ring. Each point and its owner are packed into one double, point · 2^16 + owner
 * (< 2^48, exact), so one numeric sort of a Float64Array orders by point and breaks ties by owner.
 */
function buildRing(n: number, virtualNodes: number): [Uint32Array, Uint16Array] {
  const packed = new Float64Array(n * virtualNodes);
  let k = 0;
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < virtualNodes; i++) packed[k++] = hash32(`${p}#${i}`) * MAX_PARTITIONS + p;
  }
  packed.sort();
  const points = new Uint32Array(packed.length);
  const owners = new Uint16Array(packed.length);
  for (let j = 0; j < packed.length; j++) {
    const v = packed[j] as number;
    const owner = v % MAX_PARTITIONS;
    points[j] = (v - owner) / MAX_PARTITIONS;
    owners[j] = owner;
  }
  return [points, owners];
}
