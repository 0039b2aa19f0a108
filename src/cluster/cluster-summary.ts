/**
 * The figures of a collaborative crawl as a whole: its nodes' summaries and progress events added
 * up, so that `shoal crawl --nodes N` reports like a crawl of one node (plus the per-node detail).
 */
import type { CrawlSummary, LinkCounts } from '../node/crawl-stats.js';
import type { BudgetUse, CrawlProgress, StopReason } from '../obs/events.js';

function addRecords(records: readonly Readonly<Record<string, number | undefined>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + (v ?? 0);
  return out;
}

const sum = <T>(items: readonly T[], of: (t: T) => number): number => items.reduce((a, t) => a + of(t), 0);

/** The crawl's summary: every count added over the nodes, rates over the whole run's time. */
export function combineSummaries(
  node: string,
  outDir: string,
  stopReason: StopReason,
  elapsedMs: number,
  nodes: readonly CrawlSummary[],
): CrawlSummary {
  const seconds = elapsedMs / 1000;
  const pages = sum(nodes, (s) => s.pages);
  const bytes = sum(nodes, (s) => s.bytes);
  const links: LinkCounts = {
    found: sum(nodes, (s) => s.links.found),
    invalid: sum(nodes, (s) => s.links.invalid),
    notFollowed: sum(nodes, (s) => s.links.notFollowed),
    filtered: addRecords(nodes.map((s) => s.links.filtered)),
    seenBefore: sum(nodes, (s) => s.links.seenBefore),
    robotsDenied: sum(nodes, (s) => s.links.robotsDenied),
    queued: sum(nodes, (s) => s.links.queued),
    routed: sum(nodes, (s) => s.links.routed),
    received: sum(nodes, (s) => s.links.received),
  };
  return {
    // Every node of a crawl orders by the same configuration section.
    node,
    outDir,
    order: nodes[0]?.order ?? { id: 'bfs', params: {} },
    stopReason,
    elapsedMs,
    urls: sum(nodes, (s) => s.urls),
    pages,
    pagesPerSecond: seconds > 0 ? pages / seconds : 0,
    bytes,
    bytesPerSecond: seconds > 0 ? bytes / seconds : 0,
    outcomes: addRecords(nodes.map((s) => s.outcomes)),
    requests: sum(nodes, (s) => s.requests),
    robotsRequests: sum(nodes, (s) => s.robotsRequests),
    retries: sum(nodes, (s) => s.retries),
    duplicates: sum(nodes, (s) => s.duplicates),
    revisits: sum(nodes, (s) => s.revisits),
    nearDuplicates: sum(nodes, (s) => s.nearDuplicates),
    ...(nodes.every((s) => s.recrawl === undefined)
      ? {}
      : {
          recrawl: {
            scheduled: sum(nodes, (s) => s.recrawl?.scheduled ?? 0),
            queued: sum(nodes, (s) => s.recrawl?.queued ?? 0),
            notModified: sum(nodes, (s) => s.recrawl?.notModified ?? 0),
            unchanged: sum(nodes, (s) => s.recrawl?.unchanged ?? 0),
            changed: sum(nodes, (s) => s.recrawl?.changed ?? 0),
          },
        }),
    analysisFailures: sum(nodes, (s) => s.analysisFailures),
    links,
    sitemaps: {
      documents: sum(nodes, (s) => s.sitemaps.documents),
      urls: sum(nodes, (s) => s.sitemaps.urls),
      children: sum(nodes, (s) => s.sitemaps.children),
      problems: sum(nodes, (s) => s.sitemaps.problems),
    },
    hosts: sum(nodes, (s) => s.hosts),
    frontierLeft: {
      queued: sum(nodes, (s) => s.frontierLeft.queued),
      inFlight: sum(nodes, (s) => s.frontierLeft.inFlight),
      parked: sum(nodes, (s) => s.frontierLeft.parked),
    },
    seenUrls: sum(nodes, (s) => s.seenUrls),
    warcFiles: nodes.flatMap((s) => s.warcFiles).sort(),
    cutSpaces: nodes
      .flatMap((s) => s.cutSpaces)
      .sort((a, b) => b.cut - a.cut)
      .slice(0, 10),
    unreachableHosts: nodes
      .flatMap((s) => s.unreachableHosts)
      .sort((a, b) => Number(b.isGivenUp) - Number(a.isGivenUp) || b.failures - a.failures)
      .slice(0, 10),
    ...(nodes.every((s) => s.recovered === undefined)
      ? {}
      : {
          recovered: {
            urls: sum(nodes, (s) => s.recovered?.urls ?? 0),
            followedPages: sum(nodes, (s) => s.recovered?.followedPages ?? 0),
            refetched: sum(nodes, (s) => s.recovered?.refetched ?? 0),
          },
        }),
  };
}

