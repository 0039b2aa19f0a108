/**
 * `cluster.json` of an embedded collaborative crawl (the format is `store/crawl-dir.ts`'s): written on
 * the first run, and checked on every later one, which must use the same nodes and strategy.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ShoalError } from '../core/errors.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import type { Partitioner } from '../partition/partitioner.js';
import { CLUSTER_MANIFEST, type ClusterManifest } from '../store/crawl-dir.js';

/** Writes `cluster.json`, or checks that an existing one describes the same crawl. */
export function writeManifest(
  outDir: string,
  config: CrawlConfig,
  partitioner: Partitioner,
  forward: ClusterManifest['forward'],
): ClusterManifest {
  const n = config.cluster.nodes;
  const manifest: ClusterManifest = {
    format: 'shoal-cluster',
    version: 1,
    partitioner: partitioner.spec,
    partitionCount: n,
    forward,
    nodes: Array.from({ length: n }, (_, i) => ({
      nodeId: `${config.nodeId}-${i}`,
      partitions: [i],
      dir: join('nodes', `${config.nodeId}-${i}`),
    })),
  };
  const path = join(outDir, CLUSTER_MANIFEST);
  let existing: string | null = null;
  try {
    existing = readFileSync(path, 'utf8');
  } catch {
    // A new crawl directory.
  }
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  if (existing !== null) {
    if (existing !== text) {
      throw new ConfigError([
        {
          path: 'cluster',
          message: `${path} describes another crawl (nodes, node ids or partitioning differ); resume with the same settings or use another --out`,
        },
      ]);
    }
    return manifest;
  }
  try {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
  } catch (err) {
    throw new ShoalError('IO', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
  return manifest;
}
