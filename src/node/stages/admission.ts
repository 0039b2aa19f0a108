/**
 * The way into the frontier (SPEC §2 items 2–5, in the order a URL meets them): normalization
 * (already done for links by the page processor; seeds are normalized here), the URL filter, the
 * URL-seen test (one batch per page), robots.txt when the host's rules are already known, name
 * resolution (so the frontier can apply the per-IP limit from the first request on), the ordering
 * policy's priority, and finally `frontier.add`.
 *
 * Name resolution waits `dnsWaitMs` at most. The page whose links are admitted holds its fetch slot
 * until then (the slot is busy until the page's links are queued), so slow DNS answers for the
 * hosts it links to would hold the slots one after another: links of hosts that did not answer
 * in time are queued without an address, while the lookup goes on and is remembered for the next
 * links of that host (a lookup already under way is not waited for again). Until its address is
 * known such a host counts alone against the per-IP limit; the frontier learns the address from
 * its first fetch. Placing URLs by address (a partitioner that needs the IP) still waits for the answer.
 *
 * A URL is inserted into the seen set when it is first met, before robots.txt or the frontier
 * decide about it: the seen set means "already dealt with", so a disallowed link found on a
 * thousand pages is judged once.
 */
import type { Clock } from '../../core/clock.js';
import type { CrawlStats } from '../crawl-stats.js';
import type { RobotsCache } from './robots-cache.js';
import { hostKeyOf, urlParts } from '../../url/url-parts.js';
import type { Waker } from './waker.js';
import { DEFAULT_DNS_WAIT_MS, type Resolver } from '../../dns/resolver.js';
import type { Frontier, FrontierEntry } from '../../frontier/frontier.js';
import type { OrderingPolicy } from '../../order/policy.js';
import type { PartitionRouter } from '../collaboration/partition-router.js';
import type { Candidate } from './candidate.js';
import type { Placement } from '../../partition/partitioner.js';
import { WORD_OFFSET, type SeenSet } from '../../seen/seen-set.js';
import { RejectReason, type UrlFilter } from '../../url/filter/url-filter.js';
import type { NumberedSpaces } from '../../url/numbered-spaces.js';
import { urlFingerprintInto } from '../../url/fingerprint.js';
import type { UrlIds } from '../../url/url-ids.js';

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
  /** How long queueing waits for the addresses of new hosts, ms (see the file comment). Default {@link DEFAULT_DNS_WAIT_MS}. */
  readonly dnsWaitMs?: number;
  /**
   * In a collaborative crawl, places each URL that passed the filter and sends the ones other
   * nodes own (partition-router.ts); null in a crawl of one node.
   */
  readonly router?: PartitionRouter | null;
  /** The bound on endless numbered spaces (url/numbered-spaces.ts); null: no bound. */
  readonly numbered?: NumberedSpaces | null;
}

/** How {@link Admission.admit} treats a batch. */
export interface AdmitOptions {
  /**
   * The URLs are already placed on this node (seeds it keeps, URLs another node sent): they are not
   * placed again.
   */
  readonly isPlaced?: boolean;
  /** The URLs come from another node (counted as received, not as found here). */
  readonly isReceived?: boolean;
  /**
   * Where the page the URLs were found on belongs (the `urls` forward mode of a strategy whose URLs
   * follow pages: topic, geo), given to the partitioner with each URL.
   */
  readonly fromPage?: Placement;
}

const { hi: HI, lo: LO } = WORD_OFFSET;

/** The admission stage; see the file comment. */
/** What admission decided for a URL before the seen test (see `admitNow`). */
interface Decision {
  readonly depth: number;
  readonly fromUrl: string | null;
  readonly isSitemap: boolean;
  /** Why it was turned away, or null. */
  rejected: RejectReason | null;
  /** Its numbered-space key when it is a numbered sibling of its page (admitted or cut), else null. */
  sibling: string | null;
}

