/**
 * `shoal web` serves the test web and prints its seeds, hosts map and a summary;
 * `shoal web export --out DIR` writes its ground truth. Both take the same configuration:
 * preset < --config file < SHOAL_WEB_* environment < flags.
 */
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { applySets, loadConfig, setPath, type ConfigTree } from '../../config/load.js';
import { checkTestWeb } from '../../web/check.js';
import { webConfigSchema, type WebConfig } from '../../web/config.js';
import { WebModel } from '../../web/model.js';
import { WEB_PRESETS, WEB_PRESET_NAMES, type WebPresetName } from '../../web/presets.js';
import { startTestWeb } from '../../web/start.js';
import { exportTruth } from '../../web/truth/export.js';
import type { WarcReplay } from '../../web/warc-replay.js';
import type { CliIo } from '../cli-io.js';
import { collect, fmt } from '../format.js';

interface WebFlags {
  config?: string;
  preset?: string;
  seed?: string;
  port?: string;
  proxyPort?: string;
  out?: string;
  replay: string[];
  warc?: string[];
  set: string[];
}

function addConfigFlags(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'YAML or JSON configuration file')
    .option('--preset <name>', `start from a preset: ${WEB_PRESET_NAMES.join(', ')}`)
    .option('--seed <n>', 'seed of the generator')
    .option('--port <n>', 'port every host listens on (0 = a free port)')
    .option('--proxy-port <n>', 'also act as a forward proxy on 127.0.0.1:<n> (0 = a free port)')
    .option('--replay <host=dir>', 'serve a folder of files as a virtual host (repeatable)', collect, [])
    .option('--set <path=value>', 'set any option, e.g. --set links.topicLocality=0.8 (repeatable)', collect, []);
}

/** Builds the web configuration from preset, file, environment and flags. */
export function webConfigFromFlags(flags: WebFlags, env: Readonly<Record<string, string | undefined>>): WebConfig {
  // WARC files alone, unless a preset asks for a synthetic web beside them (a file or --set may too).
  let preset: ConfigTree | undefined = (flags.warc ?? []).length > 0 ? { hosts: 0, pages: 0 } : undefined;
  if (flags.preset !== undefined) {
    if (!(flags.preset in WEB_PRESETS)) {
      throw new ConfigError([{ path: '--preset', message: `unknown preset ${flags.preset}; one of ${WEB_PRESET_NAMES.join(', ')}` }], {
        code: 'USAGE',
      });
    }
    preset = structuredClone(WEB_PRESETS[flags.preset as WebPresetName]) as ConfigTree;
  }
  const tree: ConfigTree = {};
  const problems: { path: string; message: string }[] = [];
  const num = (flag: string, path: string, raw: string | undefined): void => {
    if (raw === undefined) return;
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v)) problems.push({ path: flag, message: `expected a number, got ${JSON.stringify(raw)}` });
    else setPath(tree, path, v);
  };
  num('--seed', 'seed', flags.seed);
  num('--port', 'server.port', flags.port);
  num('--proxy-port', 'server.proxyPort', flags.proxyPort);
  if (flags.out !== undefined) setPath(tree, 'outDir', flags.out);
  const replay = flags.replay.map((r, i) => {
    const eq = r.indexOf('=');
    if (eq <= 0) problems.push({ path: `--replay[${i}]`, message: `expected HOST=DIR, got ${JSON.stringify(r)}` });
    return { host: r.slice(0, eq).toLowerCase(), root: r.slice(eq + 1) };
  });
  if (replay.length > 0) tree['replay'] = replay;
  if ((flags.warc ?? []).length > 0) tree['warc'] = flags.warc;
  applySets(tree, flags.set, problems);
  try {
    const config = loadConfig(webConfigSchema, { preset, file: flags.config, env, envPrefix: 'SHOAL_WEB_', flags: tree });
    if (problems.length > 0) throw new ConfigError(problems, { code: 'USAGE' });
    return config;
  } catch (err) {
    // Report the flag problems together with the configuration's own, every one with its path.
    if (err instanceof ConfigError && problems.length > 0 && err.code !== 'USAGE') throw new ConfigError([...problems, ...err.issues]);
    throw err;
  }
}

/** What the WARC replay serves: hosts, URLs, files and where each file's index came from. */
function warcSummary(warc: WarcReplay): string {
  const { index, hosts } = warc;
  const files = index.files.map((f) => {
    const from = f.indexedFrom === 'scan' ? 'records read' : `index ${f.indexedFrom}`;
    return `  ${f.path}: ${fmt(f.captures)} captures (${from})${f.problem === null ? '' : `; stopped early: ${f.problem}`}\n`;
  });
  return `warc hosts: ${fmt(hosts.length)} hosts, ${fmt(index.urlCount)} URLs from ${index.files.length} files\n${files.join('')}`;
}

