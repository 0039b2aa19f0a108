/**
 * The way into the frontier (SPEC §2 items 2–5, in the order a URL meets them): normalization
 * (already done for links by the page processor; seeds are normalized here), the URL filter, the
 * URL-seen test (one batch per page), robots.txt when the host's rules are already known, name
 * resolution (so the frontier can apply the per-IP limit from the first request on), the ordering
 * policy's priority, and finally `frontier.add`.
 *
 * A URL is inserted into the seen set when it is first met, before robots.txt or the frontier
 * decide about it: the seen set means "already dealt with", so a disallowed link found on a
 * thousand pages is judged once.
 */
import type { Clock } from './clock.js';
import type { CrawlStats } from './crawl-stats.js';
import type { RobotsCache } from './robots-cache.js';
import { urlParts } from './url-parts.js';
import type { Waker } from './waker.js';
import type { Resolver } from '../dns/resolver.js';
import type { Frontier, FrontierEntry } from '../frontier/frontier.js';
import type { OrderingPolicy } from '../order/policy.js';
import type { PartitionRouter } from './partition-router.js';
import { WORD_OFFSET, type SeenSet } from '../seen/seen-set.js';
import type { UrlFilter } from '../url/filter/url-filter.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import type { UrlIds } from '../url/url-ids.js';

/**
 * A frontier entry as the node queues it: with the page it was found on, for the crawl log's
 * "discovering URL" and the `Referer` header (both frontiers keep it; a frontier of another kind
 * may drop it, and it is then null).
 */
export interface NodeEntry extends FrontierEntry {
  readonly fromUrl: string | null;
}

/** The page a lease's entry was found on, when the frontier kept it. */
export function fromUrlOf(entry: FrontierEntry): string | null {
  const from = (entry as Partial<NodeEntry>).fromUrl;
  return typeof from === 'string' ? from : null;
}

/** A normalized URL on its way to the frontier. */
export interface Candidate {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Its host name without port, as normalization returned it. */
  readonly hostname: string;
  readonly depth: number;
  readonly fromUrl: string | null;
  /** Dense id of the page it was found on (`url/url-ids.ts`), when the node numbers URLs for its ordering policy. */
  readonly fromId?: number;
  /** Dense id of the URL itself, when the node numbers URLs and the page processor has looked it up already. */
  readonly id?: number;
  /**
   * The URL's fingerprint (`url/fingerprint.ts`) as two unsigned 32-bit words, when the caller has
   * computed it (the page processor, once per link): admission then does not hash the URL again.
   * Both or neither.
   */
  readonly fingerprintHi?: number;
  readonly fingerprintLo?: number;
  readonly anchorText?: string;
  /**
   * A sitemap to read (its URLs become seeds), not a page. Sitemaps come from the user or from
   * robots.txt, not from links: the URL filter does not judge them (the URLs they list meet it).
   */
  readonly isSitemap?: boolean;
}

/** Collaborators of {@link Admission}. */
export interface AdmissionOptions {
  readonly frontier: Frontier;
  readonly seen: SeenSet;
  readonly policy: OrderingPolicy;
  /** The node's URL ids, when its policy keeps per-URL state (`policy.needs.ids`); null: every id is -1. */
  readonly urlIds: UrlIds | null;
  readonly robots: RobotsCache;
  readonly resolver: Resolver;
  /** Whether requests go through a forward proxy (then the proxy resolves names, and IPs are unknown). */
  readonly isProxied: boolean;
  /** URL filters and scope rules (`src/url/filter/`, `src/url/scope.ts`), composed; null accepts everything. */
  readonly filter: UrlFilter | null;
  readonly clock: Clock;
  readonly stats: CrawlStats;
  readonly waker: Waker;
  /** Called for a URL that robots.txt already known disallows (it is not queued). */
  readonly onRobotsDenied: (candidate: Candidate) => void;
  /** Host names whose address is remembered. Default 100,000. */
  readonly maxCachedHosts?: number;
  /**
   * In a collaborative crawl, places each URL that passed the filter and sends the ones other
   * nodes own (partition-router.ts); null in a crawl of one node.
   */
  readonly router?: PartitionRouter | null;
}

/** How {@link Admission.admit} treats a batch. */
export interface AdmitOptions {
  /**
   * The URLs are already placed on this node (seeds it keeps, URLs another node sent): they are not
   * placed again.
   */
  readonly isPlaced?: boolean;
}

const { hi: HI, lo: LO } = WORD_OFFSET;

/** The admission stage; see the file comment. */
export class Admission {
  private readonly ips = new Map<string, string>();
  /** Admissions under way (for checkpoints: see {@link settle}). */
  private readonly running = new Set<Promise<void>>();
  private readonly scratch = new Uint32Array(2);
  private readonly maxCachedHosts: number;

  constructor(private readonly o: AdmissionOptions) {
    this.maxCachedHosts = o.maxCachedHosts ?? 100_000;
  }

  /** Filters, tests and queues `candidates`; resolves once every new one is in the frontier. */
  admit(candidates: readonly Candidate[], options: AdmitOptions = {}): Promise<void> {
    const run = this.admitNow(candidates, options.isPlaced === true);
    this.running.add(run);
    const forget = (): void => { this.running.delete(run); };
    run.then(forget, forget);
    return run;
  }

  /** Resolves once every admission begun before the call has ended (its URLs are in the frontier, or it failed). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  /** Whether no admission is under way. */
  get isIdle(): boolean {
    return this.running.size === 0;
  }

