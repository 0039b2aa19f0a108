/**
 * `kill -9` in the middle of an embedded collaborative crawl (`shoal crawl --nodes 3 --partition
 * url-hash`: most links cross between nodes, so the exchange is busy at any moment), then the same
 * command again (SPEC §8 for a crawl of many nodes). Judged by the test web's request log and truth:
 *
 * - no URL lost: every page a polite crawler reaches is fetched, though URLs were in node-to-node
 *   batches, outboxes and inboxes when the process died;
 * - pages fetched again stay within the refetch window (leases out since the last checkpoints);
 * - still no overlap: no page downloaded by two nodes;
 * - every node's WARC files read back whole.
 */
import assert from 'node:assert/strict';
import { createReadStream, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { refetchesAfterKill, runKilledAfter, runToEnd, truthDirOf, unrequestedReachablePages } from '../helpers/resume.js';
import { isCrawlDirLocked } from '../helpers/lock.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-collab-resume-'));
const out = join(dir, 'crawl');
const NODES = 3;
const CONCURRENCY = 6;
const KILL_AFTER_PAGES = 150;
const CHECKPOINT_MS = 200;
let web: TestWeb;

before(async () => {
  // Site trees only (no content links): most pages have one in-link, so a URL lost between nodes is
  // never found again, and losing one shows as a page never fetched.
  web = await startTestWeb({
    hosts: 12,
    pages: 600,
    seeds: 3,
    server: { addressCount: 4 },
    traps: { hostRate: 0 },
    duplicates: { mirrorHostRate: 0 },
    links: { meanOutDegree: 0 },
  });
  writeFileSync(
    join(dir, 'crawl.yaml'),
    `frontier:\n  checkpointIntervalMs: ${CHECKPOINT_MS}ms\npoliteness:\n  backoffBaseMs: 200ms\nrobots:\n  retryMs: 200ms\ncluster:\n  batchDelayMs: 50ms\n`,
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
    '--nodes',
    String(NODES),
    '--partition',
    'url-hash',
  ];
}

describe('kill -9 of a collaborative crawl, and resume', () => {
  it('resumes every node, loses no URL, refetches only the window, keeps every WARC file readable', { timeout: 180_000 }, async () => {
    assert.ok(
      existsSync(fileURLToPath(new URL('../../dist/cluster/embedded-cluster.js', import.meta.url))),
      'dist/ is built (`npm run build`)',
    );
    const killed = await runKilledAfter(web, args(), KILL_AFTER_PAGES);
    assert.equal(killed, 'SIGKILL', 'the first run was still crawling when killed');
    const firstRun = web.log.count;

    const second = await runToEnd(args());
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /done: the frontier is empty/);
    assert.ok(web.log.count > firstRun, 'the second run went on crawling');

    // No URL lost, though many were between nodes when the process died.
    const missing = await unrequestedReachablePages(web, truthDirOf(dir));
    assert.deepEqual(missing, [], `${missing.length} reachable pages never fetched`);
    const { refetched, window } = refetchesAfterKill(web, firstRun, CONCURRENCY);
    assert.ok(refetched <= window, `${refetched} pages fetched again; window ${window}`);

    // Still no overlap, and every node's stores read back whole.
    const downloadedBy = new Map<string, string>();
    let records = 0;
    for (const node of readdirSync(join(out, 'nodes'))) {
      const nodeDir = join(out, 'nodes', node);
      for await (const e of readCrawlLog(join(nodeDir, 'crawl-log.jsonl'))) {
        if (e.status === 0 || e.node !== node) continue;
        assert.equal(downloadedBy.get(e.url) ?? node, node, `${e.url} downloaded by ${downloadedBy.get(e.url)} and ${node}`);
        downloadedBy.set(e.url, node);
      }
      for (const f of readdirSync(join(nodeDir, 'warc')).filter((x) => x.endsWith('.warc.gz'))) {
        for await (const rec of new WARCParser(createReadStream(join(nodeDir, 'warc', f)))) {
          await rec.readFully(false);
          records++;
        }
      }
      assert.ok(!isCrawlDirLocked(nodeDir));
    }
    assert.ok(records > 2 * 400, `${records} WARC records`);
  });
});
