/**
 * shoal's library API: everything the CLI does, callable from TypeScript. Explicit named exports
 * only (no `export *`), so the public surface is what this file lists.
 */
export { ShoalError, ConfigError, ERROR_CODES, ErrorAction, isConfigProblem } from './core/errors.js';
export type { ConfigIssue, ErrorCode } from './core/errors.js';
export { loadConfig, validateConfig } from './config/load.js';
export type { ConfigSources } from './config/load.js';

export { webConfigSchema, DEFAULT_CATEGORIES } from './web/config.js';
export type { WebConfig, WebConfigInput } from './web/config.js';
export { WEB_PRESETS, WEB_PRESET_NAMES } from './web/presets.js';
export type { WebPresetName } from './web/presets.js';
export { WebModel, PageKind, PageFlag, PAGE_KIND_NAMES, finalStatus, redirectInfo, servesContent, parseWebConfig } from './web/model.js';
export type { RedirectInfo } from './web/model.js';
export type { HostInfo, RobotsKind, TrapKind } from './web/hosts.js';
export { pageLinks, LinkKind } from './web/links.js';
export type { PageLink } from './web/links.js';
export { geoEntities, formatAddress } from './web/geo.js';
export type { GeoEntity } from './web/geo.js';
export { startTestWeb } from './web/start.js';
export type { TestWeb } from './web/start.js';
export { checkTestWeb } from './web/check.js';
export type { CheckReport } from './web/check.js';
export type { RequestLog, RequestRecord } from './web/request-log.js';
export { exportTruth } from './web/truth/export.js';
export type { ExportTruthOptions, TruthSummary } from './web/truth/export.js';
export { readTruth } from './web/truth/read.js';
export type { Truth } from './web/truth/read.js';
export { Reach } from './web/truth/format.js';
export type { TruthManifest, TruthHost, TruthEntity } from './web/truth/format.js';

export { pageRank } from './eval/pagerank.js';
export type { PageRankOptions } from './eval/pagerank.js';
export { fitPowerLaw } from './eval/power-law.js';
export type { PowerLawFit } from './eval/power-law.js';
export { csrFromEdges, inDegrees } from './eval/csr.js';
export type { Csr } from './eval/csr.js';

export { Crawl } from './crawl/crawl.js';
export type { CrawlOptions } from './crawl/crawl.js';
export { crawlConfigSchema, DEFAULT_USER_AGENT } from './config/crawl-config.js';
export type { CrawlConfig, CrawlConfigInput } from './config/crawl-config.js';
export type { CrawlSummary, LinkCounts as CrawlLinkCounts } from './node/crawl-stats.js';
export { CrawlChannel, StopReason } from './obs/events.js';
export type { CrawlEvents, CrawlProgress, FrontierProgress } from './obs/events.js';
export type { CrawlOutcomeKind, CrawlSinks, CrawlLogRecord, GraphLink, LinkGraphSink, PageRecord, RecordSink } from './store/records.js';
export type { NodeComponents, NodeDeps } from './node/build-node.js';
export { ManualClock, SystemClock } from './core/clock.js';
export type { Clock } from './core/clock.js';
export { SHOAL_NODE_FLAGS, SHOAL_PROCESS_ENV, processSettings } from './node/process-settings.js';
export type { ProcessSettingsReport } from './node/process-settings.js';
export { JsonLog, silentLog } from './obs/log.js';
export type { Log, LogFields } from './obs/log.js';

export { ORDER_POLICY_IDS, orderPolicySchema, orderingPolicyFrom } from './order/registry.js';
export type { OrderModels, OrderPolicyId } from './order/registry.js';
export { canEstimateImportance, canObserveRemoteLinks, canShareRank, canTellOutDegree, NO_PRIORITY_CHANGES } from './order/policy.js';
export type {
  DiscoveredUrl,
  FetchedPage,
  ImportanceEstimator,
  OrderingPolicy,
  OrderingPolicySpec,
  OutDegreeEstimator,
  PolicyNeeds,
  PriorityChanges,
  RankShareEstimator,
  RemoteLinkObserver,
} from './order/policy.js';
export { UrlIds } from './url/url-ids.js';

export {
  backlinkImportance,
  pageRankImportance,
  topicImportance,
  topicWithBacklinks,
  weightedSum,
  hotMask,
  cosineSimilarity,
  sparseVector,
} from './eval/importance.js';
export type { Importance, ImportanceSpec, SparseVector } from './eval/importance.js';
export {
  pcsCurve,
  pstCurve,
  weightedCoverageCurve,
  weightedCoverageOverTime,
  pcsBaseline,
  pstBaseline,
  weightedCoverageBaseline,
  pbcBaseline,
  pbcCurve,
  LimitedBuffer,
  summarizeCurve,
} from './eval/ordering-models.js';
export type { Curve, CurveSpec, HotPages } from './eval/ordering-models.js';
export { curvesToCsv, curvesToJson, curvesFromJson } from './report/curves-csv.js';
export { lineChartSvg, curvesChartSvg } from './report/svg-chart.js';

export { runSimulation } from './sim/run-simulation.js';
export type { RunSimulationOptions, SimulationOutcome } from './sim/run-simulation.js';
export { simulate } from './sim/simulator.js';
export type { SimulationOptions, SimulationRun, SimProgress, SimStopReason } from './sim/simulator.js';
export { loadSimGraph } from './sim/graph/load-graph.js';
export type { GraphFormatChoice, SimGraphLoadOptions } from './sim/graph/load-graph.js';
export { loadCrawlGraph } from './sim/graph/crawl-graph.js';
export type { CrawlGraphOptions } from './sim/graph/crawl-graph.js';
export { loadTruthGraph } from './sim/graph/truth-graph.js';
export { graphFromAdjacency } from './sim/graph/memory-graph.js';
export type { SimGraph } from './sim/graph/sim-graph.js';
export { writeSimulationOutputs } from './sim/outputs.js';
export { readSimulation } from './sim/result.js';
export type { SimResultDoc } from './sim/result.js';
export { simConfigSchema } from './sim/sim-config.js';
export type { SimConfig, SimConfigInput } from './sim/sim-config.js';

export { Gazetteer, GazetteerError, parseTargetList, normalName, TIME_ZONES } from './geo/gazetteer.js';
export type { GeoTarget, NamedPlace, TargetEntry, TimeZone } from './geo/gazetteer.js';
export { CityMatcher } from './geo/city-mentions.js';
export { extractAddresses, addressKey } from './geo/address-extractor.js';
export type { GeoAddress } from './geo/address-extractor.js';
export { createGeoStrategy, GEO_STRATEGY_IDS, GeoParamError } from './geo/geo-strategies.js';
export type { GeoResources, GeoStrategyId } from './geo/geo-strategies.js';
export { bestTarget, NO_CITY } from './geo/geo-strategy.js';
export type { GeoLink, GeoPage, GeoScores, GeoStrategy, GeoStrategySpec } from './geo/geo-strategy.js';
export { ipLocatorOf } from './geo/ip-locators.js';
export type { IpLocator, IpPlace } from './geo/ip-locator.js';
export { GeoPartitioner, DEFAULT_GEO_GROUPS } from './partition/geo/geo.js';
export type { GeoPolicy } from './partition/geo/geo.js';
export { geoMetrics } from './eval/geo-metrics.js';
export type { GeoMetrics } from './eval/geo-metrics.js';
export { readGeoEval } from './cluster/read-geo.js';
