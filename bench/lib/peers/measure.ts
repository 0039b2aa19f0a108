/**
 * Runs a crawler under `measure.py` (beside this file), which reads the resource usage of the whole
 * process tree once it has ended: Node's `process.resourceUsage()` covers only itself, and a child's
 * usage is not reported to its parent by `child_process`.
 *
 * The wrapper runs in its own process group, so that stopping the bench (Ctrl-C) or a run's timeout
 * ends the crawler and everything it started, and only that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MEASURE_PY = fileURLToPath(new URL('./measure.py', import.meta.url));

/** What one run cost, as measure.py wrote it. */
export interface Usage {
  readonly exitCode: number;
  readonly wallMs: number;
  /** CPU time of the crawler and every process it started and waited for. */
  readonly userMs: number;
  readonly systemMs: number;
  /** Peak resident set size of the largest single process of the tree, KiB. */
  readonly maxRssKb: number;
}

/** A command to run: its arguments (the program first), working directory and environment. */
export interface Command {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The runs in progress, so that an exit handler can end them. */
const running = new Set<ChildProcess>();

/** Kills every run in progress (their whole process groups). */
export function killRunning(): void {
  for (const child of running) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // The group has already gone.
    }
  }
  running.clear();
}

/**
 * Runs `command` under the wrapper with its output to `logFile`; resolves with its usage, or rejects
 * when the wrapper itself failed (no result file) or the run passed `timeoutMs` (then killed).
 */
export async function runMeasured(
  python: string,
  command: Command,
  resultFile: string,
  logFile: string,
  timeoutMs: number,
): Promise<Usage> {
  const log = openSync(logFile, 'w');
  const child = spawn(python, [MEASURE_PY, resultFile, ...command.argv], {
    cwd: command.cwd,
    env: command.env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  running.add(child);
  let isTimedOut = false;
  const timer = setTimeout(() => {
    isTimedOut = true;
    process.kill(-(child.pid as number), 'SIGKILL');
  }, timeoutMs);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    if (isTimedOut) throw new Error(`no end after ${timeoutMs / 1000} s: killed`);
    if (code !== 0) throw new Error(`the measuring wrapper failed (exit ${code})`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as Usage;
  } finally {
    clearTimeout(timer);
    running.delete(child);
  }
}
