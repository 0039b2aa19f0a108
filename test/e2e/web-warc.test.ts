/**
 * A crawl replayed and crawled again offline: shoal crawls a test web into a WARC, the test web
 * stops, `shoal web --warc` serves that WARC on the same port, and shoal crawls it again from the
 * same seeds. The second crawl must fetch the same URLs with the same outcomes and the same payload
 * digests, redirects, 404s and robots.txt included. A crawl that detects duplicates writes revisit
 * records for a mirror's pages; each is answered with its original's payload.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliIo } from '../../src/cli/main.js';
import { parseCdxjLine } from '../../src/store/warc/cdxj.js';
import { sha1Digest } from '../../src/store/warc/warc-record.js';
import { NO_FAULTS } from '../../src/web/presets.js';
import { startTestWeb } from '../../src/web/start.js';
import { runInProcess } from '../helpers/cli.js';
import { get } from '../helpers/http.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-web-warc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What a crawl did to each URL: outcome, status and payload digest, one line per URL and attempt, sorted. */
function crawlLog(out: string): string[] {
  return readFileSync(join(out, 'crawl-log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; outcome: string; status: number; digest: string | null })
    .map((r) => `${r.url} ${r.outcome} ${r.status} ${r.digest ?? '-'}`)
    .sort();
}

/** `url payloadDigest` of every page, sorted. */
function pages(out: string): string[] {
  return readFileSync(join(out, 'pages.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; payloadDigest: string })
    .map((p) => `${p.url} ${p.payloadDigest}`)
    .sort();
}

/** The `.warc.gz` files of a crawl directory. */
function warcFiles(out: string): string[] {
  const warcDir = join(out, 'warc');
  return readdirSync(warcDir)
    .filter((f) => f.endsWith('.warc.gz'))
    .map((f) => join(warcDir, f));
}

describe('shoal web --warc: a crawl replayed and crawled again', () => {
  const config = join(dir, 'crawl.yaml');
  const first = join(dir, 'first');
  const deduplicated = join(dir, 'deduplicated');
  let port = 0;
  let seeds: string[] = [];
  const crawl = (out: string, hostsFile: string, extra: readonly string[] = []) =>
    runInProcess([
      'crawl',
      ...seeds,
      '--hosts-file',
      hostsFile,
      '--allow-loopback',
      '--out',
      out,
      '--min-delay-ms',
      '0',
      '--config',
      config,
      ...extra,
    ]);

  before(async () => {
    writeFileSync(config, 'politeness:\n  backoffBaseMs: 200ms\nrobots:\n  retryMs: 200ms\n');
    // Permanent behaviour only (redirects, 404s, mirrors), so that one crawl sees all of it.
    const web = await startTestWeb({
      hosts: 8,
      pages: 150,
      seeds: 3,
      server: { addressCount: 4 },
      faults: { ...NO_FAULTS, redirectRate: 0.04, notFoundRate: 0.02 },
      robots: { crawlDelayRate: 0, unavailableRate: 0, serverErrorRate: 0 },
      latency: { slowHostRate: 0 },
      duplicates: { mirrorHostRate: 0.5 },
      // Every host compresses alike, so a mirror's bodies are its original's byte for byte: revisit records.
      encoding: { gzipRate: 1, brotliRate: 0 },
      traps: { hostRate: 0 },
    });
    port = web.port;
    seeds = web.seeds.flatMap((s) => ['--seed', s]);
    try {
      // Without duplicate detection, every page's links are followed: the crawl reaches the same
      // URLs whatever order it fetches them in (with it, which copy of a page is the original and
      // has its links followed depends on timing).
      const r = await crawl(first, web.hostsFile, ['--set', 'dedup.maxDigests=0']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /done: the frontier is empty/);
      const d = await crawl(deduplicated, web.hostsFile);
      assert.equal(d.code, 0, d.err);
    } finally {
      await web.close();
    }
  });

  it('gives the second crawl the same URLs, outcomes and payload digests', { timeout: 120_000 }, async () => {
    let out = '';
    let stop = (): void => {};
    const io: CliIo = {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
      env: {},
      interrupted: new Promise<void>((resolve) => {
        stop = resolve;
      }),
    };
    // The WARC served on the port its URLs name, so that their absolute links and redirects resolve.
    const served = join(dir, 'served');
    const replay = runCli(['web', '--warc', ...warcFiles(first), '--port', String(port), '--out', served], io);
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (!out.includes('serving;')) return;
        clearInterval(poll);
        resolve();
      }, 20);
      void replay.then((code) => {
        clearInterval(poll);
        reject(new Error(`shoal web exited with ${code}: ${out}`));
      });
    });
    const second = join(dir, 'second');
    let r2;
    try {
      assert.match(out, /^shoal web: no synthetic hosts \(WARC hosts only\), port \d+; ready in \d+ ms$/m);
      assert.match(out, /^warc hosts: 8 hosts, [\d,]+ URLs from 1 files$/m);
      assert.match(out, /captures \(index .*index\.cdxj\)/);
      r2 = await crawl(second, join(served, 'hosts'), ['--set', 'dedup.maxDigests=0']);
    } finally {
      stop();
    }
    assert.equal(await replay, 0, out);
    assert.equal(r2.code, 0, r2.err);
    assert.match(out, /stopped after [1-9][\d,]* requests/);

    const firstLog = crawlLog(first);
    assert.ok(
      firstLog.some((l) => / redirect 30\d /.test(l)),
      'the first crawl met redirects',
    );
    assert.ok(
      firstLog.some((l) => / http-error 404 /.test(l)),
      'and 404s',
    );
    assert.deepEqual(crawlLog(second), firstLog);
    const firstPages = pages(first);
    assert.ok(firstPages.length > 100, `${firstPages.length} pages`);
    assert.deepEqual(pages(second), firstPages);
  });

  it('answers each of shoal’s revisit records with its original’s payload', { timeout: 60_000 }, async () => {
    const revisits = readFileSync(join(deduplicated, 'warc', 'index.cdxj'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => parseCdxjLine(l))
      .filter((e) => e !== null && e.mime === 'warc/revisit');
    assert.ok(revisits.length > 10, `${revisits.length} revisit records`);
    const web = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 4 }, warc: warcFiles(deduplicated) });
    try {
      for (const e of revisits) {
        const u = new URL(e?.url ?? '');
        u.port = String(web.port);
        const r = await get(u.href, web.hostsMap);
        assert.equal(r.status, Number(e?.status), u.href);
        assert.equal(sha1Digest([r.body]), `sha1:${e?.digest}`, u.href);
        assert.equal(r.headers['content-encoding'], 'gzip', 'the body as recorded, still encoded');
      }
    } finally {
      await web.close();
    }
  });
});
