/**
 * `npm run bench:web`: how fast the test web serves, so that it is never the bottleneck of a
 * crawler benchmark (target: >= 10,000 small pages/s on one core). Prints figures, asserts none.
 *
 * The server runs in a forked child (this script with `--serve NAME`), so its CPU time and RSS are
 * measured alone; autocannon generates load in this process, on loopback only. Each scenario is
 * run through the forward proxy (absolute-form targets) and directly on the hosts' own addresses.
 *
 * Flags: `--quick` (one 3 s run per scenario, for trying changes), `--only ID` (one scenario, e.g.
 * `small-cold`; repeatable), `--profile DIR` (V8 CPU profile of each server child into DIR).
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, stopLoad, type LoadTarget } from './lib/load.js';
import type { AddressMode, PageRef } from './lib/protocol.js';
import {
  buildLine,
  foldRuns,
  jsonLine,
  modeLine,
  runFigures,
  summaryTable,
  type BuildFigures,
  type ModeFigures,
  type RunFigures,
} from './lib/report.js';
import { sampleCheck } from './lib/sample-check.js';
import { LOAD_SCENARIOS, SERVER_SPECS, isServerSpecName, type LoadScenario, type ServerSpecName } from './lib/scenarios.js';
import { ServerProcess, killAllServers } from './lib/server-process.js';

/** How long and how often each scenario-mode is loaded. */
interface Timing {
  readonly runs: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

const FULL: Timing = { runs: 3, seconds: 5, warmupSeconds: 1 };
const QUICK: Timing = { runs: 1, seconds: 3, warmupSeconds: 1 };
/** Connections: one per address in direct mode, as many through the proxy. */
const CONNECTIONS = 64;
const SAMPLE_CHECKS = 20;
const MB = 1e6;

const LEGEND = [
  `proxy = absolute-form requests to the forward proxy; direct = one connection per host address (Host header set), ${CONNECTIONS} of the pool's addresses.`,
  'srv µs/req = server child CPU (user+sys, from process.cpuUsage) / requests it saw; sys% = kernel share of it; req/s/core = 1e6 / srv µs/req.',
  'bound = the side using >= 90% of a core (- = neither: cores shared with other processes). Pages: distinct `ok` pages, slow hosts left out',
  '(their latency costs time, not CPU). The server\'s request log is emptied before each run, except in "request log full",',
  'where it is pre-filled to its limit (200,000 records): the steady state of any run of more than 200,000 requests.',
];

interface Options {
  readonly timing: Timing;
  /** Scenario ids to run (all when empty). */
  readonly only: readonly string[];
  readonly profileDir: string | null;
  readonly script: string;
}

function target(server: ServerProcess, mode: AddressMode, pages: readonly PageRef[]): LoadTarget {
  return { mode, port: server.info.port, proxyUrl: server.info.proxyUrl, pages, connections: CONNECTIONS };
}

/** Loads one scenario in one mode: spot check, warm-up, then the measured runs. */
async function measureMode(server: ServerProcess, s: LoadScenario, mode: AddressMode, timing: Timing): Promise<ModeFigures> {
  const pages = await server.pages({ count: s.pages, mode, addressCount: CONNECTIONS, seed: 7, excludeSlowHosts: s.excludeSlowHosts });
  const sample = await sampleCheck(pages, SAMPLE_CHECKS, mode, server.info.port, server.info.proxyUrl);
  const t = target(server, mode, pages);
  await runLoad(t, timing.warmupSeconds);
  // Each run starts with an empty request log (it keeps 200,000 records; once full, every request
  // costs far more), except in the scenario that measures a full log.
  const emptyLog = !SERVER_SPECS[s.server].fillRequestLog;
  const runs: RunFigures[] = [];
  for (let i = 0; i < timing.runs; i++) {
    if (emptyLog) await server.clearLog();
    const before = await server.stats();
    const load = await runLoad(t, timing.seconds);
    runs.push(runFigures(load, before, await server.stats()));
  }
  const after = await server.stats();
  return foldRuns({ scenario: s.id, title: s.title, mode, workingSet: pages.length, secondsPerRun: timing.seconds, sample, after }, runs);
}

/** Starts one server child, runs its scenarios, stops it. */
async function measureServer(spec: ServerSpecName, options: Options, modes: ModeFigures[]): Promise<BuildFigures> {
  const server = await ServerProcess.start(spec, { script: options.script, profileDir: options.profileDir });
  try {
    const i = server.info;
    console.log(
      `[${spec}] listening: ${i.hostCount} hosts, ${i.pageCount} pages, startTestWeb ${i.buildMs.toFixed(0)} ms, RSS ${(i.rssBytes / MB).toFixed(0)} MB`,
    );
    for (const s of selected(options).filter((x) => x.server === spec)) {
      for (const mode of s.modes) {
        const m = await measureMode(server, s, mode, options.timing);
        modes.push(m);
        console.log(modeLine(m));
      }
    }
    const peak = (await server.stats()).peakRssBytes;
    return {
      server: spec,
      pages: i.pageCount,
      hosts: i.hostCount,
      addresses: i.addressCount,
      slowHosts: i.slowHostCount,
      buildMs: i.buildMs,
      spawnToReadyMs: server.spawnToReadyMs,
      rssAfterBuildMb: i.rssBytes / MB,
      peakRssMb: peak / MB,
    };
  } finally {
    await server.stop();
  }
}

function selected(options: Options): LoadScenario[] {
  return LOAD_SCENARIOS.filter((s) => options.only.length === 0 || options.only.includes(s.id));
}

function onSignal(signal: NodeJS.Signals): void {
  console.error(`\n${signal}: stopping`);
  stopLoad();
  killAllServers();
  process.exit(130);
}

async function main(options: Options): Promise<number> {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllServers);
  const t0 = performance.now();
  const load0 = loadavg();
  const { timing } = options;
  console.log(
    `web bench: ${timing.runs} run(s) of ${timing.seconds} s per scenario and mode (after ${timing.warmupSeconds} s warm-up), ` +
      `${CONNECTIONS} keep-alive connections, pipelining 1; req/s is the median over runs`,
  );
  const builds: BuildFigures[] = [];
  const modes: ModeFigures[] = [];
  try {
    const specs = (Object.keys(SERVER_SPECS) as ServerSpecName[]).filter(
      (spec) => spec === 'large' || selected(options).some((s) => s.server === spec),
    );
    for (const spec of specs) builds.push(await measureServer(spec, options, modes));
  } finally {
    killAllServers();
  }
  console.log('\nBuild (scenario 1: `large` preset as configured):');
  for (const b of builds) console.log(`  ${buildLine(b)}`);
  console.log(`\n${summaryTable(modes)}\n`);
  console.log(LEGEND.join('\n'));
  const machine = { cpus: cpus().length, loadAvg1mStart: load0[0], loadAvg1mEnd: loadavg()[0] };
  console.log(
    `machine: ${machine.cpus} CPUs, 1-min load average ${machine.loadAvg1mStart?.toFixed(2)} at start, ` +
      `${machine.loadAvg1mEnd?.toFixed(2)} at end (above ~2 other processes compete for the cores: figures are noisier)`,
  );
  console.log(jsonLine(builds, modes, { timing, connections: CONNECTIONS, machine, totalSeconds: (performance.now() - t0) / 1000 }));
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return 0;
}

const args = parseArgs({
  options: {
    serve: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    profile: { type: 'string' },
  },
  allowPositionals: false,
});

if (args.values.serve !== undefined) {
  const spec = args.values.serve;
  if (!isServerSpecName(spec)) throw new Error(`unknown server configuration ${spec}`);
  const { serveChild } = await import('./lib/serve-child.js');
  await serveChild(spec);
} else {
  process.exitCode = await main({
    timing: args.values.quick ? QUICK : FULL,
    only: args.values.only ?? [],
    profileDir: args.values.profile ?? null,
    script: fileURLToPath(import.meta.url),
  });
}
