/**
 * `shoal simulate --graph PATH --order bfs,backlink,pagerank,random --out DIR`: a virtual crawl of a
 * stored graph (a test web's truth export, a crawl's link graph, a TSV edge list) with each ordering
 * policy, on N simulated nodes, and the evaluation curves and metrics (`src/sim/`). Configuration:
 * defaults < `--config` file < `SHOAL_SIMULATE_*` environment < flags (`--set path=value` for any
 * option). Progress goes to stderr, the summary to stdout; Ctrl-C stops the current run and writes
 * what was simulated. Exit codes: 0 done, 1 failure, 2 bad configuration, 130 interrupted.
 */
import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { applySets, loadConfig, setPath, type ConfigTree } from '../../config/load.js';
import { parseOrderList } from '../../sim/policies.js';
import { SIM_IMPORTANCE_IDS, SIMULATE_ENV_PREFIX, simConfigSchema, type SimConfig } from '../../sim/sim-config.js';
import { runSimulation } from '../../sim/run-simulation.js';
import { writeSimulationOutputs } from '../../sim/outputs.js';
import { simulationSummary } from '../../sim/summary-text.js';
import type { CliIo } from '../cli-io.js';
import { collect, fmt, PROGRESS_LINE_MS } from '../format.js';

/** The flags of `shoal simulate`. */
export interface SimulateFlags {
  graph: string[];
  format?: string;
  order?: string;
  nodes?: string;
  partition?: string;
  maxPages?: string;
  concurrency?: string;
  minDelayMs?: string;
  latencyMs?: string;
  exchangeDelayMs?: string;
  importance?: string;
  threshold?: string;
  topic?: string;
  buffer?: string;
  seed: string[];
  out?: string;
  config?: string;
  set: string[];
}

/** Without a terminal, a progress line at most this often. */

/** The simulation configuration from the file, the environment and the flags; every problem at once. */
export function simConfigFromFlags(flags: SimulateFlags, env: Readonly<Record<string, string | undefined>>): SimConfig {
  const tree: ConfigTree = {};
  const problems: ConfigIssue[] = [];
  const number = (flag: string, path: string, raw: string | undefined, isInteger: boolean): void => {
    if (raw === undefined) return;
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v) || (isInteger && !Number.isInteger(v))) {
      problems.push({ path: flag, message: `expected ${isInteger ? 'a whole number' : 'a number'}, got ${JSON.stringify(raw)}` });
    } else {
      setPath(tree, path, v);
    }
  };
  if (flags.graph.length > 0) setPath(tree, 'graph.paths', flags.graph);
  if (flags.format !== undefined) setPath(tree, 'graph.format', flags.format);
  if (flags.seed.length > 0) setPath(tree, 'graph.seeds', flags.seed);
  if (flags.order !== undefined) {
    try {
      tree['order'] = parseOrderList(flags.order);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.issues);
    }
  }
  number('--nodes', 'nodes', flags.nodes, true);
  if (flags.partition !== undefined) setPath(tree, 'partition.strategy', flags.partition);
  number('--max-pages', 'limits.maxPages', flags.maxPages, true);
  number('--concurrency', 'limits.concurrency', flags.concurrency, true);
  number('--min-delay-ms', 'politeness.minDelayMs', flags.minDelayMs, true);
  number('--latency-ms', 'latency.ms', flags.latencyMs, false);
  number('--exchange-delay-ms', 'exchange.delayMs', flags.exchangeDelayMs, true);
  if (flags.importance !== undefined) setPath(tree, 'eval.importance', flags.importance);
  number('--threshold', 'eval.threshold', flags.threshold, false);
  if (flags.topic !== undefined) setPath(tree, 'eval.topic', flags.topic);
  number('--buffer', 'eval.bufferPages', flags.buffer, true);
  if (flags.out !== undefined) setPath(tree, 'output.outDir', flags.out);
  applySets(tree, flags.set, problems);
  try {
    const config = loadConfig(simConfigSchema, { file: flags.config, env, envPrefix: SIMULATE_ENV_PREFIX, flags: tree });
    if (problems.length > 0) throw new ConfigError(problems, { code: 'USAGE' });
    const missing: ConfigIssue[] = [];
    if (config.graph.paths.length === 0) missing.push({ path: '--graph', message: 'the graph to simulate is required' });
    if (config.output.outDir === null) missing.push({ path: '--out', message: 'the output directory is required' });
    if (missing.length > 0) throw new ConfigError(missing, { code: 'USAGE' });
    return config;
  } catch (err) {
    if (err instanceof ConfigError && problems.length > 0 && err.code !== 'USAGE') throw new ConfigError([...problems, ...err.issues]);
    throw err;
  }
}

