/**
 * `npm run bench:sim` (node --import tsx bench/sim.bench.ts [--quick] [--truth DIR]): what a
 * simulated crawl (`src/sim/`) costs on a graph of a million pages and ten million links, with the
 * `pagerank` ordering policy as its defaults set it (the recomputation schedule included: see
 * `src/order/pagerank.ts`), and with `bfs` for comparison. Prints figures, the schedule and how many
 * recomputations it made, and whether the 60 s bound on the pagerank run is MET or MISSED; the exit
 * code is 0 either way (non-zero only if something crashes).
 *
 * The graph: the test web's `large` preset (10,000 hosts, 1,049,308 pages, 11,772,631 distinct
 * links, seed 1; `--quick`: the `demo` preset, 20,000 pages), its ground truth exported once into a
 * cache directory (`--truth DIR`, default `<tmp>/shoal-bench-sim-<preset>`; about 30 s, not counted)
 * and read back by the simulator's truth loader. One node, 32 fetch slots, every politeness default
 * (min delay 1 s, k = 5, one connection per host and per IP: the hosts' loopback addresses), 100 ms
 * per fetch, the web's 50 seeds, until nothing is left to fetch.
 *
 * Each policy runs in a child process of its own (this file with `--child`), so its peak RSS
 * (getrusage) is its own: graph, frontier, policy and visit log. Per run: wall time of the simulated
 * crawl (graph reading apart), visits, pages/s, the time spent inside the policy (`observe`, which
 * carries the recomputations, and `prioritize`) and the rest (frontier, exchange, bookkeeping),
 * priority changes applied, peak RSS.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BreadthFirstPolicy } from '../src/order/bfs.js';
import { PageRankPolicy } from '../src/order/pagerank.js';
import { specLabel } from '../src/core/strings.js';
import {
  canEstimateImportance,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type PriorityChanges,
} from '../src/order/policy.js';
import { loadTruthGraph } from '../src/sim/graph/truth-graph.js';
import { simulate } from '../src/sim/simulator.js';
import { WEB_PRESETS } from '../src/web/presets.js';
import { ensureTruth } from '../src/web/truth/ensure.js';

const BOUND_MS = 60_000;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    truth: { type: 'string' },
    child: { type: 'string' },
  },
});
const preset = flags.quick === true ? 'demo' : 'large';
const truthDir = flags.truth ?? join(tmpdir(), `shoal-bench-sim-${preset}`);

/** What a child reports. */
interface Figures {
  readonly policy: string;
  readonly pages: number;
  readonly links: number;
  readonly loadMs: number;
  readonly wallMs: number;
  readonly visits: number;
  readonly observeMs: number;
  readonly prioritizeMs: number;
  readonly changes: number;
  readonly reprioritized: number;
  readonly virtualHours: number;
  readonly peakRssMb: number;
  /** The policy's spec as a label, every parameter named. */
  readonly spec: string;
  /** PageRank recomputations completed (0 for bfs). */
  readonly recomputations: number;
}

/** Times the calls into a policy, passing everything through. */
class TimedPolicy implements OrderingPolicy {
  observeMs = 0;
  prioritizeMs = 0;
  changes = 0;
  readonly estimate?: (id: number) => number;
  constructor(private readonly inner: OrderingPolicy) {
    if (canEstimateImportance(inner)) this.estimate = (id) => inner.estimate(id);
  }
  get spec(): OrderingPolicy['spec'] {
    return this.inner.spec;
  }
  get needs(): OrderingPolicy['needs'] {
    return this.inner.needs;
  }
  prioritize(url: DiscoveredUrl): number {
    const t = performance.now();
    const p = this.inner.prioritize(url);
    this.prioritizeMs += performance.now() - t;
    return p;
  }
  observe(page: FetchedPage): PriorityChanges {
    const t = performance.now();
    const c = this.inner.observe(page);
    this.observeMs += performance.now() - t;
    this.changes += c.length;
    return c;
  }
}

