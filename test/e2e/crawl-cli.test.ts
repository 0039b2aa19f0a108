/**
 * `shoal crawl` as a user runs it: the installed command (bin/shoal.js over dist/, built by
 * `npm run build`, run as a program, so under the process settings its first lines start node with)
 * against a test web on loopback. Exit codes (0 done, 2 bad configuration, 130 Ctrl-C), the summary
 * on stdout, progress on stderr, and the crawl directory it leaves; a rerun on the same directory
 * fetches nothing again; started as `node bin/shoal.js`, the note naming the settings it lacks. In
 * process: configuration errors, sitemaps, the ordering policy chosen with --order and --set.
 */
import assert from 'node:assert/strict';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { parse } from 'yaml';
import { crawlConfigSchema } from '../../src/config/crawl-config.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { SHOAL_NODE_FLAGS } from '../../src/node/process-settings.js';
import { runNode, runProgram, type CliRun, runInProcess } from '../helpers/cli.js';
import { isCrawlDirLocked } from '../helpers/lock.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-crawl-cli-'));
let web: TestWeb;

before(async () => {
  web = await startTestWeb({ hosts: 12, pages: 600, seeds: 3, server: { addressCount: 4 }, traps: { hostRate: 0 } });
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `--seed` and `--resolve` flags for the test web (every host on its own address). */
function webFlags(): string[] {
  return [
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
    '--allow-loopback',
  ];
}

/** Runs the installed command as a program; `interruptWhen` sends SIGINT once stderr matches it. */
function shoal(args: readonly string[], interruptWhen?: RegExp): Promise<CliRun> {
  return runProgram(bin, args, interruptWhen === undefined ? {} : { interruptWhen });
}

/** The note of a crawl whose node was not started with the shoal command's process settings. */
const UNTUNED_NOTE = /^shoal crawl: node runs without the shoal command's memory settings \((.+)\)/m;

async function warcRecordCount(warcDir: string): Promise<number> {
  let n = 0;
  for (const f of readdirSync(warcDir).filter((x) => x.endsWith('.warc.gz'))) {
    for await (const rec of new WARCParser(createReadStream(join(warcDir, f)))) {
      await rec.readFully(false);
      n++;
    }
  }
  return n;
}

describe('shoal crawl (the installed command)', () => {
  const out = join(dir, 'crawl');

  it('crawls the test web, prints progress and a summary, exits 0 and leaves a crawl directory', { timeout: 120_000 }, async () => {
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/commands/crawl.js', import.meta.url))), 'dist/ is built (`npm run build`)');
    const config = join(dir, 'crawl.yaml');
    writeFileSync(config, 'politeness:\n  backoffBaseMs: 200ms\nrobots:\n  retryMs: 200ms\nprogressIntervalMs: 200ms\n');
    const r = await shoal([
      'crawl',
      ...webFlags(),
      '--out',
      out,
      '--min-delay-ms',
      '10',
      '--concurrency',
      '8',
      '--max-pages',
      '150',
      '--user-agent',
      'shoalbot/1.0 (+https://example.org/bot)',
      '--config',
      config,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^shoal crawl: done: --max-pages reached after [\d.]+ s$/m);
    const pages = Number(/^ {2}pages +([\d,]+)/m.exec(r.stdout)?.[1]?.replace(/,/g, ''));
    assert.ok(pages > 100 && pages <= 150, r.stdout);
    assert.match(r.stdout, /^ {2}requests +[\d,]+ \(\d+ robots\.txt/m);
    assert.match(r.stderr, /pages \d+ \(\d+\/s\)/, 'progress lines on stderr');
    assert.doesNotMatch(r.stderr, UNTUNED_NOTE, 'the command starts node with its process settings');
    const warcDir = join(out, 'warc');
    assert.ok(readdirSync(warcDir).some((f) => /^shoal-\d{14}-00001\.warc\.gz$/.test(f)));
    assert.ok(readFileSync(join(warcDir, 'index.cdxj'), 'utf8').split('\n').length > pages);
    assert.ok(existsSync(join(out, 'state', 'seen')));
    assert.ok(!isCrawlDirLocked(out), 'the lock is released');
    const log = readFileSync(join(out, 'logs', 'node.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; nodeFlags?: string[] });
    assert.deepEqual([log[0]?.event, log.at(-1)?.event], ['crawl-started', 'crawl-finished']);
    assert.deepEqual(log[0]?.nodeFlags, SHOAL_NODE_FLAGS, 'the crawl-started line names the node flags');
    assert.ok((await warcRecordCount(warcDir)) > 2 * pages);
  });

  it('run again on the same directory, resumes where it stopped and fetches no page twice', { timeout: 120_000 }, async () => {
    // A final answer in the first run; a 5xx or a reset is retried, in the second run too if need be.
    const isFinal = (status: number): boolean => status !== 0 && status !== 429 && status < 500;
    const firstRun = web.log
      .entries()
      .filter((e) => !e.path.startsWith('/robots') && isFinal(e.status))
      .map((e) => `${e.host}${e.path}`);
    const firstCount = web.log.count;
    const r = await shoal([
      'crawl',
      ...webFlags(),
      '--out',
      out,
      '--min-delay-ms',
      '10',
      '--concurrency',
      '8',
      '--config',
      join(dir, 'crawl.yaml'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /done: the frontier is empty/);
    const pages = Number(/^ {2}pages +([\d,]+)/m.exec(r.stdout)?.[1]?.replace(/,/g, ''));
    assert.ok(pages > 100, r.stdout);
    const secondRun = web.log
      .entries()
      .slice(firstCount - web.log.count)
      .map((e) => `${e.host}${e.path}`);
    const before = new Set(firstRun);
    assert.deepEqual(
      secondRun.filter((k) => before.has(k)),
      [],
      'a clean stop leaves nothing to fetch twice',
    );
    const tries = new Map<string, number>();
    for (const e of web.log.entries())
      if (!e.path.startsWith('/robots')) tries.set(`${e.host}${e.path}`, (tries.get(`${e.host}${e.path}`) ?? 0) + 1);
    assert.ok(
      [...tries.values()].every((n) => n <= 3),
      'fetch.maxAttempts holds across runs',
    );
    const again = await shoal(['crawl', ...webFlags(), '--out', out, '--min-delay-ms', '10']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^ {2}pages +0 /m);
  });

  it('started as `node bin/shoal.js`, says which process settings are missing, and crawls', { timeout: 60_000 }, async () => {
    const plain = join(dir, 'plain');
    const r = await runNode([bin, 'crawl', ...webFlags(), '--out', plain, '--min-delay-ms', '10', '--max-pages', '5'], {
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MALLOC_MMAP_THRESHOLD_')),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(UNTUNED_NOTE.exec(r.stderr)?.[1], [...SHOAL_NODE_FLAGS, 'MALLOC_MMAP_THRESHOLD_'].join(', '));
    assert.match(r.stdout, /done: --max-pages reached/);
  });

  it('stops cleanly on Ctrl-C with exit code 130, WARC files readable', { timeout: 60_000 }, async () => {
    const slow = join(dir, 'slow');
    const r = await shoal(['crawl', ...webFlags(), '--out', slow, '--min-delay-ms', '2000'], /pages [1-9]/);
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /interrupted: stopped cleanly/);
    assert.ok((await warcRecordCount(join(slow, 'warc'))) > 0);
    assert.ok(!isCrawlDirLocked(slow));
  });
});

describe('shoal crawl (in process)', () => {
  const run = runInProcess;

  it('exits 2 and names every bad flag and option', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'politeness:\n  minDelayMs: soon\nfetch:\n  userAgnet: x\n');
    const r = await run(
      [
        'crawl',
        '--seed',
        'http://a.test/',
        '--out',
        join(dir, 'bad'),
        '--max-pages',
        'ten',
        '--resolve',
        'a.test=not-an-ip',
        '--config',
        config,
      ],
      { SHOAL_CRAWL_LIMITS_CONCURRENCY: 'many' },
    );
    assert.equal(r.code, 2);
    for (const path of ['--max-pages', 'politeness.minDelayMs', 'fetch.userAgnet', 'network.resolve.0', 'limits.concurrency']) {
      assert.ok(r.err.includes(`- ${path}:`), `${path} in ${r.err}`);
    }
  });

  it('--sitemap alone seeds a crawl: the sitemap is read and the pages it lists are fetched', async () => {
    const host = web.model.hosts.find((h) => h.sitemap !== 'none' && h.mirrorOf < 0);
    assert.ok(host !== undefined, 'the test web has a host with a sitemap');
    const out = join(dir, 'sitemap');
    const resolve = [...web.hostsMap].flatMap(([name, ip]) => ['--resolve', `${name}=${ip}`]);
    const r = await run([
      'crawl',
      '--sitemap',
      `http://${host.name}:${web.port}/sitemap.xml`,
      ...resolve,
      '--allow-loopback',
      '--out',
      out,
      '--max-pages',
      '15',
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /sitemaps\s+[1-9][\d,]* read: [1-9][\d,]* page URLs/);
    assert.match(r.out, /pages\s+1[0-5] /);
  });

  it('--order and --set choose the ordering policy, named with its parameters in the summary and the crawl-started log line', async () => {
    const out = join(dir, 'order');
    const r = await run([
      'crawl',
      ...webFlags(),
      '--out',
      out,
      '--min-delay-ms',
      '0',
      '--max-pages',
      '25',
      '--order',
      'pagerank',
      '--set',
      'order.recomputeEvery=50',
      '--set',
      'order.minChange=0',
    ]);
    assert.equal(r.code, 0, r.err);
    const label =
      'pagerank(damping=0.9, maxIterations=3, minChange=0, recomputeEvery=50, recomputeGrowth=0.1, sliceWork=2000000, tolerance=0.0001)';
    assert.ok(r.out.split('\n').includes(`  order       ${label}`), r.out);
    const started = JSON.parse(readFileSync(join(out, 'logs', 'node.jsonl'), 'utf8').split('\n')[0] as string) as {
      event: string;
      order: string;
    };
    assert.deepEqual([started.event, started.order], ['crawl-started', label]);
  });

  it('an unknown policy or a bad policy parameter exits 2, naming the option and the valid ids', async () => {
    const unknown = await run(['crawl', '--seed', 'http://a.test/', '--out', join(dir, 'bad-order'), '--order', 'fastest']);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.err,
      /- order\.policy: unknown ordering policy "fastest"; valid: bfs, random, backlink, pagerank, forward-links, location, similarity, hot-queue, topic, community, weighted/,
    );
    const bad = await run([
      'crawl',
      '--seed',
      'http://a.test/',
      '--out',
      join(dir, 'bad-order'),
      '--order',
      'pagerank',
      '--set',
      'order.damping=2',
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /- order\.damping:/);
    const missing = await run(['crawl', '--seed', 'http://a.test/', '--out', join(dir, 'bad-order'), '--order', 'hot-queue']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /- order\.terms:/);
    assert.ok(!existsSync(join(dir, 'bad-order')), 'nothing was crawled');
  });

  it('exits 2 without --out or without seeds', async () => {
    assert.equal((await run(['crawl', '--seed', 'http://a.test/'])).code, 2);
    const r = await run(['crawl', '--out', join(dir, 'no-seeds')]);
    assert.equal(r.code, 2);
    assert.match(r.err, /no seed URLs/);
  });

  it('shoal config --defaults --command crawl prints every option, loadable as a config', async () => {
    const r = await run(['config', '--defaults', '--command', 'crawl']);
    assert.equal(r.code, 0);
    assert.match(
      r.out,
      /# smallest gap between the end of one fetch and the next request to the same host \(--min-delay-ms\) \[ms\] \(integer\)\n {2}minDelayMs: 1000/,
    );
    assert.deepEqual(crawlConfigSchema.parse(parse(r.out)), crawlConfigSchema.parse({}));
    const all = await run(['config', '--defaults']);
    assert.match(all.out, /# shoal crawl: every option/);
    assert.match(all.out, /# shoal web: every option/);
  });
});
