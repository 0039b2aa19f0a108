/**
 * The geo crawl as a user runs it, in process (runCli): `shoal train --label city` on a truth
 * export, `shoal crawl --partition geo` with each kind of resource (a target list file, a city model,
 * the test web's IP table) ending with the geo metrics, `shoal eval --truth` printing them (JSON too),
 * and the configuration errors a user meets, each naming its option.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { scratchDirs } from '../helpers/scratch.js';
import { runInProcess } from '../helpers/cli.js';

const { root: dir } = scratchDirs('shoal-geo-cli-');
const WEB = {
  seed: 7,
  hosts: 20,
  pages: 600,
  seeds: 4,
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
  geo: { cities: 20, hostRate: 0.5, localPageRate: 0.8 },
};
let web: TestWeb;

const run = (args: readonly string[]) => runInProcess(args);

before(async () => {
  web = await startTestWeb(WEB);
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
});
after(async () => {
  await web?.close();
});

const crawl = (out: string, ...extra: string[]) => [
  'crawl',
  ...['--nodes', '3', '--partition', 'geo', '--seeds-file', web.seedsFile, '--hosts-file', web.hostsFile, '--allow-loopback'],
  ...['--out', join(dir, out), '--max-pages', '150', '--min-delay-ms', '5', '--set', `cluster.truthDir=${join(dir, 'truth')}`],
  ...extra,
];

describe('shoal train --label city', () => {
  it('trains a model whose categories are the cities of the truth and none', async () => {
    const r = await run(['train', '--from', join(dir, 'truth'), '--label', 'city', '--out', join(dir, 'city.json'), '--json']);
    assert.equal(r.code, 0, r.err);
    const perLabel = (JSON.parse(r.out) as { perLabel: Record<string, number> }).perLabel;
    assert.ok((perLabel['none'] ?? 0) > 100, JSON.stringify(perLabel));
    assert.ok(Object.keys(perLabel).filter((l) => /^.+, [A-Z]{2}$/.test(l)).length >= 10, Object.keys(perLabel).join('; '));
    const bad = await run(['train', '--from', join(dir, 'truth'), '--label', 'colour', '--out', join(dir, 'x.json')]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--label: topic or city, got colour/);
  });
});

describe('shoal crawl --partition geo', () => {
  it('url with a target list file: ends with the geo metrics, which shoal eval prints too', async () => {
    const targets = join(dir, 'targets.txt');
    writeFileSync(targets, `# the test web's cities\n${web.model.cities.map((c) => `${c.name}, ${c.state}`).join('\n')}\n`);
    const r = await run(crawl('url', '--set', 'cluster.geo.strategy=url', '--set', `cluster.geo.targets=${targets}`));
    assert.equal(r.code, 0, r.err);
    for (const line of ['geo coverage', 'geo focus', 'unique entities', 'geo centrality', 'geographic locality'])
      assert.match(r.out, new RegExp(line));
    const e = await run(['eval', join(dir, 'url'), '--truth', join(dir, 'truth')]);
    assert.equal(e.code, 0, e.err);
    assert.match(e.out, /geo \{"strategy":"url",.*"cities":"\[20 entries\]"\}/);
    assert.match(e.out, /geo focus +\d+\.\d+%  mean of 2 geo nodes/);
    const j = await run(['eval', join(dir, 'url'), '--truth', join(dir, 'truth'), '--json']);
    const parsed = JSON.parse(j.out) as { geo: { coverage: { downloads: number } } };
    assert.ok(parsed.geo.coverage.downloads > 50);
    const noTruth = await run(['eval', join(dir, 'url')]);
    assert.match(noTruth.out, /geo metrics +need the test web’s truth: --truth DIR/);
  });

  it('classifier with the trained model, and ip with the test web’s IP table, Policy B', async () => {
    const c = await run(
      crawl('classifier', '--set', 'cluster.geo.strategy=classifier', '--set', `cluster.geo.model=${join(dir, 'city.json')}`),
    );
    assert.equal(c.code, 0, c.err);
    assert.match(c.out, /geo coverage/);
    const i = await run(
      crawl(
        'ip',
        '--set',
        'cluster.geo.strategy=ip',
        '--set',
        `cluster.geo.ipDatabase=${web.ipCitiesFile}`,
        '--set',
        'cluster.geo.policy=B',
      ),
    );
    assert.equal(i.code, 0, i.err);
    assert.match(i.out, /geo coverage/);
  });

  it('names the option at fault', async () => {
    const cases: [string[], RegExp][] = [
      [['--set', 'cluster.geo.strategy=ip'], /cluster\.geo\.strategy: ip: needs an IP database \(cluster\.geo\.ipDatabase/],
      [['--set', 'cluster.geo.strategy=classifier'], /cluster\.geo\.strategy: classifier: needs a city model \(cluster\.geo\.model/],
      [
        ['--set', 'cluster.geo.strategy=ip', '--set', `cluster.geo.ipDatabase=${join(dir, 'nope.csv')}`],
        /cluster\.geo\.ipDatabase: cannot read/,
      ],
      [
        ['--set', `cluster.geo.ipDatabase=${join(dir, 'truth', 'manifest.json')}`, '--set', 'cluster.geo.strategy=ip'],
        /cluster\.geo\.ipDatabase/,
      ],
      [['--set', `cluster.geo.targets=${join(dir, 'truth', 'manifest.json')}`], /cluster\.geo\.targets: .*expected/],
      [['--set', 'cluster.geo.strategy=nearby'], /cluster\.geo\.strategy/],
      [['--set', 'cluster.geo.groups=[["Eastern"],["Central"],["Mountain"]]'], /cluster\.geo\.groups: 3 groups need at least 4 partitions/],
    ];
    for (const [extra, message] of cases) {
      const r = await run(crawl(`bad-${Math.random().toString(36).slice(2)}`, ...extra));
      assert.equal(r.code, 2, `${extra.join(' ')}: ${r.err}`);
      assert.match(r.err, message, extra.join(' '));
    }
  });
});
