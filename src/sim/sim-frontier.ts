/**
 * Every frontier call the simulator makes, in one place: a node's frontier addressed by page ids
 * and host indexes, so that the simulated crawl is scheduled by the same frontier code as a real
 * crawl (`src/frontier/`: priority order, FIFO among equal priorities, per-host politeness
 * `next = now + max(minDelay, min(delayFactor × fetch time, maxDelay), Crawl-delay)`, connection limits per host and per
 * IP address) and the implementation behind it can be swapped here alone.
 *
 * It drives the frontier's scheduling core, `SlotFrontier`, directly: a page is the key (0, page
 * id), a host the name `h<index>`, so no string, entry or lease object is made per page. Completions
 * report the simulated fetch time and the host's Crawl-delay; nothing ever fails, retries or backs
 * off (the simulator models no errors).
 */
import type { ActivityCapOptions } from '../frontier/activity-cap.js';
import { NEXT_EMPTY, NEXT_WAIT, SlotFrontier, backQueueCountFor } from '../frontier/slot-frontier.js';
import type { PriorityChanges } from '../order/policy.js';

/** {@link SimFrontier.next}: nothing may be leased before {@link SimFrontier.waitUntilMs}. */
export const SIM_NEXT_WAIT = -1;
/** {@link SimFrontier.next}: nothing queued and nothing in flight. */
export const SIM_NEXT_EMPTY = -2;

/** Politeness and sizing of a simulated node's frontier. */
export interface SimFrontierOptions {
  /** Smallest gap between the end of one fetch and the next contact of a host, ms. */
  readonly minDelayMs: number;
  /** The gap is at least delayFactor × the last fetch time, up to `maxDelayMs`. */
  readonly delayFactor: number;
  /** Cap on the delayFactor × fetch-time part of the gap, ms. */
  readonly maxDelayMs: number;
  readonly maxConnectionsPerHost: number;
  readonly maxConnectionsPerIp: number;
  /** Fetch slots of the node: the frontier keeps 3 back queues per slot, as a crawl node does. */
  readonly fetchSlots: number;
  /** X4's per-host activity cap, as a crawl node's frontier applies it; absent or null: off. */
  readonly activityCap?: ActivityCapOptions | null;
  /** The address of a host, '' or undefined when unknown (then it is limited on its own). */
  readonly ipOf?: (host: number) => string | undefined;
}

/** A simulated node's frontier over page ids; see the file comment. */
export class SimFrontier {
  private readonly core: SlotFrontier;
  private readonly hostKeys: string[] = [];
  private readonly ipOf: (host: number) => string | undefined;
  /** The slot of each page in flight. */
  private readonly leased = new Map<number, number>();

  constructor(options: SimFrontierOptions) {
    this.core = new SlotFrontier({
      minDelayMs: options.minDelayMs,
      delayFactor: options.delayFactor,
      maxDelayMs: options.maxDelayMs,
      maxConnectionsPerHost: options.maxConnectionsPerHost,
      maxConnectionsPerIp: options.maxConnectionsPerIp,
      backQueueCount: backQueueCountFor(options.fetchSlots),
      activityCap: options.activityCap ?? null,
    });
    this.ipOf = options.ipOf ?? (() => undefined);
  }

  /** Queues page `pageId` of host `host`; false (and no change) if the page is already held. */
  add(pageId: number, host: number, priority: number, nowMs: number): boolean {
    let key = this.hostKeys[host];
    if (key === undefined) {
      key = `h${host}`;
      this.hostKeys[host] = key;
    }
    const ip = this.ipOf(host);
    return this.core.add(0, pageId, key, ip === '' ? undefined : ip, priority, nowMs) >= 0;
  }

  /**
   * Leases the best page that may be fetched at `nowMs`: its id, or {@link SIM_NEXT_WAIT} (see
   * {@link waitUntilMs}) or {@link SIM_NEXT_EMPTY}.
   */
  next(nowMs: number): number {
    const slot = this.core.next(nowMs);
    if (slot === NEXT_WAIT) return SIM_NEXT_WAIT;
    if (slot === NEXT_EMPTY) return SIM_NEXT_EMPTY;
    const pageId = this.core.slots.loOf(slot);
    this.leased.set(pageId, slot);
    return pageId;
  }

  /** After {@link next} said wait: the earliest time a host may be contacted (Infinity: when a fetch completes). */
  get waitUntilMs(): number {
    return this.core.waitUntilMs;
  }

  /** Ends the fetch of a leased page that took `fetchDurationMs`; its host's next contact follows the politeness rule. */
  complete(pageId: number, fetchDurationMs: number, crawlDelayMs: number, nowMs: number): void {
    const slot = this.leased.get(pageId);
    if (slot === undefined) throw new Error(`sim frontier: page ${pageId} is not in flight`);
    this.leased.delete(pageId);
    this.core.complete(slot, crawlDelayMs > 0 ? { fetchDurationMs, crawlDelayMs } : { fetchDurationMs }, nowMs);
  }

  /** Gives held pages new priorities, keeping their places among equal priorities; returns how many were held. */
  reprioritize(changes: PriorityChanges): number {
    return this.core.reprioritizeMany(changes.length, null, changes.ids, changes.priorities);
  }

  /** Pages queued (not in flight). */
  get queued(): number {
    return this.core.stats().queued;
  }
}
