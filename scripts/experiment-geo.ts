/**
 * `npm run experiment:geo` (node --import tsx scripts/experiment-geo.ts [--pages N] [--repeats R]): reproduces the
 * comparison of seed 003 (geographically focused collaborative crawling against URL hashing) with
 * live crawls of the `demo` test web over loopback, and regenerates docs/experiments/geo-crawling.md
 * from the measured tables. The document is never edited by hand.
 *
 * Every run crawls the same web from the same seeds with 6 nodes (5 time-zone nodes and 1 general
 * node, the paper's layout), the same page budget and `scope.maxPathDepth: 5` (the paper's per-site
 * depth bound); only the partitioning changes: url-hash, then each geo strategy (url, anchor,
 * content, classifier, ip, and combined = anchor → url → content) with Policy A and with Policy B.
 * The classifier is trained first on a truth export of the same preset with another seed, so it is
 * never tested on its own training pages; the ip strategy reads the test web's own IP → city table.
 * Each configuration is crawled R times (default 3: concurrent nodes sharing one budget make crawls
 * differ by a few points) and each crawl is measured by `shoal eval`'s code against the web's ground
 * truth (scripts/experiment-geo/measure.ts); the tables give means, and the verdicts compare them
 * with the paper's findings and fail when the data says so. A failing verdict is printed as failing;
 * the script exits non-zero only when a run breaks. Takes about 8 minutes on a 2-core machine (about
 * 10 s per crawl of 3,000 pages); progress goes to stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeModelFile } from '../src/classify/model-file.js';
import { NaiveBayesClassifier } from '../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../src/classify/naive-bayes-trainer.js';
import { geoTargetsOfSpec } from '../src/cluster/read-geo.js';
import type { CrawlConfigInput } from '../src/config/crawl-config.js';
import { Crawl } from '../src/crawl/crawl.js';
import { Gazetteer } from '../src/geo/gazetteer.js';
import { createGeoStrategy } from '../src/geo/geo-strategies.js';
import { GeoPartitioner } from '../src/partition/geo/geo.js';
import { NO_CITY_LABEL, readTrainingSource } from '../src/training/training-sources.js';
import { WebModel } from '../src/web/model.js';
import { WEB_PRESETS } from '../src/web/presets.js';
import { startTestWeb } from '../src/web/start.js';
import { exportTruth } from '../src/web/truth/export.js';
import { readTruth } from '../src/web/truth/read.js';
import { measureRun, runName, type Measured, type RunGroup, type RunSpec } from './experiment-geo/measure.js';
import { PageFacts } from './experiment-geo/page-facts.js';
import { render } from './experiment-geo/render.js';
import type { Setup } from './experiment-geo/tables.js';
import { testWebGeo } from './experiment-geo/test-web-geo.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs', 'experiments', 'geo-crawling.md');
const { values: flags } = parseArgs({ options: { pages: { type: 'string' }, repeats: { type: 'string' } } });
const PAGES = Number(flags.pages ?? 3000);
const REPEATS = Number(flags.repeats ?? 3);
if (!Number.isInteger(PAGES) || PAGES < 100) throw new RangeError(`--pages: an integer of at least 100, got ${flags.pages}`);
if (!Number.isInteger(REPEATS) || REPEATS < 1) throw new RangeError(`--repeats: a positive integer, got ${flags.repeats}`);
/** 5 time-zone nodes and 1 general node, as the paper. */
const NODES = 6;
const MAX_PATH_DEPTH = 5;
const WEB_SEED = 1;
const TRAIN_SEED = 2;
const started = performance.now();
const log = (line: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};

const GEO_STRATEGIES = ['url', 'anchor', 'content', 'classifier', 'ip', 'combined'] as const;
const RUNS: RunSpec[] = [
  { strategy: 'url-hash', policy: null },
  ...GEO_STRATEGIES.flatMap((strategy) => (['A', 'B'] as const).map((policy) => ({ strategy, policy }))),
];

