/**
 * The composition root (CONVENTIONS §2): the one place where a crawl configuration becomes
 * components. Each component gets its section of the configuration and explicit collaborators
 * (`clock`, `log`, `events`); nothing else reads the configuration or builds its own collaborators.
 * Any component can be replaced (tests, the simulator, another frontier or store) through
 * {@link NodeComponents}.
 *
 * The wiring, in the order a URL meets it: seeds → {@link Admission} (URL filter, URL-seen set,
 * robots.txt already known, DNS for the per-IP limit, ordering policy) → frontier → {@link FetchLoop}
 * (robots.txt per origin, fetcher, politeness on completion) → {@link PageProcessor} (WARC, dedup,
 * parse, links back to admission; crawl log, link graph, page metadata).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shoalVersion } from './version.js';
import { availableParallelism } from 'node:os';
import { Admission } from './stages/admission.js';
import { SystemClock, type Clock } from '../core/clock.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import { CrawlBudget } from './durability/crawl-budget.js';
import { crawlDirLayout, expectCrawlDirKind, lockCrawlDir, type CrawlDirLayout, type CrawlDirLock } from '../store/crawl-dir.js';
import { Checkpointer, CompletionGate, type CheckpointExchange } from './durability/checkpoint.js';
import { CrawlNode, type Durability, type NodeCollaboration } from './crawl-node.js';
import { CrawlStats } from './crawl-stats.js';
import { DedupIndex } from './durability/dedup-index.js';
import { LogDedupStore } from './durability/dedup-store.js';
import { NearDuplicates } from './stages/near-duplicates.js';
import { keptPagesOf } from './durability/kept-pages.js';
import { SharedSimHashes } from './durability/shared-simhashes.js';
import { NumberedStore } from './durability/numbered-store.js';
import { HostReachability } from './stages/host-reachability.js';
import { diagnosticsEvents, type CrawlEvents, type StopReason } from '../obs/events.js';
import { FetchLoop, type PageCounter } from './stages/fetch-loop.js';
import { Inbox } from './collaboration/inbox.js';
import { PartitionRouter } from './collaboration/partition-router.js';
import { SimHashSharing } from './collaboration/simhash-sharing.js';
import { JsonLog, type Log } from '../obs/log.js';
import type { TopicLabelerOptions } from '../classify/topic-labeler.js';
import { InlinePageAnalyzer, WorkerPageAnalyzer, type PageAnalyzer, type TopicSetup } from './analysis/page-analyzer.js';
import { PageProcessor } from './stages/page-processor.js';
import type { WarcSink } from './stages/capture-records.js';
import { urlFilterChain } from './stages/filter-chain.js';
import type { CrawlSinks } from '../store/records.js';
import { RobotsCache } from './stages/robots-cache.js';
import { StagedSeenSet, type DurableSeenSet } from './durability/staged-seen-set.js';
import { loadSeeds, type Seeds } from './stages/seeds.js';
import { crawlDirSinks } from './store-sinks.js';
import { urlParts } from '../url/url-parts.js';
import { Waker } from './stages/waker.js';
import { ConfigError } from '../core/errors.js';
import { CachingResolver } from '../dns/caching-resolver.js';
import { HostsMap } from '../dns/hosts-map.js';
import { createServerLookup } from '../dns/server-lookup.js';
import type { Resolver } from '../dns/resolver.js';
import type { Exchange } from '../exchange/exchange.js';
import type { LinkSummaryMessage, SimHashBatchMessage } from '../exchange/messages.js';
import type { Fetcher } from '../fetch/fetcher.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';
import { fetchGapMs, politenessRules, type Frontier } from '../frontier/frontier.js';
import { MemoryFrontier, backQueueCountFor } from '../frontier/memory-frontier.js';
import { fifoShareFor, PersistentFrontier } from '../frontier-store/persistent-frontier.js';
import { RevisitStore } from '../frontier-store/revisit-store.js';
import { RevisitScheduler } from './stages/revisits.js';
import { canShareRank, canTellOutDegree, type OrderingPolicy } from '../order/policy.js';
import { orderingPolicyFrom } from '../order/registry.js';
import { defaultLinkSummaryIntervalMs } from '../partition/registry.js';
import { orderModelsOf } from './order-models.js';
import { UrlIds } from '../url/url-ids.js';
import { canPlacePages, type Partitioner, type PartitionId } from '../partition/partitioner.js';
import type { BoundaryPages } from './collaboration/page-forwarding.js';
import { DiskSeenSet } from '../seen/disk-seen-set.js';
import type { SeenSet } from '../seen/seen-set.js';
import { CRAWL_LOG_FILE } from '../store/crawl-log.js';
import { WarcWriter } from '../store/warc/warc-writer.js';
import { composeFilters, type UrlFilter } from '../url/filter/url-filter.js';
import { normalizeUrl } from '../url/normalize.js';

/** What every component may be given: time, logs and events (CONVENTIONS §7). */
export interface NodeDeps {
  /** Default: the system clock. */
  readonly clock: Clock;
  /** Default: JSON lines in `<out>/logs/node.jsonl`. */
  readonly log: Log;
  /** Default: the `shoal:crawl:*` diagnostics channels. */
  readonly events: CrawlEvents;
}

