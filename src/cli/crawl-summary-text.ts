/** The summary `shoal crawl` and `shoal node` print when a crawl ends. */
import { specLabel } from '../core/strings.js';
import type { CrawlSummary, NodeExchangeSummary } from '../node/crawl-stats.js';
import { describeFailure } from '../node/stages/host-reachability.js';
import { fmt, megabytes, sumOf } from './format.js';

const STOPPED: Readonly<Record<CrawlSummary['stopReason'], string>> = {
  exhausted: 'done: the frontier is empty',
  'max-pages': 'done: --max-pages reached',
  'max-bytes': 'done: limits.maxBytes reached',
  interrupted: 'interrupted: stopped cleanly, stores flushed',
};

/** The summary printed at the end. */
export function summaryText(s: CrawlSummary, command = 'crawl'): string {
  const outcomes = Object.entries(s.outcomes)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([k, n]) => `${k} ${fmt(n ?? 0)}`)
    .join(', ');
  const l = s.links;
  const filtered = Object.entries(l.filtered)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  const filteredTotal = sumOf(filtered, ([, n]) => n ?? 0);
  const filteredList = filtered.map(([reason, n]) => `${reason} ${fmt(n ?? 0)}`).join(', ');
  const lines = [
    `shoal ${command}: ${STOPPED[s.stopReason]} after ${(s.elapsedMs / 1000).toFixed(1)} s`,
    `  pages       ${fmt(s.pages)} (${s.pagesPerSecond.toFixed(1)} pages/s, ${megabytes(s.bytesPerSecond)}/s, ${megabytes(s.bytes)} in all)`,
    `  urls        ${fmt(s.urls)}: ${outcomes === '' ? 'none' : outcomes}`,
    `  requests    ${fmt(s.requests)} (${fmt(s.robotsRequests)} robots.txt, ${fmt(s.retries)} retries) to ${fmt(s.hosts)} hosts`,
    `  duplicates  ${fmt(s.duplicates)} exact (${fmt(s.revisits)} written as revisit records), ${fmt(s.nearDuplicates)} near-duplicates marked`,
    ...(s.recrawl === undefined
      ? []
      : [
          `  revisits    ${fmt(s.recrawl.queued)} queued: ${fmt(s.recrawl.changed)} changed, ${fmt(s.recrawl.unchanged)} unchanged, ` +
            `${fmt(s.recrawl.notModified)} not modified (304); ${fmt(s.recrawl.scheduled)} pages scheduled`,
        ]),
    `  links       ${fmt(l.found)} found${l.received > 0 ? ` + ${fmt(l.received)} received` : ''}: ${fmt(l.queued)} queued, ${fmt(l.seenBefore)} seen before,` +
      ` ${fmt(filteredTotal)} filtered, ${fmt(l.robotsDenied)} disallowed, ${fmt(l.notFollowed)} nofollow, ${fmt(l.invalid)} invalid` +
      (l.routed > 0 ? `, ${fmt(l.routed)} sent to other nodes` : ''),
    ...(filteredTotal === 0 ? [] : [`  filtered    ${filteredList}`]),
    ...(s.unreachableHosts.length === 0 ? [] : [`  unreachable ${s.unreachableHosts.map(unreachableText).join('; ')}`]),
    ...(s.cutSpaces.length === 0
      ? []
      : [
          `  traps cut   ${s.cutSpaces.map((c) => `${c.host}${c.form} (${fmt(c.cut)} past ${fmt(c.admitted)})`).join(', ')}: ` +
            `endless numbered spaces (filter.traps.maxNumberedUrls)`,
        ]),
    ...(s.recovered === undefined
      ? []
      : [
          `  recovered   ${fmt(s.recovered.urls)} URLs done after the last checkpoint of a killed run (links of ${fmt(s.recovered.followedPages)} pages queued again;` +
            ` ${fmt(s.recovered.refetched)} to fetch again)`,
        ]),
    ...(s.sitemaps.documents === 0
      ? []
      : [
          `  sitemaps    ${fmt(s.sitemaps.documents)} read: ${fmt(s.sitemaps.urls)} page URLs, ` +
            `${fmt(s.sitemaps.children)} child sitemaps, ${fmt(s.sitemaps.problems)} not sitemaps`,
        ]),
    `  frontier    ${fmt(s.frontierLeft.queued)} queued${s.frontierLeft.parked > 0 ? ` (${fmt(s.frontierLeft.parked)} of them parked on disk)` : ''}, ` +
      `${fmt(s.frontierLeft.inFlight)} in flight; ${fmt(s.seenUrls)} URLs seen in all`,
    `  order       ${specLabel(s.order)}`,
    `  output      ${s.outDir} (${s.warcFiles.length === 0 ? 'no new WARC records' : s.warcFiles.length > 4 ? `${s.warcFiles.length} WARC files` : s.warcFiles.join(', ')})`,
    ...(s.cluster === undefined
      ? []
      : [
          `  nodes       ${s.cluster.nodes.length}, ${s.cluster.partitioner.id}: ${s.cluster.nodes.map((n) => `${n.node} ${fmt(n.pages)}`).join(', ')} pages`,
          `  exchange    ${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.router.sent ?? 0))} URLs sent to other nodes` +
            ` (${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.router.cached ?? 0))} not sent again: sent lately),` +
            ` ${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.endpoint.sent.pages ?? 0))} pages forwarded`,
          ...sharedLines(s.cluster.nodes),
        ]),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * What the nodes received besides URLs and pages, when they received any: link summaries (and the
 * queued URLs whose priority they changed) and the fingerprints of pages other nodes kept (and those
 * new to the near-duplicate index).
 */
function sharedLines(nodes: NonNullable<CrawlSummary['cluster']>['nodes']): string[] {
  const inbox = (pick: (i: NodeExchangeSummary['inbox']) => number): number =>
    sumOf(nodes, (n) => (n.exchange === undefined ? 0 : pick(n.exchange.inbox)));
  const summaries = inbox((i) => i.linkSummaries);
  const fingerprints = inbox((i) => i.simhashes);
  if (summaries === 0 && fingerprints === 0) return [];
  return [
    `  shared      ${fmt(summaries)} link summaries received (${fmt(inbox((i) => i.reprioritized))} queued URLs reprioritized), ` +
      `${fmt(fingerprints)} page fingerprints (${fmt(inbox((i) => i.simhashesTaken))} new to a near-duplicate index)`,
  ];
}

/** One unreachable host in the summary: its state, the failure in words and its code, the failures in a row. */
function unreachableText(h: CrawlSummary['unreachableHosts'][number]): string {
  return `${h.host} ${h.isGivenUp ? 'given up' : 'failing'}: ${describeFailure(h)} (${h.code}), ${fmt(h.failures)} in a row`;
}
