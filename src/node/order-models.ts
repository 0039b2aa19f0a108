/**
 * The data the ordering policies read, loaded from the files the configuration names (policies do no
 * I/O, `src/order/policy.ts`): for now the reference idf table of `similarity` with
 * `idfSource: reference` (`orderTables.idfFile`), a text file of `term<TAB>idf` lines (`#` comments
 * and blank lines skipped; terms are lowercased as the policy's tokenizer does); and for `topic` the
 * topic model (`cluster.model`) with the node's own categories, read from the partitioner's
 * `assignment` (`CATEGORY=partition` entries) and the partitions the node owns.
 */
import { readFileSync } from 'node:fs';
import { loadTopicModel } from '../classify/model-loader.js';
import { ConfigError } from '../core/errors.js';
import type { OrderModels, OrderPolicyConfig } from '../order/registry.js';
import type { PartitionerSpec, PartitionId } from '../partition/partitioner.js';
import type { CrawlConfig } from '../config/crawl-config.js';

/** Reads an idf table; every malformed line is a configuration problem at `orderTables.idfFile`. */
export function readIdfTable(path: string): ReadonlyMap<string, number> {
  const where = 'orderTables.idfFile';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: where, message: `cannot read ${path}: ${(err as Error).message}` }], {
      code: 'CONFIG_FILE_UNREADABLE',
      cause: err,
    });
  }
  const idf = new Map<string, number>();
  const problems: { path: string; message: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) return;
    const [term, value, ...rest] = line.split('\t');
    const n = Number(value);
    if (term === undefined || term === '' || rest.length > 0 || value === undefined || !Number.isFinite(n) || n < 0) {
      if (problems.length < 20)
        problems.push({
          path: where,
          message: `${path}:${i + 1}: expected term<TAB>idf (a number >= 0), got ${JSON.stringify(line.slice(0, 80))}`,
        });
      return;
    }
    idf.set(term.toLowerCase(), n);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return idf;
}

/** Where a node sits in a collaborative crawl: its partitioner's spec and the partitions it owns. */
export interface NodePlacement {
  readonly partitioner: { readonly spec: PartitionerSpec };
  readonly partitions: readonly PartitionId[];
}

/**
 * The models `config.order` needs: the idf table when one is named, the topic model when a `topic`
 * policy orders (alone or in a combination). `placement` is null for a crawl of one node.
 */
export function orderModelsOf(config: CrawlConfig, placement: NodePlacement | null = null): OrderModels {
  const file = config.orderTables.idfFile;
  const idf = file === null ? {} : { idf: readIdfTable(file) };
  if (!usesTopic(config.order)) return idf;
  const { classifier } = loadTopicModel(config.cluster.model);
  const known = new Set(classifier.categories);
  const own = ownCategoriesOf(placement);
  return { ...idf, topic: { classifier, categories: own === null ? null : own.filter((c) => known.has(c)) } };
}

/**
 * The categories a topic partitioner assigns to the node's partitions, from its spec's `assignment`
 * entries (`CATEGORY=partition`); null for another strategy or a node of its own.
 */
export function ownCategoriesOf(placement: NodePlacement | null): string[] | null {
  const entries = placement?.partitioner.spec.params.assignment;
  if (!Array.isArray(entries)) return null;
  const own = new Set(placement?.partitions ?? []);
  const categories: string[] = [];
  for (const entry of entries as readonly string[]) {
    const at = entry.lastIndexOf('=');
    if (at > 0 && own.has(Number(entry.slice(at + 1)))) categories.push(entry.slice(0, at));
  }
  return categories;
}

function usesTopic(order: OrderPolicyConfig): boolean {
  return order.policy === 'topic' || (order.policy === 'weighted' && order.components.some((c) => c.policy.policy === 'topic'));
}