/** Components that replace the ones the configuration would build. */
export interface NodeComponents {
  readonly fetcher?: Fetcher;
  readonly resolver?: Resolver;
  readonly frontier?: Frontier;
  readonly seen?: SeenSet;
  readonly policy?: OrderingPolicy;
  /** URL filters and scope rules; default: the chain of the `filter` and `scope` sections; null: none. */
  readonly filter?: UrlFilter | null;
  /** Crawl log, link graph, page metadata; default: the stores the `store` section asks for, in the crawl directory. */
  readonly sinks?: CrawlSinks;
  /** The WARC store; null writes no WARC files. Default: a writer in `<out>/warc`. */
  readonly warc?: WarcWriter | null;
  /** Where pages are analysed; default: `parse.workers` worker threads. */
  readonly analyzer?: PageAnalyzer;
  /**
   * The crawl directory's lock, when the caller took it already (a distributed node locks its
   * directory before it joins the broker); the node releases it when its run ends. Default: taken here.
   */
  readonly lock?: CrawlDirLock;
}

/**
 * What makes a node part of a collaborative crawl: the strategy every node uses, the partitions
 * this one owns, and its exchange endpoint (built by whoever runs the nodes: `src/cluster/`).
 */
export interface NodeCollabSetup {
  readonly partitioner: Partitioner;
  readonly partitions: readonly PartitionId[];
  readonly exchange: Exchange;
  /** URLs placed before fetch (urls), boundary pages forwarded after fetch (pages), or both. */
  readonly forward: 'urls' | 'pages' | 'both';
  /** Largest message the exchange carries (a NATS broker's max_payload); absent: no limit. */
  readonly maxMessageBytes?: number | null;
  /** `maxPages` counted over every node of the process; absent: this node's own count. */
  readonly sharedPages?: PageCounter;
  /** Called once the fetch slots have stopped, before the exchange closes. */
  readonly beforeClose?: (stopReason: StopReason | null) => Promise<void>;
}

/** How boundary pages are forwarded, when the setup asks for it and the strategy can place pages. */
function boundaryOf(setup: NodeCollabSetup | null): BoundaryPages | null {
  if (setup === null) return null;
  const placer = setup.partitioner;
  let mode: BoundaryPages['mode'] = 'pages';
  if (setup.forward === 'urls') {
    // A strategy that keeps URLs where found sends nothing before fetch: in this mode the links of boundary pages go.
    if (!canPlacePages(placer) || placer.urlsFollowPages !== true) return null;
    mode = 'links';
  }
  if (!canPlacePages(placer)) {
    throw new ConfigError([{ path: 'cluster.forward', message: `${placer.spec.id} does not place pages: forward must be urls` }]);
  }
  return {
    mode,
    placer,
    self: setup.partitions[0] as PartitionId,
    own: new Set(setup.partitions),
    send: (to, page) => {
      setup.exchange.send(to, page);
    },
    maxMessageBytes: setup.maxMessageBytes ?? null,
  };
}

