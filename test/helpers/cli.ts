/** Running shoal's command line in a child process, for the e2e tests. */
import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/main.js';

/** How a child process ended, and what it wrote. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runNode}. */
export interface RunNodeOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Sends SIGINT once stderr matches this (once: a second Ctrl-C is the user insisting). */
  readonly interruptWhen?: RegExp;
}

/** Runs `node <args>` and resolves when it exits. */
export function runNode(args: readonly string[], options: RunNodeOptions = {}): Promise<CliRun> {
  return runProgram(process.execPath, args, options);
}

/**
 * Runs an executable file (a script run through its `#!` line, as a user's shell does) and resolves
 * when it exits. The directory of the node running the tests comes first in its PATH, so that a
 * script that runs `node` runs this one.
 */
export function runProgram(file: string, args: readonly string[], options: RunNodeOptions = {}): Promise<CliRun> {
  const env = options.env ?? process.env;
  const child = spawn(file, [...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}` },
  });
  let stdout = '';
  let stderr = '';
  let isInterrupted = false;
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (options.interruptWhen === undefined || isInterrupted || !options.interruptWhen.test(stderr)) return;
    isInterrupted = true;
    child.kill('SIGINT');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** What {@link runInProcess} captured. */
export interface InProcessRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs shoal's command line in this process (runCli) with `env` as its environment, capturing what it prints. */
export async function runInProcess(args: readonly string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    env,
    interrupted: new Promise(() => {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/**
 * Runs `node <args>` (a `shoal node` of a distributed test crawl), killed after `timeoutMs`;
 * resolves with its exit code and what it wrote to stderr.
 */
export function runNodeProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}
