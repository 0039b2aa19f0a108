/**
 * What the hash strategies hash, and how a hash becomes a partition (SPEC §4.1; seed 000 §3,
 * seed 003 §3.3):
 *
 *   partition(key) = ⌊ h(key) · n / 2^32 ⌋,   h(key) = high word of the 64-bit URL fingerprint of key
 *
 * h is the project's URL fingerprint (`url/fingerprint.ts`), which hashes any string over its UTF-8
 * bytes with fixed seeds: every node, process and machine computes the same h, so nodes that never
 * talk agree on who owns what. Its high word is a Murmur3-finalized lane, uniform over [0, 2^32).
 *
 * Departure from the papers' `h mod n`: the multiply-shift range reduction (Lemire, "A fast
 * alternative to the modulo reduction", 2016) maps [0, 2^32) onto n equal runs instead. It is as
 * uniform as `mod` (both err by at most n / 2^32) and reads the high bits of the hash, the
 * best-mixed ones. h · n < 2^48 for n ≤ 2^16 (MAX_PARTITIONS), so the double arithmetic is exact
 * and no BigInt is needed. The partition numbers differ from `h mod n`, their distribution does not.
 * Neither keeps keys in place when n changes (`mod` moves n/(n + 1) of them going to n + 1,
 * multiply-shift about 1/2); `consistent-hash.ts` does.
 */
import { getDomain } from 'tldts';
import { urlFingerprintInto } from '../../url/fingerprint.js';
import { checkPartitionCount, singletonPlacements } from '../partition-params.js';
import type { Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';

/** 2^32: the size of the hash ring and of the range of {@link hash32}. */
export const HASH_RANGE = 4_294_967_296;

/** What a URL-level hash strategy hashes. */
export const HashKey = {
  /** The normalized URL (`url-hash`). */
  url: 'url',
  /** The host name (`host-hash`). */
  host: 'host',
  /** The registrable domain, see {@link registrableDomainOf} (`domain-hash`). */
  domain: 'domain',
  /** The resolved address, or the host name while it is unknown (`ip-hash`). */
  ip: 'ip',
} as const;
export type HashKey = (typeof HashKey)[keyof typeof HashKey];

/** Every {@link HashKey}, in declaration order (for schemas and checks). */
export const HASH_KEYS: readonly HashKey[] = Object.freeze(Object.values(HashKey));

// One scratch pair; nothing below can re-enter.
const words = new Uint32Array(2);

/** h(key): a fixed 32-bit hash of the string's UTF-8 bytes, the same in every process. */
export function hash32(key: string): number {
  urlFingerprintInto(key, words);
  return words[0] as number;
}

/** The partition of a 32-bit hash among `n` partitions: ⌊h · n / 2^32⌋ (see the file comment). */
export function partitionOfHash(h: number, n: number): PartitionId {
  return Math.floor((h * n) / HASH_RANGE);
}

/** The partition of a key among `n` partitions: ⌊h(key) · n / 2^32⌋. */
export function partitionOfKey(key: string, n: number): PartitionId {
  return partitionOfHash(hash32(key), n);
}

/**
 * The registrable domain of a host name (`a.b.example.co.uk` → `example.co.uk`), from the Public
 * Suffix List through tldts, private suffixes counted as public as `url/scope.ts` does
 * (`alice.github.io` is its own domain), so "domain" means the same thing in scope and partitioning.
 *
 * Names the list does not know get its default rule `*`: the last label is the suffix and the last
 * two labels are the domain. So every host of the test web (`www.something.test`,
 * `something.test`, `shop.something.test`) goes with `something.test`, and so does any other unknown
 * top-level domain (`a.b.c.internal` → `c.internal`).
 *
 * Fallback, the host name itself, when there is no registrable domain: IP addresses (`10.0.0.1`,
 * `[::1]`, `::1`), `localhost`, single-label names, bare public suffixes (`co.uk`), and anything
 * tldts cannot parse.
 */
export function registrableDomainOf(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

/** The string a {@link HashKey} strategy hashes for `url` (never throws; see each key's fallback). */
export function hashKeyOf(key: HashKey, url: UrlToPlace): string {
  switch (key) {
    case HashKey.url:
      return url.url;
    case HashKey.host:
      return url.hostname;
    case HashKey.domain:
      return registrableDomainOf(url.hostname);
    // Unknown address (resolution failed, or the caller did not resolve): the host name stands in,
    // so the URL still has an owner and all URLs of that host still go together.
    case HashKey.ip:
      return url.ip ?? url.hostname;
  }
}

/**
 * The shape shared by `url-hash`, `host-hash`, `domain-hash` and `ip-hash`: one key per URL, hashed
 * and reduced to [0, n); one partition per URL; `self` never read. Subclasses only name the key.
 */
export abstract class KeyHashPartitioner implements Partitioner {
  /** The configuration id, and no parameters: the key is implied by the id. */
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  /** True only when the key is the resolved address (`ip-hash`). */
  readonly needsIp: boolean;
  readonly #key: HashKey;
  /** `[p]` at index p, frozen: no array allocated per URL. */
  readonly #placements: readonly Placement[];

  /** Throws a `PartitionParamError` unless `partitionCount` is an integer in [1, 65,536]. */
  protected constructor(id: string, key: HashKey, partitionCount: number) {
    checkPartitionCount(partitionCount);
    this.spec = Object.freeze({ id, params: Object.freeze({}) });
    this.partitionCount = partitionCount;
    this.needsIp = key === HashKey.ip;
    this.#key = key;
    this.#placements = singletonPlacements(partitionCount);
  }

  /** The one partition of h(key of `url`). */
  placeUrl(url: UrlToPlace, _self?: PartitionId): Placement {
    return this.#placements[partitionOfKey(hashKeyOf(this.#key, url), this.partitionCount)] as Placement;
  }
}