/** The size of a file, 0 when it does not exist. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The hosts map from `network.hostsFile` and `network.resolve` (which wins); bad entries are a ConfigError. */
function hostsMapOf(network: CrawlConfig['network']): HostsMap | undefined {
  const fromFlags = HostsMap.fromEntries(network.resolve, 'network.resolve');
  if (network.hostsFile === null) return fromFlags.size === 0 ? undefined : fromFlags;
  let text: string;
  try {
    text = readFileSync(network.hostsFile, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: 'network.hostsFile', message: `cannot read ${network.hostsFile}: ${(err as Error).message}` }], {
      cause: err,
      code: 'CONFIG_FILE_UNREADABLE',
    });
  }
  const map = HostsMap.fromHostsFile(text, network.hostsFile);
  for (const entry of network.resolve) {
    const eq = entry.indexOf('=');
    map.add(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return map;
}

/**
 * Builds the fetcher; its configuration errors name the crawl's options (`fetch.caFile` for a
 * certificate that cannot be read, `fetch.<option>` for the rest), not the fetcher's own.
 */
function asFetchConfig<T>(caFile: string | null, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof ConfigError) || err.code !== 'CONFIG_INVALID') throw err;
    throw new ConfigError(
      err.issues.map((i) =>
        i.path.startsWith('caCertificates')
          ? { path: 'fetch.caFile', message: `${caFile ?? ''}: ${i.message}` }
          : { path: `fetch.${i.path}`, message: i.message },
      ),
      { cause: err },
    );
  }
}

/** The PEM text of `fetch.caFile`, or undefined for none; an unreadable file is a ConfigError. */
function caCertificatesOf(caFile: string | null): string | undefined {
  if (caFile === null) return undefined;
  try {
    return readFileSync(caFile, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: 'fetch.caFile', message: `cannot read ${caFile}: ${(err as Error).message}` }], {
      cause: err,
      code: 'CONFIG_FILE_UNREADABLE',
    });
  }
}

/**
 * The page analyzer of a configuration's `parse` section: worker threads, or the crawl's own thread
 * for `workers: 0`; `defaultWorkers` when `parse.workers` is null (one less than the cores: on one
 * core a worker would only take turns with the crawl's thread, and cost a second heap). Pages get a
 * topic (`topic` section, model `cluster.model`) unless `topic.classify` is off.
 */
export function analyzerOf(
  config: Pick<CrawlConfig, 'parse' | 'topic' | 'cluster' | 'normalize'>,
  defaultWorkers = availableParallelism() - 1,
): PageAnalyzer {
  const parse = config.parse;
  const workers = parse.workers ?? defaultWorkers;
  const options = {
    anchorContextTokens: parse.anchorContextTokens,
    maxLinks: parse.maxLinks,
    maxTextChars: parse.maxTextChars,
    normalize: config.normalize,
  };
  const topic = topicSetupOf(config);
  if (workers === 0) return new InlinePageAnalyzer(options, topic);
  return new WorkerPageAnalyzer({
    ...options,
    workers,
    maxWorkerHeapMb: Math.max(16, Math.round(parse.maxWorkerHeapBytes / 2 ** 20)),
    maxBytesInHand: parse.maxBytesInWorkers,
    topic,
  });
}

/** How pages get their topic under `config`, or null when `topic.classify` is off. */
export function topicSetupOf(config: Pick<CrawlConfig, 'topic' | 'cluster'>): TopicSetup | null {
  if (!config.topic.classify) return null;
  return { modelPath: config.cluster.model, labeler: topicLabelerOptionsOf(config.topic) };
}

/** The X4 pipeline's options as the `topic` section sets them. */
export function topicLabelerOptionsOf(t: CrawlConfig['topic']): TopicLabelerOptions {
  return {
    minTerms: t.minTerms,
    unclassifiableCategory: t.unclassifiableCategory,
    classifierLanguages: t.languages,
    otherLanguageCategory: t.otherLanguageCategory,
    languageCategories: t.languageCategories,
  };
}

/** Whether a seen set can test without inserting (needed to stage fingerprints until a checkpoint). */
function hasBatchTest(seen: SeenSet): seen is DurableSeenSet {
  return typeof (seen as Partial<DurableSeenSet>).hasBatch === 'function';
}

