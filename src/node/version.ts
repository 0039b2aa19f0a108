/** shoal's version, as its package.json says (for `shoal --version` and the WARC files' warcinfo records). */
import { readFileSync } from 'node:fs';

let version: string | null = null;

/** The version of the installed shoal package; `0.0.0` when its package.json cannot be read. */
export function shoalVersion(): string {
  if (version !== null) return version;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    version = '0.0.0';
  }
  return version;
}