export class Admission {
  private readonly ips = new Map<string, string>();
  /** Admissions under way (for checkpoints: see {@link settle}). */
  private readonly running = new Set<Promise<void>>();
  private readonly scratch = new Uint32Array(2);
  private readonly maxCachedHosts: number;
  private readonly dnsWaitMs: number;
  /** Lookups under way, by host name. */
  private readonly lookups = new Map<string, Promise<void>>();

  constructor(private readonly options: AdmissionOptions) {
    this.maxCachedHosts = options.maxCachedHosts ?? 100_000;
    this.dnsWaitMs = options.dnsWaitMs ?? DEFAULT_DNS_WAIT_MS;
  }

  /** Filters, tests and queues `candidates`; resolves once every new one is in the frontier. */
  admit(candidates: readonly Candidate[], options: AdmitOptions = {}): Promise<void> {
    if (options.isReceived === true) this.options.stats.links.received += candidates.length;
    const run = this.admitNow(candidates, options.isPlaced === true, options.fromPage);
    this.running.add(run);
    const forget = (): void => {
      this.running.delete(run);
    };
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
    await this.options.seen.addBatch(fingerprints);
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

  /**
   * Resolves the host names of `candidates` not resolved yet, waiting `waitMs` at most (partitioners
   * that place by address wait for every answer). Lookups still running when the wait ends go on,
   * and their answers are remembered; a name whose lookup is under way is not waited for again when
   * there is a limit.
   */
  async resolveHosts(candidates: readonly Candidate[], waitMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.options.isProxied) return;
    const isBounded = waitMs !== Number.POSITIVE_INFINITY;
    const waitFor: Promise<void>[] = [];
    const asked = new Set<string>();
    for (const c of candidates) {
      const name = c.hostname;
      if (this.ips.has(name) || asked.has(name)) continue;
      asked.add(name);
      const running = this.lookups.get(name);
      if (running !== undefined) {
        if (!isBounded) waitFor.push(running);
        continue;
      }
      const lookup = this.lookUp(name);
      this.lookups.set(name, lookup);
      waitFor.push(lookup);
    }
    if (waitFor.length === 0) return;
    const all = Promise.all(waitFor);
    if (!isBounded) {
      await all;
      return;
    }
    // On the node's clock, so that a crawl on a manual clock waits in its own time.
    const stop = new AbortController();
    await Promise.race([all, this.options.clock.sleepUntil(this.options.clock.nowMs() + waitMs, stop.signal)]);
    stop.abort();
  }

