/**
 * Chaos: a crawl of a faulty, hostile test web (every default fault, plus slow drips, an endless
 * pagination chain, a host that refuses connections) is killed with `kill -9` of its whole process
 * group at random moments, four times, each time restarted at once with the same command (before the
 * killed process is reaped, as a supervisor would), and then left to finish. Judged by the test web's
 * request log and truth:
 *
 * - no restart is refused (the directory's lock died with its holder);
 * - nothing is lost: every page a polite crawler reaches is fetched;
 * - after each kill, no page the crawl log held is fetched again, and pages fetched again are at
 *   most what was in flight (the fetch slots) and what
 *   was answered since the last checkpoint (records not yet written: `frontier.checkpointIntervalMs`
 *   says pages fetched since are fetched again), counted over one interval and 100 ms of timer
 *   lateness before the kill;
 * - no trap is followed past its bound, whatever the kills;
 * - the WARC files read back whole, with one CDXJ line per capture.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { DEFAULT_MAX_NUMBERED_URLS } from '../../src/url/numbered-spaces.js';
import { hostileParts } from '../../src/web/hostile.js';
import type { RequestRecord } from '../../src/web/request-log.js';
import { Rng } from '../../src/core/prng.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { isPage, truthDirOf, unrequestedReachablePages } from '../helpers/resume.js';
import { isCrawlDirLocked } from '../helpers/lock.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-chaos-'));
const out = join(dir, 'crawl');
const SLOTS = 8;
const KILLS = 4;
/** `frontier.checkpointIntervalMs` of the crawl (crawl.yaml below). */
const CHECKPOINT_MS = 300;
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    seed: 5,
    hosts: 16,
    pages: 800,
    seeds: 4,
    server: { addressCount: 4 },
    duplicates: { mirrorHostRate: 0 },
    faults: { dripPages: [{ host: 1, page: 3 }], refusingHosts: [5], dripMs: 60_000 },
    traps: {
      hosts: [
        { host: 2, kind: 'pagination' },
        { host: 3, kind: 'calendar' },
      ],
      robotsDisallowRate: 0,
    },
  });
  writeFileSync(
    join(dir, 'crawl.yaml'),
    [
      'frontier:',
      `  checkpointIntervalMs: ${CHECKPOINT_MS}ms`,
      'politeness:',
      '  backoffBaseMs: 300ms',
      'robots:',
      '  retryMs: 300ms',
      'fetch:',
      '  minBytesPerSecond: 100',
      '  minRateWindowMs: 1s',
      '',
    ].join('\n'),
  );
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function args(): string[] {
  return [
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    '--hosts-file',
    web.hostsFile,
    '--allow-loopback',
    '--out',
    out,
    '--min-delay-ms',
    '20',
    '--concurrency',
    String(SLOTS),
    '--config',
    join(dir, 'crawl.yaml'),
  ];
}

/** Starts the command in a process group of its own (as a shell job): `kill -9` of the group kills every process of the crawl. */
function start(): { child: ChildProcess; exited: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(bin, args(), {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr }))) };
}

const keyOf = (r: RequestRecord): string => `${r.host}${r.path}`;

/** The pages the crawl log holds as fetched now (whole lines only: a torn last line is cut on restart), keyed as {@link keyOf}. */
function pagesRecorded(): Set<string> {
  let text: string;
  try {
    text = readFileSync(join(out, 'crawl-log.jsonl'), 'utf8');
  } catch {
    return new Set();
  }
  const pages = new Set<string>();
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (line === '') continue;
    const e = JSON.parse(line) as { url?: string; outcome?: string; status?: number | null };
    if (e.url === undefined || e.outcome !== 'ok') continue;
    const u = new URL(e.url);
    pages.add(`${u.hostname}${u.pathname}${u.search}`);
  }
  return pages;
}
/** A page answered for good (not a 5xx or a reset, which are tried again). */
const isFinal = (r: RequestRecord): boolean => isPage(r) && r.status > 0 && r.status < 500;

