/**
 * `startTestWeb(config)`: builds the model, serves it on loopback, writes the hosts map, seed list,
 * sitemap list and IP → city table, and returns a handle with `close()`. `shoal web` is a thin
 * wrapper around it.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebConfig, WebConfigInput } from './config.js';
import { addressPool } from './hosts.js';
import { ipCitiesCsv } from './ip-cities.js';
import { WebModel } from './model.js';
import { resolveReplayHosts, type ReplayHost } from './replay.js';
import type { RequestLog } from './request-log.js';
import { TestWebServer } from './server.js';
import { IP_CITIES_FILE } from './truth/format.js';
import { openWarcReplay, type WarcReplay } from './warc-replay.js';

/** A running test web. */
export interface TestWeb {
  readonly model: WebModel;
  readonly config: WebConfig;
  /** Port every host listens on. */
  readonly port: number;
  /**
   * Seed URLs: home pages of the largest ordinary hosts, then each replay host's root, then the root
   * of each WARC host whose root was captured.
   */
  readonly seeds: readonly string[];
  /** host -> IP for every synthetic and replay host. */
  readonly hostsMap: ReadonlyMap<string, string>;
  /** Path of the hosts map in /etc/hosts format (`IP name` lines). */
  readonly hostsFile: string;
  /** Path of the seed list (one URL per line). */
  readonly seedsFile: string;
  /** Path of the list of the hosts' sitemaps (one `/sitemap.xml` URL per line, listed in robots.txt or not). */
  readonly sitemapsFile: string;
  /**
   * Path of `ip-cities.csv`: the city each server address stands in, a range table for the `ip`
   * geo strategy (src/web/ip-cities.ts); the same bytes as the truth export's.
   */
  readonly ipCitiesFile: string;
  /** `http://127.0.0.1:PORT` of the forward proxy, or null. */
  readonly proxyUrl: string | null;
  readonly replayHosts: readonly ReplayHost[];
  /** The WARC files served and their hosts, or null without `warc`. */
  readonly warc: WarcReplay | null;
  /** The server's record of every request. */
  readonly log: RequestLog;
  /** Absolute URL of page `g`. */
  url(g: number): string;
  /** Stops serving and removes the temporary folder, if one was made (idempotent). */
  close(): Promise<void>;
}

/** Starts a test web from a (partial) configuration. */
export async function startTestWeb(input: WebConfigInput | WebConfig = {}): Promise<TestWeb> {
  const model = new WebModel(input);
  const config = model.config;
  const pool = addressPool(config);
  const replayHosts = await resolveReplayHosts(config.replay, pool, (n) => model.hostByName(n) !== undefined);
  const warc = await openWarcReplay(
    config.warc,
    pool,
    replayHosts.length,
    (n) => model.hostByName(n) !== undefined || replayHosts.some((r) => r.name === n),
  );
  const server = new TestWebServer(model, { replay: replayHosts, warc });
  await server.listen();
  const port = server.listenPort;
  try {
    // Without an outDir the hosts map and seed list go to a temporary folder removed by close().
    const isTemporary = config.outDir === null;
    const dir = config.outDir ?? mkdtempSync(join(tmpdir(), 'shoal-web-'));
    const close = async (): Promise<void> => {
      await server.close();
      if (isTemporary) rmSync(dir, { recursive: true, force: true });
    };
    mkdirSync(dir, { recursive: true });
    const hostsMap = new Map<string, string>();
    for (const h of model.hosts) hostsMap.set(h.name, h.ip);
    for (const r of replayHosts) hostsMap.set(r.name, r.ip);
    for (const h of warc?.hosts ?? []) hostsMap.set(h.name, h.ip);
    const hostsFile = join(dir, 'hosts');
    writeFileSync(
      hostsFile,
      `# shoal test web (seed ${config.seed}, port ${port}): IP host\n${[...hostsMap].map(([n, ip]) => `${ip} ${n}`).join('\n')}\n`,
    );
    const portText = port === 80 ? '' : `:${port}`;
    const warcSeeds = (warc?.hosts ?? [])
      .filter((h) => warc?.index.captures(`${h.name}/`).length)
      .map((h) => `http://${h.name}${portText}/`);
    const seeds = [
      ...model.seedPages().map((g) => model.url(g, port)),
      ...replayHosts.map((r) => `http://${r.name}${portText}/`),
      ...warcSeeds,
    ];
    const seedsFile = join(dir, 'seeds.txt');
    writeFileSync(seedsFile, `${seeds.join('\n')}\n`);
    // Seed hosts first: a crawl from a sitemap of this list starts where a crawl from the seeds does.
    const seedHosts = new Set(model.seedPages().map((g) => model.hostOf(g).index));
    const withSitemap = model.hosts.filter((h) => h.sitemap !== 'none' && !h.isRefusing);
    const sitemaps = [...withSitemap.filter((h) => seedHosts.has(h.index)), ...withSitemap.filter((h) => !seedHosts.has(h.index))].map(
      (h) => `http://${h.name}${portText}/sitemap.xml`,
    );
    const sitemapsFile = join(dir, 'sitemaps.txt');
    writeFileSync(sitemapsFile, sitemaps.length === 0 ? '' : `${sitemaps.join('\n')}\n`);
    const ipCitiesFile = join(dir, IP_CITIES_FILE);
    writeFileSync(ipCitiesFile, ipCitiesCsv(model));
    const proxyPort = server.forwardProxyPort;
    return {
      model,
      config,
      port,
      seeds,
      hostsMap,
      hostsFile,
      seedsFile,
      sitemapsFile,
      ipCitiesFile,
      replayHosts,
      warc,
      proxyUrl: proxyPort === null ? null : `http://${config.server.proxyAddress}:${proxyPort}`,
      log: server.log,
      url: (g) => model.url(g, port),
      close,
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}