  private async admitNow(candidates: readonly Candidate[], isPlaced: boolean, fromPage?: Placement): Promise<void> {
    const o = this.options;
    const stats = o.stats;
    let passed: Candidate[] = [];
    const numbered = o.numbered ?? null;
    /** The numbered-space key of each passed candidate that is a numbered sibling of its page. */
    const siblings = new Map<Candidate, string>();
    let from: { readonly url: string; readonly hostKey: string; readonly pathAndQuery: string } | null = null;
    // A page links to the same URL many times (two thirds of the links of a documentation site):
    // within a batch, a URL met again with the same depth and source takes the decision it had.
    // Filters are pure and a numbered space's admitted count changes only after the seen test, so
    // the decision is the same; each candidate is still counted, and goes on to the seen test.
    const decided = new Map<string, Decision>();
    for (const c of candidates) {
      let d = decided.get(c.url);
      if (d === undefined || d.depth !== c.depth || d.fromUrl !== c.fromUrl || d.isSitemap !== (c.isSitemap === true)) {
        d = { depth: c.depth, fromUrl: c.fromUrl, isSitemap: c.isSitemap === true, rejected: null, sibling: null };
        if (o.filter !== null && c.isSitemap !== true) {
          const verdict = o.filter.check({ url: c.url, host: c.hostname, depth: c.depth });
          if (!verdict.isAccepted) d.rejected = verdict.reason;
        }
        if (d.rejected === null && numbered !== null && c.fromUrl !== null && c.isSitemap !== true) {
          // The links of one page come in one batch: its parts are taken once.
          if (from === null || from.url !== c.fromUrl) from = { url: c.fromUrl, ...urlParts(c.fromUrl) };
          const to = urlParts(c.url);
          const key = numbered.keyOf(to.hostKey, to.pathAndQuery, from.hostKey, from.pathAndQuery);
          // Checked before the URL-seen test: a URL cut here is still admitted when an index links it.
          d.sibling = key;
          if (key !== null && !numbered.admits(key)) d.rejected = RejectReason.trapNumbered;
        }
        decided.set(c.url, d);
      } else if (d.rejected === RejectReason.trapNumbered && d.sibling !== null) {
        numbered?.admits(d.sibling); // counts this cut too, as it counted the first
      }
      if (d.rejected !== null) {
        stats.filteredBy(d.rejected);
        continue;
      }
      if (d.sibling !== null) siblings.set(c, d.sibling);
      passed.push(c);
    }
    const router = o.router ?? null;
    if (router !== null && !isPlaced && passed.length > 0) {
      if (router.needsIp) await this.resolveHosts(passed);
      const placed = passed.length;
      passed = router.route(passed, this.ipOf, fromPage);
      stats.links.routed += placed - passed.length;
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
      const sibling = siblings.get(c);
      if (sibling !== undefined) numbered?.add(sibling);
      const parts = urlParts(c.url);
      const rules = o.robots.peekRules(parts.origin, now);
      if (rules !== null && !rules.isAllowed(parts.pathAndQuery)) {
        stats.links.robotsDenied++;
        o.onRobotsDenied(c);
        continue;
      }
      fresh.push(c);
      if (o.urlIds === null) freshIds.push(-1);
      else
        freshIds.push(
          c.id !== undefined && c.id >= 0 ? c.id : o.urlIds.idOfFingerprint(words[2 * i + HI] as number, words[2 * i + LO] as number),
        );
    }
    await this.resolveHosts(fresh, this.dnsWaitMs);
    const addAt = o.clock.nowMs();
    let added = 0;
    for (let i = 0; i < fresh.length; i++) {
      const c = fresh[i] as Candidate;
      const priority = o.policy.prioritize({
        id: freshIds[i] as number,
        url: c.url,
        depth: c.depth,
        ...(c.fromId === undefined || c.fromId < 0 ? {} : { fromId: c.fromId }),
        ...(c.anchorText === undefined || c.anchorText === '' ? {} : { anchorText: c.anchorText }),
      });
      const ip = this.ips.get(c.hostname);
      const entry: NodeEntry = {
        url: c.url,
        host: hostKeyOf(c.url),
        depth: c.depth,
        priority,
        fromUrl: c.fromUrl,
        ...(ip === undefined ? {} : { ip }),
        ...(c.isSitemap === true ? { isSitemap: true } : {}),
      };
      if (o.frontier.add(entry, addAt)) added++;
      else stats.links.seenBefore++; // held by the frontier already (a URL re-added after a crash)
    }
    stats.links.queued += added;
    if (added > 0) o.waker.notify();
  }

  /**
   * Looks `name` up and remembers its address (a failure is left to the fetch, which meets it
   * again). Never rejects: a resolver that throws counts as a failed lookup.
   */
  private async lookUp(name: string): Promise<void> {
    // Settles after the caller has registered it in `lookups`, even if the resolver throws at once.
    await Promise.resolve();
    try {
      const answer = await this.options.resolver.resolve(name);
      if (answer.kind !== 'ok') return;
      this.ips.set(name, answer.ip);
      if (this.ips.size > this.maxCachedHosts) {
        const oldest = this.ips.keys().next().value;
        if (oldest !== undefined) this.ips.delete(oldest);
      }
    } catch {
      // The resolver broke its contract; the fetch will report the name's failure.
    } finally {
      this.lookups.delete(name);
    }
  }
}