/** A replacement seen set without `hasBatch` cannot stage: checkpoints then flush it as it is. */
function stagingUnavailable(seen: SeenSet): StagedSeenSet {
  throw new ConfigError([
    { path: 'seen', message: `a persistent frontier needs a seen set with hasBatch() (got ${seen.spec.id}); use frontier.kind: memory` },
  ]);
}

/**
 * Builds a node from a validated configuration. What can be checked without touching the crawl
 * directory is checked first (seeds, hosts map, certificates, filters, ordering policy); then the
 * directory is locked, before anything opens or starts, so that a refused crawl has nothing to undo.
 * The node releases the lock when its run ends; if building fails after the lock, it is released here.
 * @throws ConfigError for a missing `store.outDir`, bad seeds, an unreadable seeds or hosts file;
 *   ShoalError `CRAWL_DIR_LOCKED` when another crawl writes into the directory.
 */
export function buildNode(
  config: CrawlConfig,
  deps: Partial<NodeDeps> = {},
  components: NodeComponents = {},
  setup: NodeCollabSetup | null = null,
): CrawlNode {
  const outDir = config.store.outDir;
  if (outDir === null) throw new ConfigError([{ path: 'store.outDir', message: 'the crawl directory is required (--out DIR)' }]);
  const seeds = loadSeeds(config.seeds, config.normalize);
  const layout = crawlDirLayout(outDir);
  const clock = deps.clock ?? new SystemClock();
  const hostsMap = components.resolver === undefined ? hostsMapOf(config.network) : undefined;
  const f = config.fetch;
  const caCertificates = components.fetcher === undefined ? caCertificatesOf(f.caFile) : undefined;
  const policy = components.policy ?? orderingPolicyFrom(config.order, orderModelsOf(config, setup));
  const chain =
    components.filter !== undefined ? components.filter : urlFilterChain(config, seeds, new Date(clock.wallMs()).getUTCFullYear());
  const lock = components.lock ?? lockCrawlDir(layout);
  const opened: { close(): Promise<void> | void }[] = [];
  try {
    // A crawl of one node must not resume into what a collaborative crawl left (or the reverse).
    if (setup === null) expectCrawlDirKind(layout.root, 'node');
    return assembleNode({ config, deps, components, setup, seeds, layout, clock, hostsMap, caCertificates, policy, chain, lock, opened });
  } catch (err) {
    for (const resource of opened) void Promise.resolve(resource.close()).catch(() => {});
    lock.release();
    throw err;
  }
}

/** What {@link buildNode} checked and took before assembling the node. */
interface Checked {
  readonly config: CrawlConfig;
  readonly deps: Partial<NodeDeps>;
  readonly components: NodeComponents;
  readonly setup: NodeCollabSetup | null;
  readonly seeds: Seeds;
  readonly layout: CrawlDirLayout;
  readonly clock: Clock;
  readonly hostsMap: HostsMap | undefined;
  readonly caCertificates: string | undefined;
  readonly policy: OrderingPolicy;
  readonly chain: UrlFilter | null;
  readonly lock: CrawlDirLock;
  /** Resources started so far, closed if assembling fails. */
  readonly opened: { close(): Promise<void> | void }[];
}

