/**
 * The one directory fsync of the crawl directory's files. A file's data can be durable while its
 * name is not: creating, renaming or deleting a file changes its directory, and only an fsync of the
 * directory makes that change survive a power loss. Every writer that creates, renames or deletes a
 * file it relies on after a crash calls {@link syncDirectory} before it reports the change durable.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';

/** Errors of a platform that cannot open or fsync a directory (Windows; NTFS journals names itself). */
const UNSUPPORTED = ['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF'];

const isUnsupported = (err: unknown): boolean => UNSUPPORTED.includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * fsyncs directory `dir`, so that files created, renamed or deleted in it so far keep that state
 * after a power loss. Where a directory cannot be opened or fsynced, the error is expected and
 * ignored; any other error is thrown as it came.
 */
export function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (err) {
    if (isUnsupported(err)) return;
    throw err;
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    if (!isUnsupported(err)) throw err;
  } finally {
    closeSync(fd);
  }
}
