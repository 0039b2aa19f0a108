/** Running shoal's command line in a child process, for the e2e tests. */
import { spawn } from 'node:child_process';

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
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  let stdout = '';
  let stderr = '';
  let isInterrupted = false;
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (options.interruptWhen === undefined || isInterrupted || !options.interruptWhen.test(stderr)) return;
    isInterrupted = true;
    child.kill('SIGINT');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}