export function registerWebCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  const web = addConfigFlags(
    program
      .command('web')
      .description('serve the synthetic test web (and replay folders and WARC files) on loopback')
      .enablePositionalOptions(),
  )
    .option('--warc <file...>', 'serve the hosts of WARC files, each response as recorded (alone, unless --preset is given)')
    .option('--out <dir>', 'where to write the hosts map and seed list (default: a temporary folder)')
    .option('--check <n>', 'fetch n pages over real sockets, print what came back, and exit')
    .option('--for <seconds>', 'serve for this many seconds, then exit (default: until Ctrl-C)')
    .action(async (opts: WebFlags & { check?: string; for?: string }) => {
      const config = webConfigFromFlags(opts, io.env);
      // Listened to from the start: Ctrl-C or a closed output then always closes the web (and removes its temporary folder).
      const stopped = io.interrupted;
      const t0 = performance.now();
      const handle = await startTestWeb(config);
      const { model } = handle;
      const ips = new Set(model.hosts.map((h) => h.ip));
      const ready = `port ${handle.port}; ready in ${Math.round(performance.now() - t0)} ms`;
      io.out(
        model.hosts.length === 0
          ? `shoal web: no synthetic hosts (WARC hosts only), ${ready}\n`
          : `shoal web: ${fmt(model.hosts.length)} hosts, ${fmt(model.pageCount)} pages (seed ${config.seed}, ${config.links.model} model)` +
              ` on ${ips.size} addresses, ${ready}\n`,
      );
      if (handle.replayHosts.length > 0) io.out(`replay hosts: ${handle.replayHosts.map((r) => `${r.name} -> ${r.root}`).join(', ')}\n`);
      if (handle.warc !== null) io.out(warcSummary(handle.warc));
      io.out(
        `hosts map: ${handle.hostsFile}\nseed list: ${handle.seedsFile}\nsitemap list: ${handle.sitemapsFile}\n` +
          `ip-city table: ${handle.ipCitiesFile}\n`,
      );
      if (handle.proxyUrl !== null) io.out(`forward proxy: ${handle.proxyUrl}\n`);
      io.out(`seeds:\n${handle.seeds.map((s) => `  ${s}`).join('\n')}\n`);
      try {
        if (opts.check !== undefined) {
          const r = await Promise.race([checkTestWeb(handle, Number(opts.check)), stopped.then(() => null)]);
          if (r === null) {
            setCode(130);
            return;
          }
          const statuses = [...r.byStatus]
            .sort((a, b) => a[0] - b[0])
            .map(([s, c]) => `${s === 0 ? 'reset/timeout' : s}: ${c}`)
            .join(', ');
          io.out(
            `check: ${r.requested} pages in ${Math.round(r.elapsedMs)} ms (${Math.round(r.requested / (r.elapsedMs / 1000))} pages/s, ${fmt(r.bytes)} bytes): ${statuses}\n`,
          );
          setCode((r.byStatus.get(200) ?? 0) > 0 ? 0 : 1);
          return;
        }
        io.out(opts.for === undefined ? 'serving; Ctrl-C to stop\n' : `serving for ${opts.for} s\n`);
        const timer = opts.for === undefined ? null : new Promise<void>((resolve) => setTimeout(resolve, Number(opts.for) * 1000).unref());
        await Promise.race([stopped, ...(timer === null ? [] : [timer])]);
        io.out(`stopped after ${fmt(handle.log.count)} requests\n`);
      } finally {
        await handle.close();
      }
    });

  addConfigFlags(web.command('export').description('write the ground truth (graph, labels, PageRank, entities) to a folder'))
    .requiredOption('--out <dir>', 'folder to write (created; an earlier export there is replaced)')
    .option('--url-port <n>', 'port the web is served on, recorded in the manifest for URLs')
    .action(async (opts: WebFlags & { urlPort?: string }) => {
      const { out, ...rest } = opts;
      const config = webConfigFromFlags(rest, io.env);
      const t0 = performance.now();
      const model = new WebModel(config);
      let last = 0;
      const summary = await exportTruth(model, out as string, {
        port: opts.urlPort === undefined ? null : Number(opts.urlPort),
        onProgress: (done, total) => {
          const now = performance.now();
          if (now - last > 2000) {
            last = now;
            io.err(`  ${Math.round((100 * done) / total)}% (${fmt(done)} / ${fmt(total)} pages)\n`);
          }
        },
      });
      io.out(`shoal web export: ${JSON.stringify(summary)} to ${out} in ${Math.round(performance.now() - t0)} ms\n`);
    });
}
