/**
 * Content hashing (SPEC §4.1; seed 003 §3.3):
 *
 *   placePage(p) = ⌊h(digest of p's decoded body) · n / 2^32⌋
 *   placeUrl(u)  = url-hash(u) or host-hash(u)  (param `urls`)
 *
 * After fetch, the hash of the content picks the node that keeps the page and runs duplicate
 * detection: equal bodies meet on one node whatever URLs they were fetched from, so exact
 * duplicates across the whole crawl are found by purely local tests. The page's URL plays no part,
 * so a page stays where it was fetched with probability 1/n: the expected exported data ratio is
 * (n − 1)/n. Before fetch the content is unknown, so URLs still need an owner: a URL-level hash,
 * `url-hash` by default (no overlap) or `host-hash` (politeness and link locality). The key is
 * `contentDigest` (`dedup/content-digest.ts`); h and the range reduction: `hash-key.ts`.
 */
import { checkPartitionCount, PartitionParamError, singletonPlacements } from '../partition-params.js';
import type { PagePlacer, PageToPlace, Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';
import { partitionOfKey } from './hash-key.js';
import { HostHashPartitioner } from './host-hash.js';
import { UrlHashPartitioner } from './url-hash.js';

/** The URL-level hash a content-hash crawl uses before fetch. */
export const ContentHashUrls = {
  /** `url-hash`: one owner per URL, no overlap. */
  urlHash: 'url-hash',
  /** `host-hash`: one owner per host, local politeness. */
  hostHash: 'host-hash',
} as const;
export type ContentHashUrls = (typeof ContentHashUrls)[keyof typeof ContentHashUrls];

/** Parameters of {@link ContentHashPartitioner}. */
export interface ContentHashParams {
  /** How URLs are placed before fetch; default `url-hash`. */
  readonly urls?: ContentHashUrls;
}

/** `content-hash`: pages go to the partition of their content digest, URLs by a URL-level hash. */
export class ContentHashPartitioner implements Partitioner, PagePlacer {
  /** `{ id: 'content-hash', params: { urls } }`. */
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  /** False: neither URL-level choice reads the address. */
  readonly needsIp = false;
  readonly #urls: Partitioner;
  readonly #placements: readonly Placement[];

  /** Throws a `PartitionParamError` on a bad count or `urls`. */
  constructor(partitionCount: number, params: ContentHashParams = {}) {
    checkPartitionCount(partitionCount);
    const urls = params.urls ?? ContentHashUrls.urlHash;
    if (urls === ContentHashUrls.urlHash) this.#urls = new UrlHashPartitioner(partitionCount);
    else if (urls === ContentHashUrls.hostHash) this.#urls = new HostHashPartitioner(partitionCount);
    else throw new PartitionParamError('urls', `must be url-hash or host-hash, got ${String(urls)}`);
    this.spec = Object.freeze({ id: 'content-hash', params: Object.freeze({ urls }) });
    this.partitionCount = partitionCount;
    this.#placements = singletonPlacements(partitionCount);
  }

  /** Before fetch: the URL-level hash chosen by `urls`. */
  placeUrl(url: UrlToPlace, self: PartitionId): Placement {
    return this.#urls.placeUrl(url, self);
  }

  /** After fetch: the one partition of h(page.contentDigest); URL, host and `self` are not read. */
  placePage(page: PageToPlace, _self?: PartitionId): Placement {
    return this.#placements[partitionOfKey(page.contentDigest, this.partitionCount)] as Placement;
  }
}
