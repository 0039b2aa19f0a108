/**
 * `npm run bench:peers` (node --import tsx bench/peers.bench.ts [--runs N] [--quick] [--only a,b]
 * [--site DIR] [--seed-path PATH] [--install-crawlee] [--no-build]): shoal next to other crawlers,
 * each fetching a whole real documentation site served by nginx on loopback, on this machine.
 *
 * The site is the OpenJDK 17 API documentation (`/usr/share/doc/openjdk-17-doc`, seed
 * `/api/index.html`: 10,137 HTML files, about 255 MB), or any folder given with `--site` (the seed
 * then `/index.html` unless `--seed-path` says otherwise). A private nginx serves it (one worker,
 * sendfile, no access log, lib/peers/nginx.ts). The crawlers (lib/peers/crawlers.ts) each fetch the
 * whole site from the seed with 8 connections, no delay, robots.txt not read, on the seed's host:
 * shoal (the built `dist/`, through `bin/shoal.js`, with WARC, CDXJ, crawl log, link graph and page
 * metadata written, its defaults), wget2 (files), wget (files and a WARC file, one connection),
 * Crawlee's CheerioCrawler (installed into `~/.cache/shoal/bench-peers/crawlee` by
 * `--install-crawlee`, never into shoal's dependencies) and a Scrapy CrawlSpider. A crawler that is
 * not installed is skipped with the command that installs it.
 *
 * Runs alternate between the crawlers, round after round (`--runs N`, default 3; `--quick`: 1), each
 * in fresh temporary directories removed after it. Each run is measured from outside by a wrapper
 * (lib/peers/measure.py): wall time, CPU time of the crawler's whole process tree, peak RSS; the
 * pages (2xx HTML responses) come from the crawler's own output. Prints, per crawler, the medians:
 * pages/s (pages over wall time, process start to exit), its ratio to wget2's and to shoal's, CPU ms
 * per page, CPU % (of one core), peak RSS, output size, nginx's CPU % (near 100: the server limited
 * the run); then a last line `BENCH_PEERS_JSON {...}`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dirBytes } from './lib/dir-bytes.mjs';
import { CRAWLEE_VERSION, crawleeDir, installCrawlee, installedCrawlee } from './lib/peers/crawlee.js';
import {
  PEER_IDS,
  crawleePeer,
  scrapyPeer,
  shoalPeer,
  wget2Peer,
  wgetPeer,
  type Peer,
  type PeerId,
  type RunDirs,
} from './lib/peers/crawlers.js';
import { killRunning, runMeasured } from './lib/peers/measure.js';
import { startNginx, type Nginx } from './lib/peers/nginx.js';
import { APT_SITE, firstLine, pythonCandidates, pythonWithScrapy, which } from './lib/peers/programs.js';
import { foldRows, markdownTable, type RunResult } from './lib/peers/report.js';
import { readSite } from './lib/peers/site.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_SITE = '/usr/share/doc/openjdk-17-doc';
const DEFAULT_SEED_PATH = '/api/index.html';
/** A run that has not ended after this long is killed and counted as failed (Scrapy takes about 5 minutes). */
const RUN_TIMEOUT_MS = 30 * 60_000;

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    site: { type: 'string' },
    'seed-path': { type: 'string' },
    'install-crawlee': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`bench:peers: ${message}\n`);
  process.exit(2);
}