function assembleNode(c: Checked): CrawlNode {
  const { config, deps, components, setup, seeds, layout, clock, policy, chain, lock, opened } = c;
  const f = config.fetch;
  const ownLog = deps.log === undefined ? new JsonLog(layout.log, { node: config.nodeId, now: () => clock.wallMs() }) : null;
  if (ownLog !== null) opened.push(ownLog);
  const log = deps.log ?? (ownLog as JsonLog);
  const events = deps.events ?? diagnosticsEvents;
  const isProxied = f.proxyUrl !== null;
  // Extended anchor text is read by ordering policies (topic) and by partitioners (geo's anchor
  // strategy places URLs by it): a node crawling alone whose policy does not read it goes without.
  const wantsAnchorContext = policy.needs.anchorContext === true || setup !== null;

  const resolver =
    components.resolver ??
    new CachingResolver({
      hostsMap: c.hostsMap,
      isSystemAllowed: config.network.isSystemDnsAllowed,
      ...(config.network.dnsServers.length === 0 ? {} : { lookup: createServerLookup(config.network.dnsServers) }),
      now: () => clock.nowMs(),
    });
  const fetcher =
    components.fetcher ??
    asFetchConfig(
      f.caFile,
      () =>
        new UndiciFetcher({
          userAgent: f.userAgent,
          resolver,
          proxyUrl: f.proxyUrl,
          caCertificates: c.caCertificates,
          addressPolicy: { allowLoopback: config.network.allowLoopback, allowPrivate: config.network.allowPrivate },
          connectionsPerOrigin: config.politeness.maxConnectionsPerHost,
          keepAliveMs: f.keepAliveMs,
          connectTimeoutMs: f.connectTimeoutMs,
          firstByteTimeoutMs: f.firstByteTimeoutMs,
          bodyTimeoutMs: f.bodyTimeoutMs,
          totalTimeoutMs: f.totalTimeoutMs,
          maxBodyBytes: f.maxBodyBytes,
          maxDecodedBytes: f.maxDecodedBytes,
          now: () => clock.wallMs(),
          minBytesPerSecond: f.minBytesPerSecond,
          minRateWindowMs: f.minRateWindowMs,
        }),
    );
  if (components.fetcher === undefined) opened.push(fetcher);
  const pol = config.politeness;
  const politeness = {
    minDelayMs: pol.minDelayMs,
    delayFactor: pol.delayFactor,
    maxDelayMs: pol.maxDelayMs,
    maxConnectionsPerHost: pol.maxConnectionsPerHost,
    maxConnectionsPerIp: pol.maxConnectionsPerIp,
    backoffBaseMs: pol.backoffBaseMs,
    backoffMaxMs: pol.backoffMaxMs,
  };
  const backQueueCount = backQueueCountFor(config.limits.concurrency);
  const activityCap = pol.maxHostShare === null ? null : { maxShare: pol.maxHostShare, windowMs: pol.hostShareWindowMs };
  // Beyond its share, a host's URLs wait on disk in priority bands (exact FIFO under breadth-first order).
  const memoryUrlsPerHost = config.frontier.memoryUrlsPerHost ?? fifoShareFor(pol.maxConnectionsPerHost);
  const persistent =
    components.frontier === undefined && config.frontier.kind === 'persistent'
      ? new PersistentFrontier({
          ...politeness,
          backQueueCount,
          activityCap,
          segmentBytes: config.frontier.segmentBytes,
          memoryUrlsPerHost,
        })
      : null;
  const frontier = components.frontier ?? persistent ?? new MemoryFrontier({ ...politeness, backQueueCount, activityCap });
  const rules = politenessRules(politeness);
  const durableSeen =
    components.seen ??
    new DiskSeenSet({ dir: layout.seen, cacheEntries: config.seen.cacheEntries, bufferEntries: config.seen.bufferEntries });
  // With a frontier on disk, the seen set takes a URL for good only at the checkpoint that makes its frontier entry durable.
  const staged = persistent !== null && hasBatchTest(durableSeen) ? new StagedSeenSet(durableSeen) : null;
  const seen: SeenSet = staged ?? durableSeen;
  const urlIds = policy.needs.ids ? new UrlIds() : null;
  const sinks = components.sinks ?? crawlDirSinks(layout.root, config.store);
  // The crawl log of the crawl directory, which crash recovery reads (null when the store is off or replaced).
  const crawlLogPath = components.sinks === undefined && config.store.hasCrawlLog ? join(layout.root, CRAWL_LOG_FILE) : null;
  const budget = CrawlBudget.open(
    layout.budget,
    { maxPagesPerHost: config.scope.maxPagesPerHost, maxBytes: config.limits.maxBytes },
    crawlLogPath === null ? null : fileSize(crawlLogPath),
  );
  // Links of a host whose budget is spent are not queued (the fetch loop checks again before each fetch).
  const live = budget.counters;
  const numbered =
    config.filter.traps.maxNumberedUrls === null ? null : NumberedStore.open(layout.numbered, config.filter.traps.maxNumberedUrls);
  const filter = live === null ? chain : composeFilters(chain === null ? [live] : [chain, live]);

  const analyzer = components.analyzer ?? analyzerOf(config);
  if (components.analyzer === undefined) opened.push(analyzer);
  const warc =
    components.warc !== undefined
      ? components.warc
      : new WarcWriter({
          dir: layout.warc,
          version: shoalVersion(),
          prefix: config.nodeId,
          maxFileBytes: config.store.warcMaxFileBytes,
          compressionLevel: config.store.warcCompressionLevel,
          now: () => clock.wallMs(),
          // The parse workers compress WARC records too, when there are any.
          ...(analyzer instanceof WorkerPageAnalyzer ? { compress: analyzer.compress } : {}),
          warcinfoFields: [
            ['isPartOf', config.nodeId],
            ['robots', 'obey'],
            ['http-header-user-agent', f.userAgent],
          ],
        });
  const warcFiles = new Set<string>();
  const warcSink: WarcSink | null =
    warc === null
      ? null
      : {
          write: async (record) => {
            const result = await warc.write(record);
            warcFiles.add(result.filename);
            return result;
          },
        };

  const stats = new CrawlStats();
  const reachability = new HostReachability(config.network.maxConnectFailures, log);
  const waker = new Waker(clock);
  // Deferred: robots.txt records go through the processor, which needs admission, which needs robots.
  let processor: PageProcessor | null = null;
  const robots = new RobotsCache({
    config: config.robots,
    userAgent: f.userAgent,
    maxCrawlDelayMs: pol.maxCrawlDelayMs,
    maxRetryAfterMs: pol.maxRetryAfterMs,
    fetcher,
    clock,
    hopGapMs: (durationMs) => fetchGapMs(durationMs, rules),
    unreachableRetryMs: (failures) => Math.min(rules.backoffMaxMs, rules.backoffBaseMs * 2 ** (failures - 1)),
    onRequest: (url, outcome, startedWallMs) => (processor as PageProcessor).robotsRequest(url, outcome, startedWallMs),
    onResult: (kind) => stats.robotsResult(kind),
    onFailure: (failure) =>
      log.warn('robots-unavailable', {
        origin: failure.origin,
        what: failure.what,
        failures: failure.failures,
        maxAttempts: config.robots.maxAttempts,
        ...(failure.isGivenUp
          ? { givenUp: true }
          : { retryAt: new Date(clock.wallMs() + Math.max(0, failure.retryAtMs - clock.nowMs())).toISOString() }),
      }),
    ...(config.seeds.robotsSitemaps
      ? { onSitemaps: (robotsUrl: string, urls: readonly string[]) => void announcedSitemaps(robotsUrl, urls) }
      : {}),
  });
  const cl = config.cluster;
  const summaryIntervalMs = setup === null ? 0 : (cl.linkSummaryIntervalMs ?? defaultLinkSummaryIntervalMs(setup.partitioner));
  const near = config.dedup.near;
  // Kept pages' fingerprints go to every other node's index, and theirs come to this one (simhash-sharing.ts).
  const simhashSharing: SimHashSharing | null =
    setup === null || near.action === 'off' || !near.isShared || setup.partitioner.partitionCount < 2
      ? null
      : new SimHashSharing({
          nodeId: config.nodeId,
          exchange: setup.exchange,
          partitionCount: setup.partitioner.partitionCount,
          partitions: setup.partitions,
          batchSize: cl.batchUrls,
          addRemote: (url, hi, lo): boolean => {
            const isNew = (nearDuplicates as NearDuplicates).addRemote(url, hi, lo);
            if (isNew) sharedSimHashes?.append(url, hi, lo);
            return isNew;
          },
        });
  // What other nodes shared outlives a restart with the frontier (shared-simhashes.ts).
  const sharedSimHashes = simhashSharing === null || persistent === null ? null : new SharedSimHashes(layout.state, near.maxFingerprints);
  const nearDuplicates: NearDuplicates | null = near.action === 'off' ? null : new NearDuplicates(near, simhashSharing?.share ?? null);
  const router =
    setup === null
      ? null
      : new PartitionRouter({
          nodeId: config.nodeId,
          partitioner: setup.partitioner,
          partitions: setup.partitions,
          exchange: setup.exchange,
          batchUrls: cl.batchUrls,
          sentCacheEntries: cl.sentCacheEntries,
          isSummarizing: summaryIntervalMs > 0,
          ...(canShareRank(policy) ? { rankShareOf: (id: number) => policy.rankShare(id) } : {}),
          ...(canTellOutDegree(policy) ? { outDegreeOf: (id: number) => policy.outDegree(id) } : {}),
          ...(simhashSharing === null ? {} : { simhashes: simhashSharing }),
        });
  const isRoutingUrls = setup !== null && setup.forward !== 'pages';
  const admission = new Admission({
    frontier,
    seen,
    policy,
    urlIds,
    robots,
    resolver,
    isProxied,
    filter,
    clock,
    stats,
    waker,
    router: isRoutingUrls ? router : null,
    dnsWaitMs: config.network.dnsWaitMs,
    numbered: numbered?.spaces ?? null,
    onRobotsDenied: (c) =>
      (processor as PageProcessor).endWithoutRequest(
        { url: c.url, host: urlParts(c.url).hostKey, depth: c.depth },
        c.fromUrl,
        'robots-denied',
        0,
      ),
  });
  /** The sitemaps a robots.txt announces, read like `seeds.sitemaps` (the URL-seen set takes each once). */
  const announcedSitemaps = async (robotsUrl: string, urls: readonly string[]): Promise<void> => {
    const candidates = urls.flatMap((u) => {
      const n = normalizeUrl(u, undefined, config.normalize);
      return n.kind === 'ok' ? [{ url: n.url, hostname: n.host, depth: 0, fromUrl: robotsUrl, isSitemap: true }] : [];
    });
    stats.links.found += urls.length;
    stats.links.invalid += urls.length - candidates.length;
    try {
      await admission.admit(candidates);
    } catch (err) {
      log.error('sitemap-admission-failed', { robotsUrl, message: err instanceof Error ? err.message : String(err) });
    }
  };
  // With a persistent frontier the crawl resumes, and first captures outlive a run (dedup-store.ts).
  const dedupStore = persistent === null ? null : new LogDedupStore(layout.dedup, config.dedup.maxDigests);
  const dedup = new DedupIndex(config.dedup.maxDigests, dedupStore);
  const rc = config.recrawl;
  // Revisits are kept beside the frontier's log, in memory with a memory frontier (revisits.ts).
  const revisitStore = rc.enabled ? new RevisitStore(persistent === null ? null : layout.frontier) : null;
  const revisits: RevisitScheduler | null =
    revisitStore === null
      ? null
      : new RevisitScheduler({
          bounds: rc,
          durationMs: rc.durationMs,
          maxRevisits: rc.maxRevisits,
          store: revisitStore,
          frontier,
          clock,
          waker,
          log,
          hold: (): (() => void) => loop.hold(),
        });
  processor = new PageProcessor({
    nodeId: config.nodeId,
    revisits,
    analyzer,
    warc: warcSink,
    sitemaps: { maxDepth: config.seeds.maxSitemapDepth, maxUrls: config.seeds.maxUrlsPerSitemap },
    normalize: config.normalize,
    dedup,
    nearDuplicates,
    admission,
    policy,
    urlIds,
    frontier,
    sinks,
    events,
    stats,
    clock,
    log,
    boundary: boundaryOf(setup),
    wantsAnchorContext,
    onRecord: (r) => budget.record(r),
  });
  const gate = persistent === null ? null : new CompletionGate();
  const loop: FetchLoop = new FetchLoop({
    frontier,
    robots,
    fetcher,
    processor,
    clock,
    waker,
    stats,
    maxAttempts: f.maxAttempts,
    maxRetryAfterMs: pol.maxRetryAfterMs,
    maxPages: config.limits.maxPages,
    isProxied,
    gate,
    budget: live,
    pagesBefore: () => budget.pagesFetched,
    resolver: isProxied ? null : resolver,
    dnsWaitMs: config.network.dnsWaitMs,
    reachability,
    validatorsOf: revisits === null ? null : (url) => revisits.conditionalHeaders(url),
    ...(setup?.sharedPages === undefined ? {} : { sharedPages: setup.sharedPages }),
  });
  const pageProcessor = processor;
  const inbox =
    setup === null
      ? null
      : new Inbox({
          admission,
          policy,
          urlIds,
          frontier,
          log,
          onPage: (page) => pageProcessor.receivePage(page),
          isCheckpointed: persistent !== null,
          ...(router === null ? {} : { onLinks: (m: LinkSummaryMessage) => router.receiveLinks(m) }),
          ...(simhashSharing === null ? {} : { onSimHashes: (m: SimHashBatchMessage) => simhashSharing.receive(m) }),
        });
  const collab: NodeCollaboration | null =
    setup === null || router === null || inbox === null
      ? null
      : {
          exchange: setup.exchange,
          partitions: setup.partitions,
          router,
          inbox,
          batchDelayMs: cl.batchDelayMs,
          linkSummaryIntervalMs: summaryIntervalMs,
          ...(setup.beforeClose === undefined ? {} : { beforeClose: setup.beforeClose }),
        };
  const checkpointExchange: CheckpointExchange | null =
    collab === null
      ? null
      : {
          seal: () => collab.inbox.seal(),
          settle: async (sealed) => {
            await collab.inbox.settle(sealed as ReturnType<Inbox['seal']>);
            // The fingerprints those deliveries brought are durable before they are acknowledged.
            await sharedSimHashes?.flush();
          },
          syncSends: async () => {
            collab.router.flush();
            await collab.exchange.flush();
          },
          ack: (sealed) => collab.inbox.ack(sealed as ReturnType<Inbox['seal']>),
        };
  const durability: Durability | null =
    persistent === null || gate === null
      ? null
      : {
          open: async (options) => {
            await persistent.open(layout.frontier, options);
            await revisitStore?.open();
            await dedupStore?.open();
            // Near-duplicates are remembered across runs by reading back the pages of earlier ones (near-duplicates.ts).
            if (nearDuplicates !== null && components.sinks === undefined) {
              const pages = keptPagesOf(layout.root, config.store);
              if (pages !== null)
                log.info('near-duplicates-restored', { lines: await nearDuplicates.restore(pages), kept: nearDuplicates.size });
            }
            if (nearDuplicates !== null && sharedSimHashes !== null) {
              const lines = await nearDuplicates.restore(sharedSimHashes.open());
              log.info('shared-simhashes-restored', { lines, kept: nearDuplicates.size });
            }
          },
          close: async () => {
            try {
              await persistent.close();
              await revisitStore?.close();
            } finally {
              try {
                await dedupStore?.close();
              } finally {
                await sharedSimHashes?.close();
              }
            }
          },
          checkpointer: new Checkpointer({
            gate,
            seen: staged ?? stagingUnavailable(durableSeen),
            admission,
            warc,
            sinks,
            // A page's next visit is durable before its completion is (revisit-store.ts).
            frontier:
              revisitStore === null
                ? persistent
                : {
                    flush: async () => {
                      await revisitStore.flush();
                      await persistent.flush();
                    },
                  },
            budget,
            numbered,
            dedup,
            exchange: checkpointExchange,
          }),
          intervalMs: config.frontier.checkpointIntervalMs,
        };
  return new CrawlNode({
    config,
    layout,
    seeds,
    clock,
    log,
    events,
    frontier,
    seen,
    fetcher,
    analyzer,
    resolver,
    warc,
    warcFiles,
    admission,
    loop,
    stats,
    waker,
    sinks,
    durability,
    lock,
    budget,
    numbered: numbered?.spaces ?? null,
    reachability,
    robots,
    processor,
    onClosed: async () => {
      await ownLog?.close();
    },
    collab,
    policy,
    revisits,
    // Recovery reads the crawl log and WARC files of this directory, and needs a frontier that keeps its completions.
    recovery:
      persistent === null || crawlLogPath === null || components.warc !== undefined
        ? null
        : {
            crawlLogPath,
            warcDir: layout.warc,
            analyzer,
            maxDecodedBytes: f.maxDecodedBytes,
            wantsText: policy.needs.text,
            wantsAnchorContext,
            normalize: config.normalize,
          },
  });
}
