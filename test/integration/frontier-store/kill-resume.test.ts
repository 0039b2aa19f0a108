/**
 * Crash safety of PersistentFrontier (SPEC §8): a child process (fixtures/frontier-worker.ts) adds,
 * leases, completes and flushes at random, logging each step, and is killed with SIGKILL at a random
 * line of its log. The parent reopens the directory, reads every URL the frontier holds (R) and
 * checks the Durability clause of the Contract against the log. With F the last flush that resolved
 * (or the start of the run: opening counts as a flush):
 *
 *   1. no URL lost:         every URL held at F (queued or in flight) is in R;
 *   2. nothing invented:    R holds, besides those, only a prefix (in call order) of the adds made
 *                           after F, so no URL completed before F comes back;
 *   3. bounded refetches:   every URL of R not waiting in a queue at F was in flight at F or added
 *                           after F (R − queued(F) ⊆ inFlight(F) ∪ added after F); so a page fetched
 *                           before the crash is fetched again only if its lease was out at F or was
 *                           issued after F (or a retry had queued it again);
 *   4. entries are whole:   priority and depth as added, nothing in flight, `queued` = |R|.
 *
 * When the kill came during a flush (F k logged, D k not), that flush may have taken effect, entirely
 * or not at all: the checks must pass for one of the two. Each seed runs three times on one
 * directory (kill, check, resume), then the last state is drained: every URL of R leaves once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PersistentFrontier } from '../../../src/frontier-store/persistent-frontier.js';
import { Rng } from '../../../src/core/prng.js';

const WORKER = fileURLToPath(new URL('./fixtures/frontier-worker.ts', import.meta.url));
const STEPS = 40_000;

/** The parent's view of the crawl at a flush point. */
interface Snapshot {
  readonly name: string;
  readonly held: ReadonlySet<string>;
  readonly inFlight: ReadonlySet<string>;
  /** Adds and leases logged before this point: the ones after it are `adds.slice(addsBefore)`. */
  readonly addsBefore: number;
  readonly leasesBefore: number;
}

interface Added {
  readonly priority: number;
  readonly depth: number;
}

