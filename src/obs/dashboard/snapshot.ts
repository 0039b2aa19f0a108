/**
 * What the dashboard sends: one {@link DashboardSnapshot}, the whole state of the crawl as the
 * dashboard knows it, as JSON (`/api/state`, and every second on `/events`). Plain values only, so the
 * page, tests and scripts read the same figures.
 */
import type { CrawlOutcomeKind } from '../../store/records.js';
import type { CrawlProgress, ExchangeProgress, FrontierProgress, StopReason } from '../events.js';

/** Where the figures come from. */
export const DashboardSource = {
  /** The diagnostics channels of this process (`shoal crawl --dashboard`, `shoal node --dashboard`). */
  local: 'local',
  /** The statistics every node of a distributed crawl publishes in its NATS bucket (`shoal dashboard`). */
  nats: 'nats',
} as const;
export type DashboardSource = (typeof DashboardSource)[keyof typeof DashboardSource];

/** Counts that add up over nodes. */
export interface CrawlFigures {
  /** URLs whose crawl ended (any outcome). */
  readonly urls: number;
  /** URLs that got an HTTP response. */
  readonly pages: number;
  /** Body bytes received. */
  readonly bytes: number;
  /** Pages per second over the last progress interval. */
  readonly pagesPerSecond: number;
  /** Bytes per second over the last progress interval. */
  readonly bytesPerSecond: number;
  /** Pages per second since the start. */
  readonly meanPagesPerSecond: number;
  readonly frontier: FrontierProgress;
  /** Hosts contacted (over nodes: the sum of each node's count). */
  readonly hosts: number;
  /** URLs by how their crawl ended: `ok` and every other outcome kind seen. */
  readonly outcomes: Readonly<Partial<Record<CrawlOutcomeKind, number>>>;
  /** Hosts failing before any answer, and given up. */
  readonly unreachable: { readonly failing: number; readonly givenUp: number; readonly hosts: readonly string[] };
}

/** One node of the crawl. */
export interface NodeView extends CrawlFigures {
  readonly id: string;
  /** Since the node's run started, ms. */
  readonly elapsedMs: number;
  /** Set once the node stopped. */
  readonly stopReason: StopReason | null;
  /** Its traffic with the other nodes; null for a node on its own. */
  readonly exchange: ExchangeProgress | null;
  /** Wall-clock time of its latest figures, ms since the epoch. */
  readonly updatedAtMs: number;
  /** In a distributed crawl: the partitions it owns, and whether it is idle; null otherwise. */
  readonly partitions: readonly number[] | null;
  readonly isIdle: boolean | null;
}

/**
 * The partition metrics of SPEC §5 so far: the crawl's live figures (`CrawlProgress.collab`) in an
 * embedded crawl (`from: 'crawl'`); in a distributed one, what the nodes' counts give (`from:
 * 'nodes'`: load balance and URLs per page, the rest null).
 */
export type PartitionView = Omit<CollabFigures, 'uniquePages' | 'overlap'> & {
  readonly from: 'crawl' | 'nodes';
  readonly uniquePages: number | null;
  /** (N − I)/N. */
  readonly overlap: number | null;
};

/** The live collaboration figures of a crawl-wide progress event. */
type CollabFigures = NonNullable<CrawlProgress['collab']>;

/**
 * The traffic between nodes. `nodes` lists each node's totals (from its progress); `matrix`, when
 * fetch records are seen, counts the pages node j fetched that were found on a page node i fetched
 * (`matrix[i][j]`, i ≠ j: the URLs handed from i to j that were crawled), over the URLs still in the
 * dashboard's window of recent discoveries.
 */
export interface ExchangeView {
  readonly nodes: readonly (ExchangeProgress & { readonly id: string })[];
  readonly matrix: { readonly nodes: readonly string[]; readonly counts: readonly (readonly number[])[] } | null;
}

/** A host by how long its fetches took. */
export interface SlowHost {
  readonly host: string;
  readonly fetches: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** The node that fetched it last. */
  readonly node: string;
}

/** A URL whose crawl ended in an error. */
export interface RecentError {
  readonly timeMs: number;
  readonly node: string;
  readonly url: string;
  readonly kind: CrawlOutcomeKind;
  readonly status: number | null;
  readonly reason: string | null;
}

/** The test web's coverage as the crawl grows, against its truth (`cluster.truthDir`). */
export interface TruthView {
  /** Truth pages a polite crawler reaches from the seeds. */
  readonly reachable: number;
  /** Of those, pages downloaded so far. */
  readonly downloaded: number;
  /** downloaded / reachable. */
  readonly coverage: number | null;
  /** Share of the reachable pages' PageRank held by the downloaded ones (weighted coverage). */
  readonly weightedCoverage: number | null;
}

/** The time series, aligned on `t`; older points are merged as the crawl goes on (see bounded-series.ts). */
export interface SeriesView {
  /** Wall-clock times, ms since the epoch. */
  readonly t: readonly number[];
  /** Column by name: `pps:<node>`, `bps:<node>`, `queued:<node>`, `pps`, `bps`, `queued`, `overlap`, `coverage`, ... */
  readonly columns: Readonly<Record<string, readonly (number | null)[]>>;
  /** Seconds one point stands for (doubles each time the series is compacted). */
  readonly stepSeconds: number;
}

/** The dashboard's whole state. */
export interface DashboardSnapshot {
  readonly version: 1;
  /** When it was taken, ms since the epoch. */
  readonly atMs: number;
  readonly crawl: {
    readonly id: string;
    readonly source: DashboardSource;
    readonly outDir: string | null;
    /** Since the crawl started, ms (the longest-running node's). */
    readonly elapsedMs: number;
    /** The crawl's stop reason, once every node has one. */
    readonly stopReason: StopReason | null;
  };
  readonly totals: CrawlFigures;
  readonly nodes: readonly NodeView[];
  readonly exchange: ExchangeView;
  readonly partition: PartitionView | null;
  readonly slowHosts: readonly SlowHost[];
  readonly recentErrors: readonly RecentError[];
  readonly truth: TruthView | null;
  readonly series: SeriesView;
}
