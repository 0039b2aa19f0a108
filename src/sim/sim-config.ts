/**
 * Configuration of a simulation (`shoal simulate`, {@link runSimulation}): one zod schema, the single
 * source of every option, its default, unit and meaning. `shoal config --defaults --command simulate`
 * prints it as commented YAML; environment variables are `SHOAL_SIMULATE_` + the option path in upper
 * snake case (`politeness.minDelayMs` is `SHOAL_SIMULATE_POLITENESS_MIN_DELAY_MS`).
 *
 * Politeness and fetch slots have the crawl's defaults (`config/crawl-config.ts`), so a simulation
 * with default settings predicts a crawl with default settings.
 */
import { z } from 'zod';
import { count, durationMs, int } from '../config/units.js';
import { activityCapFields, politenessFields } from '../config/politeness.js';
import { partitionStrategySchema } from '../partition/registry.js';
import { orderPolicySchema } from '../order/registry.js';

/** The prefix of the simulator's environment variables. */
export const SIMULATE_ENV_PREFIX = 'SHOAL_SIMULATE_';

/** Importance metrics I(P) the curves measure against (SPEC §3). */
export const SIM_IMPORTANCE_IDS = ['ib', 'ir', 'topic', 'topic-ib'] as const;
export type SimImportanceId = (typeof SIM_IMPORTANCE_IDS)[number];

const graphSchema = z
  .strictObject({
    paths: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'the graph: a truth export directory, crawl directories (several node directories are merged) or a TSV edge list (--graph, repeatable; required)',
      ),
    format: z
      .enum(['auto', 'truth', 'crawl', 'tsv'])
      .default('auto')
      .describe(
        'how to read it; auto: a directory with manifest.json is a truth export, another directory a crawl, a file a TSV edge list (--format)',
      ),
    seeds: z
      .array(z.string())
      .default([])
      .describe('seed pages as the graph names them (ids of a TSV file, or URLs); [] = the graph’s own seeds (--seed, repeatable)'),
    rebuildContent: z
      .boolean()
      .default(false)
      .describe(
        'truth exports only: rebuild the test web from the export’s configuration for page titles, ' +
          'text and anchor texts (policies and importance that read content); slow on large webs',
      ),
    crawlContent: z
      .boolean()
      .default(false)
      .describe(
        'crawl graphs only: read page titles and text from the crawl’s WARC files (warc/index.cdxj of each node directory), parsed ' +
          'as the crawl parsed them (policies and importance that read content); one to a few milliseconds per page on first use',
      ),
  })
  .prefault({});

const politenessSchema = z.strictObject({ ...politenessFields('fetches'), ...activityCapFields() }).prefault({});

const latencySchema = z
  .strictObject({
    model: z
      .enum(['constant', 'uniform', 'lognormal', 'measured'])
      .default('constant')
      .describe(
        'fetch time of each host: constant; uniform in ms·(1 ± spread); lognormal with median ms and sigma spread; measured by the crawl that wrote the graph (crawl graphs)',
      ),
    ms: z
      .number()
      .min(0)
      .meta({ unit: 'ms' })
      .default(100)
      .describe(
        'the constant fetch time, the uniform mean, the lognormal median, or the measured model’s value for hosts the crawl did not fetch (0 = fetches take no time)',
      ),
    spread: z
      .number()
      .min(0)
      .max(10)
      .meta({ unit: 'factor' })
      .default(0.5)
      .describe('uniform: relative half width (at most 1); lognormal: sigma'),
    seed: int().max(0xffffffff).default(1).describe('seed of the per-host draws'),
  })
  .prefault({});

const limitsSchema = z
  .strictObject({
    maxPages: count('pages')
      .nullable()
      .default(null)
      .describe('stop after starting this many fetches over all nodes; null = until nothing is left to fetch (--max-pages)'),
    concurrency: count('fetches', 1).max(4096).default(32).describe('fetch slots of each node (--concurrency)'),
  })
  .prefault({});

const exchangeSchema = z
  .strictObject({
    delayMs: durationMs().default(250).describe('virtual time a message takes from one node to another (--exchange-delay-ms)'),
    linkSummaryIntervalMs: durationMs()
      .nullable()
      .default(null)
      .describe(
        'how often nodes send in-link counts of other nodes’ URLs, for policies that use them (0 = never; null = 1 s for community partitioning, 10 s for others)',
      ),
  })
  .prefault({});

const evalSchema = z
  .strictObject({
    importance: z
      .enum(SIM_IMPORTANCE_IDS)
      .default('ib')
      .describe(
        'I(P) of the curves: ib (backlinks, distinct sources), ir (PageRank d = 0.9), topic (a page on eval.topic), topic-ib (on the topic and >= 5 backlinks) (--importance)',
      ),
    threshold: z
      .number()
      .nullable()
      .default(null)
      .describe('G: pages with I(P) >= G are hot (PST, PBC); null = the top 1% of pages (1 for topic importances) (--threshold)'),
    topic: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'topic of topic importances: a category of the truth’s labels (COMPUTERS), or a word counted in titles and text when the graph has content',
      ),
    bufferPages: count('pages', 1).nullable().default(null).describe('B of the Limited Buffer model (PBC); null = no PBC curve (--buffer)'),
    points: count('points', 1).max(10_000).default(100).describe('sample points of each curve'),
    scope: z
      .enum(['reachable', 'all'])
      .default('reachable')
      .describe('T, the pages curves count: those reachable from the seeds over followed links (as the paper), or every page of the graph'),
  })
  .prefault({});

const outputSchema = z
  .strictObject({
    outDir: z.string().min(1).nullable().default(null).describe('directory of result.json, curves, chart and visits (required; --out)'),
    hasVisits: z
      .boolean()
      .default(true)
      .describe(
        'write each run’s visit order to visits-<n>-<policy>.tsv (n = the run’s place in --order), columns rank, page, name, time_ms (virtual), node',
      ),
    progressEveryPages: count('pages', 1).default(50_000).describe('a progress line on stderr every this many visits'),
  })
  .prefault({});

/** The whole simulation configuration. */
export const simConfigSchema = z.strictObject({
  graph: graphSchema,
  order: z
    .array(orderPolicySchema)
    .min(1)
    .default([{ policy: 'bfs' }])
    .describe(
      'the ordering policies compared, one run each (--order bfs,backlink,pagerank,random), sections as a crawl’s order (parameters and defaults: src/order/README.md)',
    ),
  nodes: count('nodes', 1).max(1024).default(1).describe('nodes of the simulated collaborative crawl, node i owning partition i (--nodes)'),
  partition: partitionStrategySchema.prefault({ strategy: 'host-hash' }),
  forward: z
    .enum(['urls', 'pages', 'both'])
    .nullable()
    .default(null)
    .describe('what goes to other nodes: URLs before fetch, boundary pages after fetch, or both; null = the strategy’s own'),
  politeness: politenessSchema,
  latency: latencySchema,
  limits: limitsSchema,
  exchange: exchangeSchema,
  eval: evalSchema,
  output: outputSchema,
});

/** A validated simulation configuration (every default filled in). */
export type SimConfig = z.output<typeof simConfigSchema>;
/** What may be passed in: any subset of the options. */
export type SimConfigInput = z.input<typeof simConfigSchema>;
