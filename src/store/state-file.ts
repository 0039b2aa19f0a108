/**
 * Small state files of the crawl directory (`state/budget.json`, `state/numbered.json`): one JSON
 * value, replaced whole and durably. A write goes to `<path>.tmp`, is fsynced, and is renamed over the
 * file, so that a crash leaves the old value or the new one, never half of either.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { ShoalError } from '../core/errors.js';

/**
 * Replaces the file at `path` with `value` as JSON, durably.
 * @throws ShoalError `IO` naming `what` when it cannot be written.
 */
export function writeStateFile(path: string, value: unknown, what: string): void {
  const tmp = `${path}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(value)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    throw new ShoalError('IO', `cannot write ${what} to ${path}`, { cause: err });
  }
}

/**
 * The value of the file at `path`, checked by `parse` (which throws on a value it cannot use), or
 * null when there is no such file.
 * @throws ShoalError `IO` naming `what` when the file cannot be read or is corrupt.
 */
export function readStateFile<T>(path: string, what: string, parse: (value: unknown) => T): T | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ShoalError('IO', `cannot read ${what} ${path}`, { cause: err });
  }
  try {
    return parse(JSON.parse(text) as unknown);
  } catch (err) {
    throw new ShoalError('IO', `${what} ${path} is corrupt (${(err as Error).message}); remove it to count from zero`, { cause: err });
  }
}
