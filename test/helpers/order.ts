/**
 * Crawling small fixture webs with an ordering policy, for the policy tests (test/unit/order/): a
 * MemoryFrontier on a manual clock, the node's URL ids and its way of applying priority changes
 * (src/node/stages/priority-changes.ts), and the call order of the Contract (observe, then prioritize each
 * new out-link). Each test draws its graph in a comment and lists the expected order. Also the
 * changes a policy returns, as a plain object for deepEqual.
 */
import assert from 'node:assert/strict';
import { MemoryFrontier, type MemoryFrontierOptions } from '../../src/frontier/memory-frontier.js';
import { applyPriorityChanges } from '../../src/node/stages/priority-changes.js';
import type { OrderingPolicy, PriorityChanges } from '../../src/order/policy.js';
import { UrlIds } from '../../src/url/url-ids.js';

/** A policy's changes as `{ id: priority }`; fails if one id comes twice (the Contract promises one entry per id). */
export function changesOf(c: PriorityChanges): Record<number, number> {
  const out: Record<number, number> = {};
  for (let i = 0; i < c.length; i++) {
    const id = c.ids[i] as number;
    assert.ok(!(id in out), `two changes for id ${id}`);
    out[id] = c.priorities[i] as number;
  }
  return out;
}

/** A fixture web: page URL -> out-links. */
export type FixtureWeb = Readonly<Record<string, readonly string[]>>;

/** Options of {@link crawlFixture}. */
export interface FixtureCrawlOptions {
  /** Frontier options; default: no delay at all (min delay 0, k = 0), so only the policy orders. */
  readonly frontier?: MemoryFrontierOptions;
  /** Virtual duration of each fetch, ms. Default 10. */
  readonly fetchMs?: number;
  /** Anchor text of the link from page `from` to `to`; default: the target's last path segment. */
  readonly anchor?: (from: string, to: string) => string;
  /** Title and text of a fetched page; default none. */
  readonly content?: (url: string) => { readonly title?: string; readonly text?: string };
  /** Stop after this many fetches. Default: crawl everything reachable. */
  readonly maxPages?: number;
}

/**
 * Crawls `web` from `seeds` with one fetch slot and returns the URLs in fetch order. The URL-seen test
 * is a Set; links to pages the web does not list are fetched as pages without links.
 */
export function crawlFixture(
  web: FixtureWeb,
  seeds: readonly string[],
  policy: OrderingPolicy,
  options: FixtureCrawlOptions = {},
): string[] {
  const frontier = new MemoryFrontier(options.frontier ?? { minDelayMs: 0, delayFactor: 0 });
  const fetchMs = options.fetchMs ?? 10;
  const anchorOf = options.anchor ?? ((_from: string, to: string) => to.split('/').pop() ?? '');
  const ids = new UrlIds();
  let nowMs = 0;
  const seen = new Set<string>();
  const depthOf = new Map<string, number>();
  const hostOf = (url: string): string => new URL(url).host;
  const queue = (url: string, depth: number, from: string | null): void => {
    seen.add(url);
    depthOf.set(url, depth);
    const anchorText = from === null ? '' : anchorOf(from, url);
    const priority = policy.prioritize({
      id: ids.idOf(url),
      url,
      depth,
      ...(from === null ? {} : { fromId: ids.idOf(from) }),
      ...(anchorText === '' ? {} : { anchorText }),
    });
    frontier.add({ url, host: hostOf(url), depth, priority }, nowMs);
  };
  for (const seed of seeds) if (!seen.has(seed)) queue(seed, 0, null);
  const order: string[] = [];
  for (let guard = 0; guard < 100_000; guard++) {
    if (options.maxPages !== undefined && order.length >= options.maxPages) return order;
    const next = frontier.next(nowMs);
    if (next.kind === 'empty') return order;
    if (next.kind === 'wait') {
      nowMs = next.untilMs;
      continue;
    }
    const { lease } = next;
    const url = lease.entry.url;
    order.push(url);
    nowMs += fetchMs;
    const depth = depthOf.get(url) as number;
    const links = web[url] ?? [];
    const content = options.content?.(url) ?? {};
    const changes = policy.observe({
      id: ids.idOf(url),
      url,
      depth,
      outIds: links.map((l) => ids.idOf(l)),
      outUrls: links,
      anchors: links.map((l) => anchorOf(url, l)),
      ...(content.title === undefined ? {} : { title: content.title }),
      ...(content.text === undefined ? {} : { text: content.text }),
    });
    applyPriorityChanges(changes, ids, frontier);
    for (const link of links) if (!seen.has(link)) queue(link, depth + 1, url);
    frontier.complete(lease, { fetchDurationMs: fetchMs }, nowMs);
  }
  assert.fail('the fixture crawl did not finish');
}