describe('chaos: kill -9 at random moments, restarted at once', () => {
  it(
    'loses nothing, refetches only what was in flight, never refuses a restart, keeps the WARC files whole',
    { timeout: 600_000 },
    async (t) => {
      const rng = new Rng(20_261_128, 1, 1, 1);
      /** web.log.count at each kill. */
      const kills: number[] = [];
      /** Wall-clock time of each kill, ms since the epoch. */
      const killedAtMs: number[] = [];
      /** The pages the crawl log held as fetched when each kill landed (what the killed run had made durable). */
      const recordedAtKill: ReadonlySet<string>[] = [];
      const runs: Promise<{ code: number | null; stderr: string }>[] = [];
      for (let k = 0; k < KILLS; k++) {
        const run = start();
        runs.push(run.exited);
        const after = 30 + rng.int(90);
        const from = web.log.entries().filter(isPage).length;
        await new Promise<void>((resolve) => {
          const unsubscribe = web.log.subscribe((r) => {
            if (!isPage(r) || web.log.entries().filter(isPage).length - from < after) return;
            unsubscribe();
            kills.push(web.log.count);
            killedAtMs.push(Date.now());
            process.kill(-(run.child.pid as number), 'SIGKILL');
            recordedAtKill.push(pagesRecorded());
            resolve();
          });
          // A run that ends before its kill (the crawl is done) ends the chaos early.
          void run.exited.then(() => {
            unsubscribe();
            resolve();
          });
        });
        if (run.child.exitCode !== null && kills.length <= k) break;
      }
      const last = start();
      const end = await last.exited;
      assert.equal(end.code, 0, end.stderr.slice(-3000));
      for (const r of await Promise.all(runs)) assert.doesNotMatch(r.stderr, /another crawl/, 'a restart was refused');
      assert.ok(kills.length >= 2, `${kills.length} kills landed before the crawl was done`);
      assert.ok(!isCrawlDirLocked(out));

      const requests = web.log.entries();
      // Nothing lost.
      const missing = await unrequestedReachablePages(web, truthDirOf(dir));
      assert.deepEqual(missing, [], `${missing.length} reachable pages never fetched`);
      // After each kill, only what was in flight or answered since the last checkpoint is fetched again.
      for (const [i, at] of kills.entries()) {
        const answered = new Set(requests.slice(0, at).filter(isFinal).map(keyOf));
        // A checkpoint every interval, plus its timer's lateness on a busy machine.
        const since = (killedAtMs[i] as number) - CHECKPOINT_MS - 100;
        const recent = new Set(
          requests
            .slice(0, at)
            .filter((r) => isFinal(r) && r.endMs >= since)
            .map(keyOf),
        );
        const next = kills[i + 1] ?? requests.length;
        const again = new Set(
          requests
            .slice(at, next)
            .filter((r) => isPage(r) && answered.has(keyOf(r)))
            .map(keyOf),
        );
        t.diagnostic(
          `kill ${i + 1} after request ${at}: ${again.size} pages fetched again (${recent.size} answered since the checkpoint before)`,
        );
        // A page the log held when the node was killed is never fetched again: recovery reads it back.
        const recorded = recordedAtKill[i] as ReadonlySet<string>;
        // (Read as the server logs them: every page the log held was answered before the kill.)
        const requested = new Set(requests.slice(0, at).filter(isPage).map(keyOf));
        assert.ok(recorded.size > 0 && [...recorded].every((k) => requested.has(k)), `kill ${i + 1}: ${recorded.size} pages in the log`);
        assert.deepEqual(
          [...again].filter((k) => recorded.has(k)),
          [],
          `kill ${i + 1}: pages fetched again although the crawl log held them`,
        );
        assert.ok(
          again.size <= SLOTS + recent.size,
          `kill ${i + 1}: ${again.size} pages fetched again, over ${SLOTS} slots + ${recent.size} answered lately (${[...again].slice(0, 10).join(', ')})`,
        );
      }
      // No trap past its bound.
      const traps = web.log.trapRequests();
      const parts = hostileParts(web.model);
      for (const h of [...parts.trapHosts.pagination, ...parts.trapHosts.calendar]) {
        const name = web.model.hosts[h]?.name ?? '';
        const n = [...(traps.get(name)?.values() ?? [])].reduce((a, b) => a + b, 0);
        t.diagnostic(`${name}: ${n} trap requests`);
        assert.ok(n <= DEFAULT_MAX_NUMBERED_URLS + 5, `${name}: ${n} trap requests`);
      }
      // The WARC files read back whole.
      const warcDir = join(out, 'warc');
      let captures = 0;
      for (const f of readdirSync(warcDir).filter((x) => x.endsWith('.warc.gz'))) {
        for await (const rec of new WARCParser(createReadStream(join(warcDir, f)))) {
          await rec.readFully(false);
          if (rec.warcType === 'response' || rec.warcType === 'revisit') captures++;
        }
      }
      assert.ok(captures > 300, `${captures} captures`);
      assert.equal(readFileSync(join(warcDir, 'index.cdxj'), 'utf8').trim().split('\n').length, captures);
    },
  );
});