async function child(policyId: string): Promise<void> {
  const t0 = performance.now();
  const graph = await loadTruthGraph(truthDir);
  const loadMs = performance.now() - t0;
  let timed: TimedPolicy | null = null;
  let pagerank: PageRankPolicy | null = null;
  const make = (): OrderingPolicy => {
    timed = new TimedPolicy(policyId === 'bfs' ? new BreadthFirstPolicy() : (pagerank = new PageRankPolicy()));
    return timed;
  };
  const run = await simulate({ graph, createPolicy: make, concurrency: 32, latencyMs: 100 });
  const t = timed as TimedPolicy | null;
  const figures: Figures = {
    policy: run.policy.id,
    spec: specLabel(run.policy),
    recomputations: (pagerank as PageRankPolicy | null)?.recomputations ?? 0,
    pages: graph.pageCount,
    links: graph.linkCount,
    loadMs,
    wallMs: run.wallMs,
    visits: run.visits.count,
    observeMs: t?.observeMs ?? 0,
    prioritizeMs: t?.prioritizeMs ?? 0,
    changes: t?.changes ?? 0,
    reprioritized: run.nodes[0]?.reprioritized ?? 0,
    virtualHours: run.virtualMs / 3_600_000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

function runChild(policyId: string): Promise<Figures> {
  const self = fileURLToPath(import.meta.url);
  const args = ['--import', 'tsx', self, '--child', policyId, '--truth', truthDir, ...(flags.quick === true ? ['--quick'] : [])];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve, reject) =>
    proc.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') reject(new Error(`the ${policyId} run exited with code ${code}`));
      else resolve(JSON.parse(line) as Figures);
    }),
  );
}

/** Exports the preset's truth into the cache directory unless it is there, saying which. */
async function truthReady(): Promise<void> {
  process.stdout.write(`graph: the ${preset} test web's truth export in ${truthDir} ...\n`);
  const t0 = performance.now();
  const { isCached } = await ensureTruth(WEB_PRESETS[preset], truthDir);
  process.stdout.write(isCached ? '  cached\n' : `  exported in ${((performance.now() - t0) / 1000).toFixed(1)} s (once; not counted)\n`);
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  await truthReady();
  const runs: Figures[] = [];
  for (const id of ['bfs', 'pagerank']) runs.push(await runChild(id));
  const first = runs[0] as Figures;
  process.stdout.write(
    `${fmt(first.pages)} pages, ${fmt(first.links)} links; graph read in ${fmt(first.loadMs)} ms; 1 node, 32 fetch slots, 100 ms per fetch, default politeness\n\n`,
  );
  const header = [
    'policy',
    'wall s',
    'visits',
    'pages/s',
    'policy observe s',
    'policy prioritize s',
    'rest s',
    'changes',
    'applied',
    'virtual h',
    'peak RSS MB',
  ];
  const rows = runs.map((r) => [
    r.policy,
    (r.wallMs / 1000).toFixed(1),
    fmt(r.visits),
    fmt((1000 * r.visits) / r.wallMs),
    (r.observeMs / 1000).toFixed(1),
    (r.prioritizeMs / 1000).toFixed(1),
    ((r.wallMs - r.observeMs - r.prioritizeMs) / 1000).toFixed(1),
    fmt(r.changes),
    fmt(r.reprioritized),
    r.virtualHours.toFixed(2),
    fmt(r.peakRssMb),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows])
    process.stdout.write(`${row.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ')}\n`);
  const pagerank = runs[1] as Figures;
  process.stdout.write(
    `\n${pagerank.spec}: ${fmt(pagerank.recomputations)} recomputations, each once the pages fetched since the last one` +
      ' reached max(recomputeEvery, recomputeGrowth × those fetched when it started)\n',
  );
  const verdict = pagerank.wallMs <= BOUND_MS ? 'MET' : 'MISSED';
  process.stdout.write(
    `\n${pagerank.policy} (defaults) on ${fmt(pagerank.pages)} pages: ${(pagerank.wallMs / 1000).toFixed(1)} s against a bound of ${BOUND_MS / 1000} s: ${verdict}` +
      `${flags.quick === true ? ' (--quick: the bound is for the large graph)' : ''}\n`,
  );
}

if (flags.child !== undefined) await child(flags.child);
else await main();
