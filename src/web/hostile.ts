/**
 * Where a test web's hostile behaviours are: drip pages, trap hosts by kind, hosts that refuse
 * connections. Crawl tests check a crawl against it (docs/test-web.md §5.19): every ordinary page of
 * a host with hostile URLs fetched, no trap entered past the crawler's bound, no request for a
 * refusing host. The truth export carries the same facts (`kind` = `drip` in pages.tsv; `trap`,
 * `trap_blocked` and `refuses` in hosts.tsv).
 */
import { TRAP_KINDS } from './config.js';
import type { TrapKind } from './hosts.js';
import { PageKind, type WebModel } from './model.js';

/** The hostile parts of one test web; every list in ascending order. */
export interface HostileParts {
  /** Page ids of the drip pages. */
  readonly dripPages: readonly number[];
  /** Host indexes holding each kind of trap (blocked by robots.txt or not; mirrors included). */
  readonly trapHosts: Readonly<Record<TrapKind, readonly number[]>>;
  /** Host indexes whose trap robots.txt disallows. */
  readonly blockedTrapHosts: readonly number[];
  /** Host indexes that refuse every connection. */
  readonly refusingHosts: readonly number[];
  /**
   * Hosts that answer and serve hostile URLs: a drip page or a trap. Their other pages are the
   * ordinary pages a crawl must still fetch.
   */
  readonly hostileHosts: readonly number[];
}

/** Lists the hostile parts of `model`. */
export function hostileParts(model: WebModel): HostileParts {
  const dripPages: number[] = [];
  const hostile = new Set<number>();
  for (let g = 0; g < model.pageCount; g++) {
    if (model.pageKind[g] !== PageKind.drip) continue;
    dripPages.push(g);
    const h = model.hostOf(g);
    if (!h.isRefusing) hostile.add(h.index);
  }
  const trapHosts = Object.fromEntries(TRAP_KINDS.map((k) => [k, [] as number[]])) as Record<TrapKind, number[]>;
  const blockedTrapHosts: number[] = [];
  const refusingHosts: number[] = [];
  for (const h of model.hosts) {
    if (h.isRefusing) refusingHosts.push(h.index);
    if (h.trap === null) continue;
    trapHosts[h.trap].push(h.index);
    if (h.robotsBlocksTrap) blockedTrapHosts.push(h.index);
    if (!h.isRefusing) hostile.add(h.index);
  }
  return { dripPages, trapHosts, blockedTrapHosts, refusingHosts, hostileHosts: [...hostile].sort((a, b) => a - b) };
}
