/**
 * What a fetch slot knows of a leased URL's host name before it asks robots.txt and fetches
 * (fetch-loop.ts): whether the name is known not to resolve, whether its answer is still being
 * waited for, or neither (the fetch goes on and resolves the name itself, from the cache).
 *
 * A slot waits `waitMs` at most for a name with no answer at hand (resolver `peek`): a name server
 * that is slow, or silent, must not hold the slot while other hosts wait. The lookup goes on in the
 * resolver, and its answer, even a failure, is at hand the next time the host's URL is leased.
 *
 * A definite answer that the name has no address (`isUnresolvable`: NXDOMAIN, no address record,
 * not in the hosts map) makes the host `unresolvable`. A failure that may pass (a name server that
 * timed out or failed) does not: the fetch meets it and its host backs off like any host that does
 * not answer (robots-cache.ts, host-reachability.ts).
 */
import type { Clock } from '../../core/clock.js';
import { isUnresolvable, type ResolveResult, type Resolver } from '../../dns/resolver.js';

/** What a slot does about a host's name; see the file comment. */
export type NameVerdict =
  /** An address at hand, a failure that may pass, or nothing to check (no resolver, or one that cannot `peek`): go on. */
  | { readonly kind: 'go' }
  /** No answer within the wait: the URL goes back to its queue. */
  | { readonly kind: 'pending' }
  /** The name has no address, for certain: the URL ends without a request. `code`: the resolver's (`ENOTFOUND`, ...). */
  | { readonly kind: 'unresolvable'; readonly code: string };

const GO: NameVerdict = { kind: 'go' };
const PENDING: NameVerdict = { kind: 'pending' };

/** See the file comment. */
export class NameCheck {
  /** Answers that came after a slot stopped waiting for them, by host name (null: the resolver broke its contract and threw). */
  private readonly lateAnswers = new Map<string, ResolveResult | null>();

  /**
   * @param resolver the resolver the fetcher asks; null when names are not checked (a proxy resolves them).
   * @param waitMs how long a slot waits for an answer not at hand, ms.
   */
  constructor(
    private readonly resolver: Resolver | null,
    private readonly clock: Clock,
    private readonly waitMs: number,
  ) {}

  /** What to do about `hostname` now; waits `waitMs` at most. */
  async verdict(hostname: string): Promise<NameVerdict> {
    const resolver = this.resolver;
    if (resolver === null || resolver.peek === undefined) return GO;
    const atHand = resolver.peek(hostname);
    if (atHand !== null) return this.verdictOf(atHand);
    // An answer that came after a wait decides for the next URL of the host, even if it is not at
    // hand any more (a TTL of 0, or shorter than the retry): an address lets the fetch look the name
    // up itself, within the fetcher's own limits. Without this, such a host would go back to its
    // queue forever.
    const late = this.lateAnswers.get(hostname);
    if (late !== undefined) {
      this.lateAnswers.delete(hostname);
      return this.verdictOf(late);
    }
    const stop = new AbortController();
    const lookup = resolver.resolve(hostname).then(
      (answer) => answer,
      () => null,
    );
    const answer = await Promise.race([lookup, this.clock.sleepUntil(this.clock.nowMs() + this.waitMs, stop.signal).then(() => undefined)]);
    stop.abort();
    if (answer === undefined) {
      void lookup.then((a) => this.lateAnswers.set(hostname, a));
      return PENDING;
    }
    return this.verdictOf(answer);
  }

  private verdictOf(answer: ResolveResult | null): NameVerdict {
    return isUnresolvable(answer) ? { kind: 'unresolvable', code: answer.code } : GO;
  }
}
