/**
 * A test web's ground truth kept in a cache directory: exported once, then reused by every run that
 * finds it there (benchmarks and experiments that read a large web's truth many times).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebConfigInput } from '../config.js';
import { WebModel } from '../model.js';
import { exportTruth } from './export.js';
import { DATA_FILES, MANIFEST_FILE, TRUTH_FORMAT_ID, TRUTH_VERSION } from './format.js';

/**
 * Whether `dir` holds a complete export in the format and version this code reads, listing every
 * file this code writes (an export from before a file was added to the version is made again).
 */
function isCurrentExport(dir: string): boolean {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return false;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown; version?: unknown; files?: Record<string, unknown> };
    return m.format === TRUTH_FORMAT_ID && m.version === TRUTH_VERSION && DATA_FILES.every((f) => m.files?.[f] !== undefined);
  } catch {
    return false; // an unreadable manifest: export again (exportTruth refuses a stranger's file)
  }
}

/**
 * Exports the truth of the test web of `config` into `dir` unless a complete export of the current
 * format version is there (the manifest is written last, so its presence means the export
 * finished); an export of an older version is replaced. Resolves to whether the export found there
 * was reused. The cache is not checked against `config`: a directory holds the truth of one web,
 * chosen by its caller.
 */
export async function ensureTruth(config: WebConfigInput, dir: string): Promise<{ readonly isCached: boolean }> {
  if (isCurrentExport(dir)) return { isCached: true };
  await exportTruth(new WebModel(config), dir);
  return { isCached: false };
}