/** Runs the worker and kills it once it has logged `killAtLine` lines. Returns the complete lines. */
async function runWorker(
  dir: string,
  seed: number,
  run: number,
  killAtLine: number,
): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dir, String(seed), String(run), String(STEPS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  let lineCount = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    text += chunk;
    for (const ch of chunk) if (ch === '\n') lineCount++;
    if (lineCount >= killAtLine && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  assert.ok(signal === 'SIGKILL' || code === 0, `worker failed: exit ${code}, signal ${signal}`);
  // A line the kill cut short is not a step that happened.
  const lines = text.split('\n');
  lines.pop();
  return { lines, signal };
}

/** Replays a worker log on top of `start` (the state found at open) and returns the candidate F's. */
function replay(
  lines: readonly string[],
  start: ReadonlySet<string>,
  added: Map<string, Added>,
): { candidates: Snapshot[]; adds: string[]; leases: string[] } {
  const held = new Set(start);
  const inFlight = new Set<string>();
  const adds: string[] = [];
  const leases: string[] = [];
  const snapshot = (name: string): Snapshot => ({
    name,
    held: new Set(held),
    inFlight: new Set(inFlight),
    addsBefore: adds.length,
    leasesBefore: leases.length,
  });
  let lastDone = snapshot('open');
  let started: Snapshot | null = null;
  for (const line of lines) {
    const [op, url = '', a, b] = line.split(' ');
    switch (op) {
      case 'O':
        assert.equal(Number(url), start.size, 'the worker opened the state the parent found');
        break;
      case 'A':
        held.add(url);
        adds.push(url);
        added.set(url, { priority: Number(a), depth: Number(b) });
        break;
      case 'L':
        assert.ok(held.has(url) && !inFlight.has(url), `${url} leased while not queued`);
        inFlight.add(url);
        leases.push(url);
        break;
      case 'R':
        inFlight.delete(url);
        break;
      case 'C':
        inFlight.delete(url);
        held.delete(url);
        break;
      case 'F':
        started = snapshot(`flush ${url}`);
        break;
      case 'D':
        lastDone = started as Snapshot;
        started = null;
        break;
      case 'E':
        break;
      default:
        assert.fail(`unknown log line ${JSON.stringify(line)}`);
    }
  }
  return { candidates: started === null ? [lastDone] : [lastDone, started], adds, leases };
}

/** Why `found` does not satisfy the Contract for flush point `at`; empty when it does. */
function violations(found: ReadonlySet<string>, at: Snapshot, adds: readonly string[], leases: readonly string[]): string[] {
  const problems: string[] = [];
  const lost = [...at.held].filter((url) => !found.has(url));
  if (lost.length > 0) problems.push(`${lost.length} URLs held at ${at.name} are lost, e.g. ${lost.slice(0, 3).join(' ')}`);
  const after = adds.slice(at.addsBefore);
  const extra = new Set([...found].filter((url) => !at.held.has(url)));
  let prefix = 0;
  while (prefix < after.length && extra.has(after[prefix] as string)) prefix++;
  const notPrefix = [...extra].filter((url) => !after.slice(0, prefix).includes(url));
  if (notPrefix.length > 0)
    problems.push(
      `${notPrefix.length} URLs came back that are not a prefix of the adds after ${at.name}, e.g. ${notPrefix.slice(0, 3).join(' ')}`,
    );
  // Refetches: URLs back although they were not waiting in a queue at F. They must have been in
  // flight at F or added after it; and a URL leased before F comes back only if it was in flight at
  // F, was queued again by a retry before F, or was leased again after F.
  const addedAfter = new Set(after);
  const refetchedOutside = [...found].filter(
    (url) => !(at.held.has(url) && !at.inFlight.has(url)) && !at.inFlight.has(url) && !addedAfter.has(url),
  );
  if (refetchedOutside.length > 0)
    problems.push(
      `${refetchedOutside.length} URLs neither queued at ${at.name}, in flight at it, nor added after it came back, e.g. ${refetchedOutside.slice(0, 3).join(' ')}`,
    );
  const leasedAfter = new Set(leases.slice(at.leasesBefore));
  const fetchedAgain = [...found].filter(
    (url) => leases.includes(url) && !at.held.has(url) && !leasedAfter.has(url) && !addedAfter.has(url),
  );
  if (fetchedAgain.length > 0)
    problems.push(
      `${fetchedAgain.length} URLs fetched before ${at.name} and done at it came back, e.g. ${fetchedAgain.slice(0, 3).join(' ')}`,
    );
  return problems;
}

/** What the frontier holds after reopening `dir`, checked for wholeness (clause 4). */
async function reopen(dir: string, added: ReadonlyMap<string, Added>): Promise<Set<string>> {
  // Two URLs of a host in memory: entries() reads the parked ones from disk too.
  const frontier = new PersistentFrontier({ memoryUrlsPerHost: 2 });
  await frontier.open(dir);
  const found = new Set<string>();
  for (const { entry } of frontier.entries()) {
    assert.ok(!found.has(entry.url), `${entry.url} held twice`);
    found.add(entry.url);
    const original = added.get(entry.url);
    assert.ok(original !== undefined, `${entry.url} was never added`);
    assert.deepEqual(
      [entry.priority, entry.depth, entry.host],
      [original.priority, original.depth, new URL(entry.url).host],
      `${entry.url} came back whole`,
    );
  }
  assert.equal(frontier.stats().queued, found.size);
  assert.equal(frontier.stats().inFlight, 0);
  await frontier.close();
  return found;
}

describe('PersistentFrontier: kill -9 at random moments, then resume', () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    test(`seed ${seed}: three killed runs on one directory`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'shoal-frontier-kill-'));
      try {
        const rng = new Rng(seed, 78, 0);
        const added = new Map<string, Added>();
        let state = new Set<string>();
        let kills = 0;
        for (let run = 1; run <= 3; run++) {
          const { lines, signal } = await runWorker(dir, seed, run, rng.range(400, 4000));
          if (signal === 'SIGKILL') kills++;
          const { candidates, adds, leases } = replay(lines, state, added);
          const found = await reopen(dir, added);
          const verdicts = candidates.map((at) => ({ at: at.name, problems: violations(found, at, adds, leases) }));
          assert.ok(
            verdicts.some((v) => v.problems.length === 0),
            `run ${run} (${lines.length} log lines): ${JSON.stringify(verdicts, null, 1)}`,
          );
          state = found;
        }
        assert.ok(kills >= 2, 'the worker must be killed, not finish');
        // Everything held leaves exactly once.
        const frontier = new PersistentFrontier({ resumeDelayMs: 0, minDelayMs: 0, delayFactor: 0, memoryUrlsPerHost: 1 });
        await frontier.open(dir);
        const drained: string[] = [];
        for (let r = frontier.next(0); r.kind !== 'empty'; r = frontier.next(0)) {
          assert.equal(r.kind, 'url');
          if (r.kind !== 'url') break;
          drained.push(r.lease.entry.url);
          frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
        }
        assert.equal(drained.length, state.size);
        assert.deepEqual(new Set(drained), state);
        await frontier.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
