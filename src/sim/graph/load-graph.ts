/**
 * Reads a simulator graph from the paths a user gives, in the format named or recognised:
 * a directory with `manifest.json` is a test web's ground truth (`truth-graph.ts`), any other
 * directory a crawl (`crawl-graph.ts`, several directories merged), a file a TSV edge list
 * (`tsv-graph.ts`).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { MANIFEST_FILE } from '../../web/truth/format.js';
import { loadCrawlGraph, type CrawlGraphOptions } from './crawl-graph.js';
import { checkSimGraph, type SimGraph, type SimGraphFileFormat } from './sim-graph.js';
import { loadTruthGraph, type TruthGraphOptions } from './truth-graph.js';
import { loadTsvGraph } from './tsv-graph.js';

/** `auto` or one of the formats. */
export type GraphFormatChoice = 'auto' | SimGraphFileFormat;

/** Options of {@link loadSimGraph}: each applies to its format only. */
export interface SimGraphLoadOptions extends TruthGraphOptions, CrawlGraphOptions {}

/**
 * The format of `paths` as {@link loadSimGraph} would read them with `auto`.
 * @throws ConfigError (at `graph.paths`) when nothing is given, a path does not exist, or several
 *   paths are not all crawl directories.
 */
export function detectGraphFormat(paths: readonly string[]): SimGraphFileFormat {
  if (paths.length === 0) throw new ConfigError([{ path: 'graph.paths', message: 'no graph given (--graph PATH)' }], { code: 'USAGE' });
  for (const p of paths) {
    if (!existsSync(p)) throw new ConfigError([{ path: 'graph.paths', message: `${p} does not exist` }], { code: 'USAGE' });
  }
  const first = paths[0] as string;
  if (paths.length === 1 && statSync(first).isFile()) return 'tsv';
  if (paths.length === 1 && existsSync(join(first, MANIFEST_FILE))) return 'truth';
  if (paths.every((p) => statSync(p).isDirectory())) return 'crawl';
  throw new ConfigError(
    [{ path: 'graph.paths', message: 'several paths must all be crawl directories (a truth export or an edge list is one path)' }],
    { code: 'USAGE' },
  );
}

/**
 * Reads the graph at `paths`, and checks the invariants every loader promises (`checkSimGraph`:
 * constant work, plus one test per seed).
 * @throws ConfigError for paths that cannot be this format; ShoalError (`TRUTH_FORMAT`, `IO`) for a
 *   damaged or malformed input, naming the file (and line); RangeError for a loader bug.
 */
export async function loadSimGraph(
  paths: readonly string[],
  format: GraphFormatChoice = 'auto',
  options: SimGraphLoadOptions = {},
): Promise<SimGraph> {
  const chosen = format === 'auto' ? detectGraphFormat(paths) : format;
  if (chosen !== 'crawl' && paths.length !== 1) {
    throw new ConfigError([{ path: 'graph.paths', message: `a ${chosen} graph is one path, got ${paths.length}` }], { code: 'USAGE' });
  }
  const graph = await loadAs(chosen, paths, options);
  try {
    checkSimGraph(graph);
  } catch (err) {
    graph.close();
    throw err;
  }
  return graph;
}

function loadAs(format: SimGraphFileFormat, paths: readonly string[], options: SimGraphLoadOptions): Promise<SimGraph> {
  switch (format) {
    case 'truth':
      return loadTruthGraph(paths[0] as string, { rebuildContent: options.rebuildContent ?? false });
    case 'tsv':
      return loadTsvGraph(paths[0] as string);
    case 'crawl':
      return loadCrawlGraph(paths, { withContent: options.withContent ?? false });
  }
}