/** One progress event for the crawl: the latest event of every node added up (rates added too). */
export function combineProgress(
  node: string,
  elapsedMs: number,
  latest: readonly CrawlProgress[],
  stopReason: StopReason | null,
): CrawlProgress {
  return {
    node,
    elapsedMs,
    urls: sum(latest, (p) => p.urls),
    pages: sum(latest, (p) => p.pages),
    pagesPerSecond: sum(latest, (p) => p.pagesPerSecond),
    recentPagesPerSecond: sum(latest, (p) => p.recentPagesPerSecond),
    bytes: sum(latest, (p) => p.bytes),
    bytesPerSecond: sum(latest, (p) => p.bytesPerSecond),
    frontier: {
      queued: sum(latest, (p) => p.frontier.queued),
      inFlight: sum(latest, (p) => p.frontier.inFlight),
      activeHosts: sum(latest, (p) => p.frontier.activeHosts),
      parked: sum(latest, (p) => p.frontier.parked),
      readyHosts: sum(latest, (p) => p.frontier.readyHosts),
      waitingHosts: sum(latest, (p) => p.frontier.waitingHosts),
      backoffs: sum(latest, (p) => p.frontier.backoffs),
    },
    hosts: sum(latest, (p) => p.hosts),
    errors: addRecords(latest.map((p) => p.errors)),
    stopReason,
    robots: {
      requests: sum(latest, (p) => p.robots.requests),
      bytes: sum(latest, (p) => p.robots.bytes),
      results: addRecords(latest.map((p) => p.robots.results)),
    },
    ...combinedBudget(latest),
    exchange: {
      urlsSent: sum(latest, (p) => p.exchange?.urlsSent ?? 0),
      urlsReceived: sum(latest, (p) => p.exchange?.urlsReceived ?? 0),
      pagesSent: sum(latest, (p) => p.exchange?.pagesSent ?? 0),
      pagesReceived: sum(latest, (p) => p.exchange?.pagesReceived ?? 0),
      bytesSent: sum(latest, (p) => p.exchange?.bytesSent ?? 0),
      bytesReceived: sum(latest, (p) => p.exchange?.bytesReceived ?? 0),
      unconfirmed: sum(latest, (p) => p.exchange?.unconfirmed ?? 0),
      batchedUrls: sum(latest, (p) => p.exchange?.batchedUrls ?? 0),
      partitions: latest.flatMap((p) => p.exchange?.partitions ?? []).sort((a, b) => a - b),
    },
    ...(latest.every((p) => p.unreachable === undefined)
      ? {}
      : {
          unreachable: {
            failing: sum(latest, (p) => p.unreachable?.failing ?? 0),
            givenUp: sum(latest, (p) => p.unreachable?.givenUp ?? 0),
            hosts: latest.flatMap((p) => p.unreachable?.hosts ?? []).slice(0, 3),
          },
        }),
  };
}

/**
 * The crawl's budget from its nodes': the page fetches all nodes share one count (the most recent
 * node's is the highest) and are spent at the sum of their rates; each node spends its own bytes,
 * so the crawl's are those of the node that will reach the limit first.
 */
function combinedBudget(latest: readonly CrawlProgress[]): Pick<CrawlProgress, 'budget'> {
  const budgets = latest.flatMap((p) => (p.budget === undefined ? [] : [p.budget]));
  if (budgets.length === 0) return {};
  const pages = budgets.flatMap((b) => (b.pages === null ? [] : [b.pages]));
  const bytes = budgets.flatMap((b) => (b.bytes === null ? [] : [b.bytes]));
  const secondsLeft = (u: BudgetUse): number => (u.perSecond > 0 ? (u.limit - u.used) / u.perSecond : Infinity);
  return {
    budget: {
      pages:
        pages.length === 0
          ? null
          : { used: Math.max(...pages.map((u) => u.used)), limit: pages[0]?.limit ?? 0, perSecond: sum(pages, (u) => u.perSecond) },
      bytes: bytes.reduce<BudgetUse | null>(
        (soonest, u) => (soonest === null || secondsLeft(u) < secondsLeft(soonest) ? u : soonest),
        null,
      ),
    },
  };
}