export function registerSimulateCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('simulate')
    .description(
      'a virtual crawl of a stored graph with each ordering policy on simulated nodes; writes curves, chart and metrics (SPEC §6)',
    )
    .option(
      '--graph <path>',
      'truth export directory, crawl directory (repeatable: node directories are merged) or TSV edge list',
      collect,
      [],
    )
    .option('--format <format>', 'auto, truth, crawl or tsv (default auto)')
    .option('--order <list>', 'ordering policies, one run each, e.g. bfs,backlink,pagerank(recomputeEvery=10000),random (default bfs)')
    .option('--nodes <n>', 'simulated nodes, node i owning partition i (default 1)')
    .option(
      '--partition <strategy>',
      'how the nodes split the Web: url-hash, host-hash, domain-hash, ip-hash, consistent-hash, content-hash, truth-topic (default host-hash)',
    )
    .option('--max-pages <k>', 'stop each run after this many fetches (default: until nothing is left)')
    .option('--concurrency <n>', 'fetch slots per node (default 32)')
    .option('--min-delay-ms <n>', 'smallest gap between two fetches from one host, ms of virtual time (default 1000)')
    .option('--latency-ms <n>', 'fetch time of a host, ms of virtual time (latency.model sets the distribution; default 100)')
    .option('--exchange-delay-ms <n>', 'virtual time a message takes between nodes, ms (default 250)')
    .option('--importance <id>', `importance I(P) of the curves: ${SIM_IMPORTANCE_IDS.join(', ')} (default ib)`)
    .option('--threshold <g>', 'G: pages with I(P) >= G are hot (default: the top 1% of pages)')
    .option('--topic <topic>', 'topic of the topic importances: a category of the truth labels, or a word')
    .option('--buffer <b>', 'B of the Limited Buffer model: adds PBC curves')
    .option('--seed <page>', 'a seed page: an id of a TSV graph or a URL (repeatable; default the graph’s own seeds)', collect, [])
    .option('--out <dir>', 'directory for result.json, curves.csv, curves.json, chart.svg and visit orders')
    .option('--config <file>', 'YAML or JSON configuration file (`shoal config --defaults --command simulate` prints every option)')
    .option('--set <path=value>', 'set any option, e.g. --set latency.model=lognormal (repeatable)', collect, [])
    .action(async (flags: SimulateFlags) => {
      const config = simConfigFromFlags(flags, io.env);
      const outDir = config.output.outDir as string;
      const controller = new AbortController();
      void io.interrupted.then(() => {
        if (!controller.signal.aborted) io.err('\nshoal simulate: stopping (Ctrl-C); writing what was simulated ...\n');
        controller.abort();
      });
      const isTty = io.isErrTty === true;
      let lastLineMs = Number.NEGATIVE_INFINITY;
      let lastRun = -1;
      let isLineOpen = false;
      const outcome = await runSimulation(config, {
        signal: controller.signal,
        onStatus: (line) => {
          if (isLineOpen) io.err('\n');
          isLineOpen = false;
          io.err(`shoal simulate: ${line}\n`);
        },
        onProgress: (label, index, total, p) => {
          if (index !== lastRun) {
            lastRun = index;
            lastLineMs = Number.NEGATIVE_INFINITY;
          }
          const line =
            `run ${index + 1}/${total} ${label}: ${fmt(p.visits)} visits, ${fmt(p.queued)} queued, virtual ${(p.virtualMs / 3_600_000).toFixed(2)} h, ` +
            `${fmt(p.wallMs > 0 ? (1000 * p.visits) / p.wallMs : 0)} pages/s`;
          if (isTty) {
            io.err(`\r\x1b[2K${line}`);
            isLineOpen = true;
          } else if (p.wallMs - lastLineMs >= PROGRESS_LINE_MS) {
            lastLineMs = p.wallMs;
            io.err(`${line}\n`);
          }
        },
      });
      try {
        const files = await writeSimulationOutputs(outDir, outcome);
        if (isLineOpen) io.err('\n');
        io.out(simulationSummary(outcome.result));
        io.out(`\nwrote ${files.map((f) => `${outDir}/${f}`).join(', ')}\nreport: shoal report ${outDir}\n`);
      } finally {
        outcome.graph.close();
      }
      setCode(outcome.isInterrupted ? 130 : 0);
    });
}
