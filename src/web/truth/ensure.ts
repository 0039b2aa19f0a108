/**
 * A test web's ground truth kept in a cache directory: exported once, then reused by every run that
 * finds it there (benchmarks and experiments that read a large web's truth many times).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WebConfigInput } from '../config.js';
import { WebModel } from '../model.js';
import { exportTruth } from './export.js';
import { MANIFEST_FILE } from './format.js';

/**
 * Exports the truth of the test web of `config` into `dir` unless a complete export is there (the
 * manifest is written last, so its presence means the export finished). Resolves to whether the
 * export found there was reused. The cache is not checked against `config`: a directory holds the
 * truth of one web, chosen by its caller.
 */
export async function ensureTruth(config: WebConfigInput, dir: string): Promise<{ readonly isCached: boolean }> {
  if (existsSync(join(dir, MANIFEST_FILE))) return { isCached: true };
  await exportTruth(new WebModel(config), dir);
  return { isCached: false };
}