const runs = args.quick ? 1 : Number(args.runs);
if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a whole number ≥ 1, not ${args.runs}`);
const selected: PeerId[] = args.only === undefined ? [...PEER_IDS] : (args.only.split(',').map((s) => s.trim()) as PeerId[]);
for (const id of selected) if (!PEER_IDS.includes(id)) fail(`unknown crawler ${id} in --only (crawlers: ${PEER_IDS.join(', ')})`);
const site = resolve(args.site ?? DEFAULT_SITE);
const seedPath = args['seed-path'] ?? (args.site === undefined ? DEFAULT_SEED_PATH : '/index.html');
if (!seedPath.startsWith('/')) fail(`--seed-path must start with /, not ${seedPath}`);

/** Temporary directories of the run in progress, removed by the exit handler when a run is cut short. */
const liveDirs = new Set<string>();

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const loadLabel = (load: readonly number[]): string => load.map((x) => x.toFixed(2)).join(', ');
const say = (line: string): boolean => process.stdout.write(line + '\n');

function skipAll(reason: string): never {
  say(`bench:peers skipped: ${reason}`);
  process.exit(0);
}

/** A crawler left out, and the command that would bring it in. */
interface Skipped {
  readonly id: PeerId;
  readonly reason: string;
  readonly install: string;
}

/** The selected crawlers that can run here, and the others with their install command. */
function findPeers(): { peers: Peer[]; skipped: Skipped[] } {
  const peers: Peer[] = [];
  const skipped: Skipped[] = [];
  for (const id of selected) {
    if (id === 'shoal') {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
      peers.push(shoalPeer(join(ROOT, 'bin', 'shoal.js'), `shoal ${pkg.version}${commit ? ` (${commit})` : ''}`));
    } else if (id === 'wget2' || id === 'wget') {
      const path = which(id);
      if (path === null)
        skipped.push({ id, reason: `${id} is not installed`, install: `apt-get install -y --no-install-recommends ${id}` });
      else {
        const version = firstLine(path, ['--version'])
          .replace(/^GNU /, '')
          .replace(/ - .*| built on .*/, '');
        peers.push(id === 'wget2' ? wget2Peer(path, version) : wgetPeer(path, version));
      }
    } else if (id === 'scrapy') {
      const found = pythonWithScrapy(pythonCandidates());
      if (found === null)
        skipped.push({ id, reason: 'no python3 can import scrapy', install: 'apt-get install -y --no-install-recommends python3-scrapy' });
      else peers.push(scrapyPeer(found.python, `Scrapy ${found.version}`));
    } else {
      const dir = crawleeDir();
      if (args['install-crawlee'] && installedCrawlee(dir) !== CRAWLEE_VERSION) {
        say(`installing crawlee@${CRAWLEE_VERSION} into ${dir}`);
        installCrawlee(dir);
      }
      const version = installedCrawlee(dir);
      if (version === null)
        skipped.push({ id, reason: `Crawlee is not installed in ${dir}`, install: 'npm run bench:peers -- --install-crawlee' });
      else peers.push(crawleePeer(process.execPath, dir, `Crawlee ${version}`));
    }
  }
  return { peers, skipped };
}

/** Runs one crawler once and reads its figures; a failed run is returned with its reason, not thrown. */
async function runOnce(peer: Peer, round: number, python: string, nginx: Nginx, seedUrl: string): Promise<RunResult> {
  const base = mkdtempSync(join(tmpdir(), `shoal-bench-peers-${peer.id}-`));
  const dirs: RunDirs = { work: join(base, 'work'), extra: join(base, 'extra'), meta: join(base, 'meta') };
  liveDirs.add(base);
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  const log = join(dirs.meta, 'crawler.log');
  try {
    // The crawl before left hundreds of MB of dirty pages that the kernel writes back while the
    // next one runs (wget2 took 13-17 s instead of 3 s in such runs): each run starts with none.
    spawnSync('sync', { stdio: 'ignore' });
    const server0 = nginx.cpuMs();
    const usage = await runMeasured(python, peer.command(seedUrl, dirs), join(dirs.meta, 'usage.json'), log, RUN_TIMEOUT_MS);
    const serverCpuMs = nginx.cpuMs() - server0;
    let failure: string | null = peer.okExitCodes.includes(usage.exitCode) ? null : `exit code ${usage.exitCode}`;
    let counts = { pages: 0, other: 0 };
    try {
      counts = peer.count(dirs);
    } catch (err) {
      failure ??= `no counts: ${(err as Error).message}`;
    }
    if (failure === null && counts.pages === 0) failure = 'no page fetched';
    if (failure !== null) {
      const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-15).join('\n  ');
      process.stderr.write(`  ${peer.id} failed (${failure}); the end of its output:\n  ${tail}\n`);
    }
    return {
      peer: peer.id,
      round,
      exitCode: usage.exitCode,
      wallMs: usage.wallMs,
      cpuMs: usage.userMs + usage.systemMs,
      peakRssMib: usage.maxRssKb / 1024,
      pages: counts.pages,
      other: counts.other,
      outputBytes: dirBytes(dirs.work) + dirBytes(dirs.extra),
      serverCpuMs,
      failure,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
    liveDirs.delete(base);
    spawnSync('sync', { stdio: 'ignore' });
  }
}

async function main(): Promise<void> {
  const seedFile = join(site, seedPath);
  if (!existsSync(seedFile)) {
    skipAll(`no ${seedFile}. The default site is the OpenJDK 17 API documentation: ${APT_SITE} (or --site DIR --seed-path /PAGE)`);
  }
  const nginxPath = which('nginx');
  if (nginxPath === null) skipAll(`nginx is not installed: ${APT_SITE}`);
  // The measuring wrapper needs only the standard library: Debian's own python3 is always there.
  const python = pythonCandidates()[0];
  if (python === undefined) skipAll('no python3 to measure the crawlers with: apt-get install -y python3');

  const { peers, skipped } = findPeers();
  if (peers.length === 0)
    skipAll(`none of the crawlers asked for is installed:\n${skipped.map((s) => `  ${s.id}: ${s.install}`).join('\n')}`);
  if (peers.some((p) => p.id === 'shoal') && !args['no-build']) {
    say('building shoal (npm run build): the bench runs the built dist/ through bin/shoal.js');
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) fail(`npm run build failed (exit ${build.status})`);
  }

  const seedDir = dirname(seedFile);
  const t0 = performance.now();
  const files = readSite(seedDir);
  say(
    `site: ${site}, seed ${seedPath}; under ${seedDir}: ${int(files.htmlFiles)} HTML files, ${int(files.files)} files, ` +
      `${int(files.bytes / 1e6)} MB (read in ${int(performance.now() - t0)} ms to warm the page cache)`,
  );

  const nginx = await startNginx(nginxPath, site, seedPath);
  const onExit = (): void => {
    killRunning();
    nginx.kill();
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  process.once('exit', onExit);
  process.once('SIGINT', () => {
    onExit();
    process.exit(130);
  });
  const seedUrl = nginx.origin + seedPath;
  say(`server: ${firstLine(nginxPath, ['-v']).replace(/^nginx version: /, '')} at ${nginx.origin}, 1 worker, sendfile, no access log`);
  const loadAtStart = loadavg();
  say(`seed: ${seedUrl}; ${runs} run(s) per crawler, alternating; load average ${loadLabel(loadAtStart)}`);
  say('crawlers:');
  for (const p of peers)
    say(`  ${p.id}: ${p.version}; ${p.command(seedUrl, { work: 'WORK', extra: 'EXTRA', meta: 'META' }).argv.join(' ')}`);
  for (const s of skipped) say(`  ${s.id}: skipped, ${s.reason}; to include it: ${s.install}`);

  const results: RunResult[] = [];
  for (let round = 1; round <= runs; round++) {
    // Each round starts one crawler further on, so that no crawler always runs first or last.
    const order = peers.map((_, i) => peers[(i + round - 1) % peers.length] as Peer);
    for (const peer of order) {
      const r = await runOnce(peer, round, python, nginx, seedUrl);
      results.push(r);
      process.stderr.write(
        `  round ${round}/${runs} ${peer.id}: ${(r.wallMs / 1000).toFixed(1)} s, ${int(r.pages)} pages + ${int(r.other)} other, ` +
          `${int(r.pages / (r.wallMs / 1000))} pages/s, CPU ${(r.cpuMs / r.pages).toFixed(2)} ms/page, peak RSS ${int(r.peakRssMib)} MiB` +
          `${r.failure === null ? '' : ` (FAILED: ${r.failure})`}\n`,
      );
    }
  }
  await nginx.stop();
  const loadAtEnd = loadavg();

  const rows = foldRows(peers, results);
  say('');
  say(markdownTable(rows));
  say('');
  say(
    `pages: 2xx HTML responses (the site has ${int(files.htmlFiles)} HTML files under the seed's folder); other: 2xx responses of other types; ` +
      'pages/s: pages over wall time (process start to exit); CPU: user + system of the whole process tree; ' +
      'peak RSS: the largest process; nginx CPU %: of one core, its one worker.',
  );
  say(`load average (1, 5, 15 min): ${loadLabel(loadAtStart)} at the start, ${loadLabel(loadAtEnd)} at the end`);
  for (const s of skipped) say(`${s.id} skipped (${s.reason}): ${s.install}`);
  say(
    `BENCH_PEERS_JSON ${JSON.stringify({
      site,
      seedPath,
      siteHtmlFiles: files.htmlFiles,
      runsPerCrawler: runs,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      isQuick: args.quick,
      crawlers: rows,
      skipped,
      runs: results,
    })}`,
  );
}

await main();
