/**
 * `kill -9` in the middle of a crawl, then the same command again (SPEC §8): the second run resumes
 * from the crawl directory and finishes the crawl. Judged by the test web's request log and truth:
 * every page a polite crawler reaches is fetched (no frontier URL lost), pages fetched twice stay
 * within the refetch window (the leases out since the last checkpoint), and every store reads back
 * whole: the WARC files (warcio) with their CDXJ index, the crawl log, the page metadata and the link
 * graph, even after torn tails are added to them by hand, as a power loss could leave them.
 */
import assert from 'node:assert/strict';
import { appendFileSync, createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { readLinkGraph } from '../../src/store/link-graph-reader.js';
import { readPageMetadata } from '../../src/store/page-metadata.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { isPage, refetchesAfterKill, runKilledAfter, runToEnd, truthDirOf, unrequestedReachablePages } from '../helpers/resume.js';
import { isCrawlDirLocked } from '../helpers/lock.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-resume-'));
const out = join(dir, 'crawl');
const CONCURRENCY = 4;
const KILL_AFTER_PAGES = 150;
const CHECKPOINT_MS = 200;
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    hosts: 12,
    pages: 600,
    seeds: 3,
    server: { addressCount: 4 },
    traps: { hostRate: 0 },
    duplicates: { mirrorHostRate: 0 },
  });
  writeFileSync(
    join(dir, 'crawl.yaml'),
    `frontier:\n  checkpointIntervalMs: ${CHECKPOINT_MS}ms\npoliteness:\n  backoffBaseMs: 200ms\nrobots:\n  retryMs: 200ms\n`,
  );
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function args(): string[] {
  return [
    bin,
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([h, ip]) => ['--resolve', `${h}=${ip}`]),
    '--allow-loopback',
    '--out',
    out,
    '--min-delay-ms',
    '20',
    '--concurrency',
    String(CONCURRENCY),
    '--config',
    join(dir, 'crawl.yaml'),
  ];
}

describe('kill -9 and resume', () => {
  it('resumes after kill -9, loses no URL, refetches only the window, keeps every store readable', { timeout: 180_000 }, async () => {
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/commands/crawl.js', import.meta.url))), 'dist/ is built (`npm run build`)');
    // Run 1, killed once it has fetched KILL_AFTER_PAGES pages.
    const killed = await runKilledAfter(web, args(), KILL_AFTER_PAGES);
    assert.equal(killed, 'SIGKILL', 'the first run was still crawling when killed');
    const firstRun = web.log.count;
    assert.ok(!isCrawlDirLocked(out), 'the kernel released the killed run’s lock');

    // Torn tails, as a power loss could leave them: half a gzip member, half a JSON line.
    const warcDir = join(out, 'warc');
    const lastWarc = readdirSync(warcDir)
      .filter((f) => f.endsWith('.warc.gz'))
      .sort()
      .at(-1) as string;
    appendFileSync(join(warcDir, lastWarc), Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
    appendFileSync(join(out, 'crawl-log.jsonl'), '{"ts":"2024-01-01T00:00:');

    // Run 2: the same command, to the end.
    const { code, stdout, stderr } = await runToEnd(args());
    assert.equal(code, 0, stderr);
    assert.match(stdout, /done: the frontier is empty/);
    assert.ok(web.log.count > firstRun, 'the second run went on crawling');

    // No URL lost: every page the polite crawler of the truth reaches was requested.
    const missing = await unrequestedReachablePages(web, truthDirOf(dir));
    assert.deepEqual(missing, [], `${missing.length} reachable pages never fetched`);
    const requested = new Set(
      web.log
        .entries()
        .filter(isPage)
        .map((r) => `${r.host}${r.path}`),
    );

    // Refetches bounded by the window (test/helpers/resume.ts).
    const { refetched, window } = refetchesAfterKill(web, firstRun, CONCURRENCY);
    assert.ok(refetched <= window, `${refetched} pages fetched again; window ${window}`);
    // ... because what was done after the last checkpoint came back from the crawl log.
    const recovered = readFileSync(join(out, 'logs', 'node.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"crash-recovered"'))
      .map((l) => JSON.parse(l) as { urls: number; followedPages: number });
    assert.equal(recovered.length, 1, "the second run recovered the first run's tail");
    assert.ok((recovered[0]?.urls ?? 0) > 0 && (recovered[0]?.followedPages ?? 0) > 0, JSON.stringify(recovered));
    assert.match(stdout, /^ {2}recovered +[\d,]+ URLs/m);

    // Every store reads back whole.
    let records = 0;
    let captures = 0;
    for (const f of readdirSync(warcDir).filter((x) => x.endsWith('.warc.gz'))) {
      for await (const rec of new WARCParser(createReadStream(join(warcDir, f)))) {
        await rec.readFully(false);
        records++;
        if (rec.warcType === 'response' || rec.warcType === 'revisit') captures++;
      }
    }
    assert.ok(records > 2 * 400);
    assert.equal(readFileSync(join(warcDir, 'index.cdxj'), 'utf8').trim().split('\n').length, captures);
    let logLines = 0;
    for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) if (e.url !== '') logLines++;
    assert.ok(logLines >= requested.size - 10, `${logLines} crawl-log lines for ${requested.size} pages`);
    let pageLines = 0;
    for await (const p of readPageMetadata(join(out, 'pages.jsonl'))) if (p.url !== '') pageLines++;
    assert.ok(pageLines > 400);
    const graph = await readLinkGraph(join(out, 'links'));
    assert.ok(graph.csr.offsets.length > 400);
    graph.close();
    assert.ok(!isCrawlDirLocked(out));
  });
});
