/**
 * The hot-queue ordering of seed 004 §7 (Figures 4 and 5; SPEC §3): two FIFO queues, the hot one
 * always served first.
 *
 *     O(u) = 1 if u is hot, else 0          (the frontier serves equal priorities first come, first served)
 *     u is hot  ⇔  a query term is a word of an anchor text of a link to u, or a substring of u,
 *               or  dist(u) < hotDistance
 *     dist(u)   = 1 if a hot page links to u; 2 if a hot page links to a fetched page that links to u
 *     a fetched page is hot ⇔ some term occurs >= titleMin times in its title, or >= bodyMin times in its text
 *
 * `hotDistance` 0 is the plain hot queue of Figure 4 (anchor and URL only); 3, the default, is the
 * modified crawler of Figure 5 (children and grandchildren of hot pages are hot too). Terms are single
 * words, matched as lowercase `[\p{L}\p{N}]+` tokens in anchors, titles and text, and as substrings
 * of the URL after its scheme (percent-decoded), since URLs run words together.
 *
 * When a fetched page turns out hot, the URLs within the distance become hot at once, queued ones
 * included (returned as changes): its targets get distance 1, and the targets of those already
 * fetched get distance 2, read from the out-links of fetched pages kept in a {@link LinkLog}
 * (4 bytes per link, only when `hotDistance` is 3). Likewise a fetched page at distance 1 passes
 * distance 2 to its targets.
 *
 * Cost: O(|title| + |text| + Σ |anchor| + |URL|) per fetched page (a page's text is read until a
 * term reaches its count); `prioritize` judges again only a URL found elsewhere (a seed, a sitemap
 * entry, a URL from another node). Propagation visits at most the links of the hot page's fetched
 * targets. 1 byte of distance and 3 flags per URL.
 *
 * Departures: Figure 4 decides a URL's queue once, at discovery; shoal also moves a queued URL to the
 * hot queue when a later link to it has a term in its anchor, or when a hot page is found near it.
 * A moved URL keeps its discovery rank among hot URLs (the frontier keeps add order), where the
 * paper's queue would append it. Figure 5 tests "10 or more" occurrences in the body; `bodyMin`
 * makes the count configurable.
 */
import { DistinctLinks } from './distinct-links.js';
import { withRoomFor } from '../core/typed-arrays.js';
import { IdFlags, isUrlId } from './id-arrays.js';
import { LinkLog } from './link-log.js';
import { integerParam, OrderParamError } from './order-params.js';
import { QueuedChanges } from './queued-changes.js';
import type { DiscoveredUrl, FetchedPage, OrderingPolicy, OrderingPolicySpec, PolicyNeeds, PriorityChanges } from './policy.js';
import { TermCounter, tokensOf, urlText } from './terms.js';

/** Options of {@link HotQueuePolicy}. */
export interface HotQueuePolicyOptions {
  /** Query terms, one word each (e.g. `['computer']`). Required, at least one. */
  readonly terms: readonly string[];
  /** URLs at link distance < hotDistance of a hot page are hot; 0..3, 0 = anchor/URL only. Default 3. */
  readonly hotDistance?: number;
  /** Occurrences of a term in the title that make a page hot (>= 1). Default 1. */
  readonly titleMin?: number;
  /** Occurrences of a term in the text that make a page hot (>= 1). Default 10. */
  readonly bodyMin?: number;
}

/** Priority of a hot URL. */
export const HOT_PRIORITY = 1;
/** Priority of any other URL. */
export const COLD_PRIORITY = 0;
/** Default of `hotDistance` (Figure 5: within 3 links of a hot page). */
export const DEFAULT_HOT_DISTANCE = 3;
/** Largest `hotDistance`: distances 0, 1 and 2 are tracked. */
export const MAX_HOT_DISTANCE = 3;

const FAR = 255;

/** The two-queue hot ordering; see the file comment. */
export class HotQueuePolicy implements OrderingPolicy {
  /** `{ id: 'hot-queue', params: { terms, hotDistance, titleMin, bodyMin } }`. */
  readonly spec: OrderingPolicySpec;
  /** Ids, URLs and anchors; page text when hot pages matter (`hotDistance` > 0). */
  readonly needs: PolicyNeeds;
  private readonly terms: readonly string[];
  private readonly counter: TermCounter;
  private readonly hotDistance: number;
  private readonly titleMin: number;
  private readonly bodyMin: number;
  /** Link distance to the nearest known hot page (0 = hot page), FAR when none within 2. */
  private distance = new Uint8Array(0);
  private readonly hotLink = new IdFlags();
  private readonly fetched = new IdFlags();
  private readonly log = new LinkLog();
  private readonly links = new DistinctLinks();
  private readonly changes = new QueuedChanges();