const dir = mkdtempSync(join(tmpdir(), 'shoal-experiment-geo-'));
const web = await startTestWeb({ ...WEB_PRESETS.demo, seed: WEB_SEED });
const measured: RunGroup[] = [];
try {
  log(`test web: ${web.model.pageCount.toLocaleString('en-US')} pages on ${web.hostsMap.size} hosts`);
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  const truth = await readTruth(join(dir, 'truth'));
  const facts = await PageFacts.of(truth);
  const webGeo = await testWebGeo(truth, web.config, web.ipCitiesFile, MAX_PATH_DEPTH);

  log(`city classifier: training on the demo web with seed ${TRAIN_SEED}`);
  const modelPath = join(dir, 'city.json.gz');
  const classifier = await trainCityModel(join(dir, 'train-truth'), modelPath);
  log(`city classifier: ${classifier.documents} pages, ${classifier.categories} classes, digest ${classifier.digest.slice(0, 16)}`);

  // The cities of each partition under the default grouping, for scoring the url-hash nodes.
  const gazetteer = Gazetteer.usTop();
  const layout = new GeoPartitioner(createGeoStrategy('url', { gazetteer }), gazetteer, NODES);
  const fallbackTargets = geoTargetsOfSpec(layout.spec, NODES);
  if (fallbackTargets === null) throw new Error('the geo partitioner wrote no city list into its spec');

  for (const [i, run] of RUNS.entries()) {
    const crawls: Measured[] = [];
    for (let k = 0; k < REPEATS; k++) {
      const out = join(dir, `run-${i}-${k}`);
      const config = crawlConfigOf(run, out, modelPath);
      const label = `${runName(run)} (${k + 1}/${REPEATS})`;
      log(`${label}: crawling ${PAGES} pages on ${NODES} nodes`);
      const t0 = performance.now();
      await new Crawl(config).run();
      const seconds = (performance.now() - t0) / 1000;
      const m = await measureRun(run, out, seconds, truth, facts, config, NODES, fallbackTargets);
      crawls.push(m);
      rmSync(out, { recursive: true, force: true });
      log(
        `${label}: ${seconds.toFixed(1)} s, geo coverage ${pct(m.geo.coverage.coverage)}, focus ${pct(m.geo.focus.mean)}, ` +
          `overlap ${m.metrics.overlap.overlap.toFixed(4)}, URLs/page ${m.metrics.communication.urlsPerPage?.toFixed(2) ?? 'n/a'}`,
      );
    }
    measured.push({ run, crawls });
  }
  const setup: Setup = {
    pages: PAGES,
    repeats: REPEATS,
    nodes: NODES,
    maxPathDepth: MAX_PATH_DEPTH,
    webSeed: WEB_SEED,
    trainSeed: TRAIN_SEED,
    webPages: web.model.pageCount,
    webHosts: web.hostsMap.size,
    classifier,
    webGeo,
    groups: layout.citiesOfPartitions.map((cities) => cities.length),
    totalSeconds: (performance.now() - started) / 1000,
  };
  writeFileSync(DOC, render(measured, setup));
  log(`wrote ${DOC}`);
} finally {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}

function pct(x: number | null): string {
  return x === null ? 'n/a' : `${(100 * x).toFixed(1)} %`;
}

/** The crawl configuration of one run. */
function crawlConfigOf(run: RunSpec, out: string, modelPath: string): CrawlConfigInput {
  const base: CrawlConfigInput = {
    nodeId: 'geo',
    seeds: { urls: [...web.seeds] },
    scope: { maxPathDepth: MAX_PATH_DEPTH },
    store: { outDir: out },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 32, maxPages: PAGES },
    progressIntervalMs: 0,
  };
  if (run.policy === null) return { ...base, cluster: { nodes: NODES, partition: { strategy: 'url-hash' } } };
  return {
    ...base,
    cluster: {
      nodes: NODES,
      partition: { strategy: 'geo' },
      geo: {
        strategy: run.strategy as (typeof GEO_STRATEGIES)[number],
        policy: run.policy,
        model: modelPath,
        ipDatabase: web.ipCitiesFile,
      },
    },
  };
}

/**
 * Trains the city classifier as `shoal train --from TRUTH --label city --out MODEL` does, on a truth
 * export of the demo preset with seed {@link TRAIN_SEED}: other hosts, other pages, the same cities.
 */
async function trainCityModel(truthDir: string, modelPath: string): Promise<Setup['classifier']> {
  await exportTruth(new WebModel({ ...WEB_PRESETS.demo, seed: TRAIN_SEED }), truthDir);
  const { documents } = await readTrainingSource(truthDir, { truthLabel: 'city' });
  const trained = trainNaiveBayes(documents);
  writeFileSync(
    modelPath,
    encodeModelFile(trained, { source: `demo test web, seed ${TRAIN_SEED}`, sourceKind: 'truth', documents: documents.length }, true),
  );
  rmSync(truthDir, { recursive: true, force: true });
  // How well it knows its own training pages with a city: against the held-out crawl figures, the overfit.
  const model = new NaiveBayesClassifier(trained);
  const withCity = documents.filter((d) => d.label !== NO_CITY_LABEL);
  const inSampleRight = withCity.filter(
    (d) => trained.categories[model.classify({ title: d.title, text: d.text }).index] === d.label,
  ).length;
  return {
    documents: documents.length,
    withCity: withCity.length,
    inSampleRight,
    categories: trained.categories.length,
    digest: model.digest,
  };
}
