/**
 * Synthetic inputs for the partitioner tests: a seeded PRNG (tests must be reproducible), URLs and
 * pages to place, and random link graphs for measuring p_l, the share of links whose target lands on
 * the linking page's own partition.
 */
import type { PageToPlace, Partitioner, UrlToPlace } from '../../../src/partition/partitioner.js';
import { seededRandom } from '../../helpers/random.js';

/** Re-exported: the tests of partitioners draw their cases from it. */
export { seededRandom };

/** A URL to place; the host name is read from the URL (without port; IPv6 in brackets). */
export function urlOf(url: string, ip: string | null = null): UrlToPlace {
  return { url, hostname: new URL(url).hostname, ip };
}

/** A fetched page to place, with a made-up body digest. */
export function pageOf(url: string, contentDigest: string, ip: string | null = null): PageToPlace {
  return { url, hostname: new URL(url).hostname, ip, contentDigest, language: 'en', title: 't', text: 'some text' };
}

/** `count` distinct host names of the test web's shape: `www.site<i>.test`. */
export function hostNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `www.site${i}.test`);
}

/** The one partition a single-partition strategy gives `url`. */
export function partitionOf(p: Partitioner, url: UrlToPlace): number {
  const placement = p.placeUrl(url, 0);
  if (placement.length !== 1) throw new Error(`expected one partition, got ${placement.length}`);
  return placement[0] as number;
}

/** A link between two page URLs. */
export interface Link {
  readonly from: string;
  readonly to: string;
}

/**
 * `links` random links among `hosts` × `pagesPerHost` pages: with probability `sameHostRate` the
 * target is a page of the source's host, else any page of the graph.
 */
export function randomGraph(links: number, hosts: number, pagesPerHost: number, sameHostRate: number, seed: number): Link[] {
  const random = seededRandom(seed);
  const page = (h: number, i: number): string => `http://www.site${h}.test/page/${i}`;
  const pick = (n: number): number => Math.floor(random() * n);
  return Array.from({ length: links }, () => {
    const h = pick(hosts);
    const to = random() < sameHostRate ? page(h, pick(pagesPerHost)) : page(pick(hosts), pick(pagesPerHost));
    return { from: page(h, pick(pagesPerHost)), to };
  });
}

/** p_l: the share of links whose target is placed on the partition of the page that links to it. */
export function localLinkShare(p: Partitioner, links: readonly Link[]): number {
  let local = 0;
  for (const { from, to } of links) if (partitionOf(p, urlOf(from)) === partitionOf(p, urlOf(to))) local++;
  return local / links.length;
}
