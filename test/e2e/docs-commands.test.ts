/**
 * The commands of the README and docs/ work as written.
 *
 * - Blocks fenced as `sh run` are walkthroughs: each document's are run line by line, in order, with
 *   bash, in a scratch directory of their own where `npx shoal` is this checkout's command (a
 *   `node_modules/.bin/shoal` link, which is what npx looks for). Each line must exit 0. A line ending
 *   in `&` starts a server: it runs in the background until it says it is serving, and `kill %N`
 *   stops the N-th one, as it would in the reader's shell.
 * - Every other `shoal` command line in an `sh` block (templates for other machines, long benchmarks,
 *   a server left running) names a command that exists and only flags that command has.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(repo, 'bin', 'shoal.js');
const scratch = mkdtempSync(join(tmpdir(), 'shoal-docs-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A line ran longer than this: a walkthrough's crawls take seconds each. */
const LINE_TIMEOUT_MS = 240_000;

interface Block {
  readonly file: string;
  readonly isRun: boolean;
  readonly lines: readonly string[];
}

/** The `sh` blocks of a Markdown file, continuation lines joined. */
function shBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  let lines: string[] | null = null;
  let isRun = false;
  for (const line of readFileSync(join(repo, file), 'utf8').split('\n')) {
    if (lines === null) {
      const fence = /^```sh( run)?\s*$/.exec(line);
      if (fence !== null) {
        lines = [];
        isRun = fence[1] !== undefined;
      }
      continue;
    }
    if (line.startsWith('```')) {
      blocks.push({ file, isRun, lines: joinContinued(lines) });
      lines = null;
      continue;
    }
    lines.push(line);
  }
  return blocks;
}

function joinContinued(lines: readonly string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const line of lines) {
    if (line.trimEnd().endsWith('\\')) {
      pending += `${line.trimEnd().slice(0, -1)} `;
      continue;
    }
    out.push(pending + line);
    pending = '';
  }
  return out.filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
}

const docs = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const blocks = docs.flatMap(shBlocks);

/** A command line without its trailing comment (a `#` after whitespace, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line.trimEnd();
}

const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

/** Runs one line with bash in `cwd`; resolves with its exit code and output. */
function runLine(line: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), LINE_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Starts a background line; resolves once it says it is serving. */
function startServer(line: string, cwd: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // A process group of its own, as a shell's job: `kill %N` signals every process of the job.
    const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const onData = (c: Buffer): void => {
      output += c.toString();
      if (/serving/.test(output)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${line} exited (${String(code)}) before serving:\n${output}`)));
  });
}

describe('the walkthroughs of the README and docs, run as written', () => {
  for (const file of [...new Set(blocks.filter((b) => b.isRun).map((b) => b.file))]) {
    it(file, { timeout: 20 * 60_000 }, async (t) => {
      const cwd = join(scratch, file.replace(/[/.]/g, '-'));
      mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(bin, join(cwd, 'node_modules', '.bin', 'shoal'));
      // Jobs numbered as bash numbers them: one more than the highest job still running.
      const servers: (ChildProcess | undefined)[] = [];
      try {
        for (const block of blocks.filter((b) => b.file === file && b.isRun)) {
          for (const raw of block.lines) {
            const line = withoutComment(raw);
            const kill = /^kill %(\d+)$/.exec(line);
            if (kill !== null) {
              const server = servers[Number(kill[1]) - 1];
              assert.ok(server !== undefined, `${file}: ${line}: no such job`);
              const exited = new Promise((resolve) => server.once('exit', resolve));
              process.kill(-(server.pid as number), 'SIGTERM');
              await exited;
              servers[Number(kill[1]) - 1] = undefined;
              while (servers.length > 0 && servers.at(-1) === undefined) servers.pop();
              continue;
            }
            if (line.endsWith('&')) {
              servers.push(await startServer(line.slice(0, -1).trim(), cwd));
              continue;
            }
            const startedMs = performance.now();
            const { code, output } = await runLine(line, cwd);
            assert.equal(code, 0, `${file}: ${line}\n${output.slice(-3000)}`);
            t.diagnostic(`${((performance.now() - startedMs) / 1000).toFixed(1)} s  ${line.slice(0, 100)}`);
          }
        }
      } finally {
        for (const s of servers) {
          if (s === undefined) continue;
          try {
            process.kill(-(s.pid as number), 'SIGKILL');
          } catch {
            // The job has ended.
          }
        }
      }
    });
  }
});

describe('every other shoal command line of the README and docs', () => {
  /** The long flags each command (`crawl`, `web export`, ...) takes, from its --help. */
  const flagsOf = new Map<string, Set<string>>();
  function knownFlags(command: string): Set<string> {
    let flags = flagsOf.get(command);
    if (flags === undefined) {
      const help = spawnSync(process.execPath, [bin, ...command.split(' '), '--help'], { encoding: 'utf8' });
      assert.equal(help.status, 0, `shoal ${command} --help: ${help.stderr}`);
      flags = new Set([...help.stdout.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
      flagsOf.set(command, flags);
    }
    return flags;
  }

  it('names existing commands and flags', () => {
    let checked = 0;
    for (const block of blocks.filter((b) => !b.isRun)) {
      for (const raw of block.lines) {
        const line = withoutComment(raw);
        const m = /(?:^|\s)(?:npx )?shoal ((?:web export|[a-z]+))\b(.*)$/.exec(line);
        if (m === null) continue;
        const command = m[1] as string;
        const known = knownFlags(command);
        for (const flag of (m[2] ?? '').matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)) {
          assert.ok(known.has(flag[1] as string), `${block.file}: ${line}: shoal ${command} has no ${flag[1]}`);
        }
        checked++;
      }
    }
    assert.ok(checked > 10, `${checked} command lines checked`);
  });
});