  /**
   * Puts URLs in the URL-seen set without queueing them (pages another node fetched and forwarded
   * here: this node must not fetch them itself).
   */
  async markSeen(urls: readonly string[]): Promise<void> {
    const fingerprints = new BigUint64Array(urls.length);
    const words = new Uint32Array(fingerprints.buffer);
    for (let i = 0; i < urls.length; i++) this.fingerprintInto(words, i, urls[i] as string);
    await this.o.seen.addBatch(fingerprints);
  }

  /** The 64-bit fingerprints of `candidates`, in the seen set's layout; hashed only where a candidate does not carry its own. */
  private fingerprintsOf(candidates: readonly Candidate[]): BigUint64Array {
    const fingerprints = new BigUint64Array(candidates.length);
    const words = new Uint32Array(fingerprints.buffer);
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i] as Candidate;
      if (c.fingerprintHi === undefined || c.fingerprintLo === undefined) {
        this.fingerprintInto(words, i, c.url);
      } else {
        words[2 * i + HI] = c.fingerprintHi;
        words[2 * i + LO] = c.fingerprintLo;
      }
    }
    return fingerprints;
  }

  /** Writes the fingerprint of `url` as entry `i` of `words` (a BigUint64Array's words). */
  private fingerprintInto(words: Uint32Array, i: number, url: string): void {
    const s = this.scratch;
    urlFingerprintInto(url, s);
    words[2 * i + HI] = s[0] as number;
    words[2 * i + LO] = s[1] as number;
  }

  /** The remembered address of a host name, or null. */
  readonly ipOf = (hostname: string): string | null => this.ips.get(hostname) ?? null;

  /** Resolves the host names of `candidates` not resolved yet (for partitioners that place by address). */
  async resolveHosts(candidates: readonly Candidate[]): Promise<void> {
    if (this.o.isProxied) return;
    const unresolved = new Set<string>();
    for (const c of candidates) if (!this.ips.has(c.hostname)) unresolved.add(c.hostname);
    if (unresolved.size > 0) await this.resolve(unresolved);
  }

  private async admitNow(candidates: readonly Candidate[], isPlaced: boolean): Promise<void> {
    const o = this.o;
    const stats = o.stats;
    let passed: Candidate[] = [];
    for (const c of candidates) {
      if (o.filter !== null && c.isSitemap !== true) {
        const verdict = o.filter.check({ url: c.url, host: c.hostname, depth: c.depth });
        if (!verdict.isAccepted) {
          stats.filteredBy(verdict.reason);
          continue;
        }
      }
      passed.push(c);
    }
    const router = o.router ?? null;
    if (router !== null && !isPlaced && passed.length > 0) {
      if (router.needsIp) await this.resolveHosts(passed);
      passed = router.route(passed, this.ipOf);
    }
    if (passed.length === 0) return;
    const fingerprints = this.fingerprintsOf(passed);
    const isNew = await o.seen.addBatch(fingerprints);
    const words = new Uint32Array(fingerprints.buffer);
    const fresh: Candidate[] = [];
    const freshIds: number[] = [];
    const now = o.clock.nowMs();
    for (let i = 0; i < passed.length; i++) {
      const c = passed[i] as Candidate;
      if (isNew[i] !== 1) {
        stats.links.seenBefore++;
        continue;
      }
      const parts = urlParts(c.url);
      const rules = o.robots.peekRules(parts.origin, now);
      if (rules !== null && !rules.isAllowed(parts.pathAndQuery)) {
        stats.links.robotsDenied++;
        o.onRobotsDenied(c);
        continue;
      }
      fresh.push(c);
      if (o.urlIds === null) freshIds.push(-1);
      else freshIds.push(c.id !== undefined && c.id >= 0 ? c.id : o.urlIds.idOfFingerprint(words[2 * i + HI] as number, words[2 * i + LO] as number));
    }
    await this.resolveHosts(fresh);
    const addAt = o.clock.nowMs();
    let added = 0;
    for (let i = 0; i < fresh.length; i++) {
      const c = fresh[i] as Candidate;
      const priority = o.policy.prioritize({
        id: freshIds[i] as number, url: c.url, depth: c.depth,
        ...(c.fromId === undefined || c.fromId < 0 ? {} : { fromId: c.fromId }),
        ...(c.anchorText === undefined || c.anchorText === '' ? {} : { anchorText: c.anchorText }),
      });
      const ip = this.ips.get(c.hostname);
      const entry: NodeEntry = {
        url: c.url, host: urlParts(c.url).hostKey, depth: c.depth, priority, fromUrl: c.fromUrl,
        ...(ip === undefined ? {} : { ip }), ...(c.isSitemap === true ? { isSitemap: true } : {}),
      };
      if (o.frontier.add(entry, addAt)) added++;
    }
    stats.links.queued += added;
    if (added > 0) o.waker.notify();
  }

  /** Resolves host names in parallel and remembers the addresses (failures are left to the fetch). */
  private async resolve(hostnames: ReadonlySet<string>): Promise<void> {
    await Promise.all([...hostnames].map(async (name) => {
      const answer = await this.o.resolver.resolve(name);
      if (answer.kind !== 'ok') return;
      this.ips.set(name, answer.ip);
      if (this.ips.size > this.maxCachedHosts) {
        const oldest = this.ips.keys().next().value;
        if (oldest !== undefined) this.ips.delete(oldest);
      }
    }));
  }
}