  /** @throws OrderParamError on no terms, a term that is not one word, or counts out of range. */
  constructor(options: HotQueuePolicyOptions) {
    const raw = Array.isArray(options.terms) ? options.terms : [];
    if (raw.length === 0) throw new OrderParamError('terms', 'give at least one query term');
    const terms: string[] = [];
    for (const term of raw) {
      const tokens = tokensOf(String(term));
      if (tokens.length !== 1 || tokens[0] !== String(term).toLowerCase()) {
        throw new OrderParamError('terms', `${JSON.stringify(term)} is not one word (letters and digits only)`);
      }
      if (!terms.includes(tokens[0])) terms.push(tokens[0]);
    }
    this.terms = Object.freeze(terms);
    this.counter = new TermCounter(this.terms);
    this.hotDistance = integerParam('hotDistance', options.hotDistance ?? DEFAULT_HOT_DISTANCE, 0, MAX_HOT_DISTANCE);
    this.titleMin = integerParam('titleMin', options.titleMin ?? 1, 1);
    this.bodyMin = integerParam('bodyMin', options.bodyMin ?? 10, 1);
    this.needs = Object.freeze({ ids: true, urls: true, anchors: true, text: this.hotDistance > 0 });
    this.spec = Object.freeze({
      id: 'hot-queue',
      params: Object.freeze({ terms: this.terms, hotDistance: this.hotDistance, titleMin: this.titleMin, bodyMin: this.bodyMin }),
    });
  }

  /**
   * 1 when the URL is hot (its anchor or URL names a term, or it is near a hot page), else 0. A link
   * found on a page `observe` has read was judged there, with the same anchor and URL.
   */
  prioritize(url: DiscoveredUrl): number {
    if (!isUrlId(url.id)) return this.isHotLink(url.anchorText ?? '', url.url) ? HOT_PRIORITY : COLD_PRIORITY;
    const wasJudged = url.fromId !== undefined && this.fetched.has(url.fromId);
    if (!wasJudged && this.isHotLink(url.anchorText ?? '', url.url)) this.hotLink.set(url.id, true);
    this.changes.queue(url.id);
    return this.isHot(url.id) ? HOT_PRIORITY : COLD_PRIORITY;
  }

  /** Judges the page, marks hot links, spreads hot distance; returns the queued URLs that became hot. */
  observe(page: FetchedPage): PriorityChanges {
    const s = page.id;
    const changes = this.changes.begin(s);
    const isNew = isUrlId(s) && !this.fetched.has(s);
    const count = this.links.of(page.outIds, page.id);
    if (isNew) {
      this.fetched.set(s, true);
      if (this.hotDistance === MAX_HOT_DISTANCE) this.log.append(s, this.links.targets, count);
    }
    const n = page.outIds.length;
    for (let i = 0; i < n; i++) {
      const t = page.outIds[i] as number;
      if (!isUrlId(t) || this.hotLink.has(t) || !this.isHotLink(page.anchors?.[i] ?? '', page.outUrls?.[i] ?? '')) continue;
      const wasHot = this.isHot(t);
      this.hotLink.set(t, true);
      if (!wasHot) changes.setIfQueued(t, HOT_PRIORITY);
    }
    if (this.hotDistance === 0 || !isUrlId(s)) return changes;
    // The page's own targets are relaxed from its links here; relax goes further through the log.
    let d = FAR;
    if (this.isHotPage(page)) {
      if (this.distanceOf(s) > 0) {
        this.setDistance(s, 0, changes);
        d = 1;
      }
    } else if (isNew) {
      d = this.distanceOf(s) + 1;
    }
    if (d < this.hotDistance) for (let i = 0; i < count; i++) this.relax(this.links.targets[i] as number, d, changes);
    return changes;
  }

  /** Whether a page's title or text names a term often enough. */
  private isHotPage(page: FetchedPage): boolean {
    if (page.title !== undefined && this.counter.reaches(page.title, this.titleMin)) return true;
    return page.text !== undefined && this.counter.reaches(page.text, this.bodyMin);
  }

  /** Gives `id` distance `d` if shorter; passes d + 1 on through its logged links while that still counts. */
  private relax(id: number, d: number, changes: QueuedChanges): void {
    if (d >= this.distanceOf(id)) return;
    this.setDistance(id, d, changes);
    if (d + 1 >= this.hotDistance) return;
    const k = this.log.pageOf(id);
    if (k < 0) return;
    const end = this.log.end(k);
    for (let e = this.log.start(k); e < end; e++) this.relax(this.log.targets[e] as number, d + 1, changes);
  }

  /** Sets the distance of `id` (shorter than its current one); a queued URL turning hot is a change. */
  private setDistance(id: number, d: number, changes: QueuedChanges): void {
    const wasHot = this.isHot(id);
    this.distance = withRoomFor(this.distance, id + 1, FAR);
    this.distance[id] = d;
    if (!wasHot && this.isHot(id)) changes.setIfQueued(id, HOT_PRIORITY);
  }

  private distanceOf(id: number): number {
    return id < this.distance.length ? (this.distance[id] as number) : FAR;
  }

  private isHot(id: number): boolean {
    return this.hotLink.has(id) || this.distanceOf(id) < this.hotDistance;
  }

  private isHotLink(anchorText: string, url: string): boolean {
    if (anchorText !== '') {
      const words = tokensOf(anchorText);
      for (const term of this.terms) if (words.includes(term)) return true;
    }
    if (url !== '') {
      const text = urlText(url);
      for (const term of this.terms) if (text.includes(term)) return true;
    }
    return false;
  }
}
