/**
 * Scratch directories and crash helpers shared by the store tests.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * A temporary directory, and one on a RAM disk when the machine has one (`/dev/shm`, else the same
 * directory): tests that repair (truncate and fsync) a file per byte offset are cheap there. Both
 * are removed when the test file ends.
 */
export function scratchDirs(prefix: string): { readonly root: string; readonly ramRoot: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const ramRoot = existsSync('/dev/shm') ? mkdtempSync(`/dev/shm/${prefix}`) : root;
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(ramRoot, { recursive: true, force: true });
  });
  return { root, ramRoot };
}

/** Runs `fn` with a fresh directory under the OS temp dir (named `prefix`…), removed afterwards. */
export async function withDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `script` (TypeScript, as an ES module) in a child, kills it with SIGKILL once it reports (a
 * number per line on stdout) at least `killAfter` records flushed, and resolves to the last count
 * it reported.
 */
export function killWhileRunning(script: string, args: readonly string[], killAfter: number): Promise<{ flushed: number }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let flushed = 0;
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    flushed = Math.max(
      flushed,
      ...out
        .split('\n')
        .filter((l) => l !== '')
        .map(Number),
    );
    if (flushed >= killAfter) proc.kill('SIGKILL');
  });
  return new Promise((resolve, reject) =>
    proc.on('close', (_code, signal) => {
      if (signal === 'SIGKILL') resolve({ flushed });
      else reject(new Error(`child ended with ${signal ?? 'no signal'}: ${out}`));
    }),
  );
}
