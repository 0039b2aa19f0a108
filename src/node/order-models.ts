/**
 * The data the ordering policies read, loaded from the files the configuration names (policies do no
 * I/O, `src/order/policy.ts`): for now the reference idf table of `similarity` with
 * `idfSource: reference` (`orderTables.idfFile`), a text file of `term<TAB>idf` lines (`#` comments
 * and blank lines skipped; terms are lowercased as the policy's tokenizer does).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/errors.js';
import type { OrderModels } from '../order/registry.js';
import type { CrawlConfig } from '../config/crawl-config.js';

/** Reads an idf table; every malformed line is a configuration problem at `orderTables.idfFile`. */
export function readIdfTable(path: string): ReadonlyMap<string, number> {
  const where = 'orderTables.idfFile';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: where, message: `cannot read ${path}: ${(err as Error).message}` }], { code: 'CONFIG_FILE_UNREADABLE', cause: err });
  }
  const idf = new Map<string, number>();
  const problems: { path: string; message: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) return;
    const [term, value, ...rest] = line.split('\t');
    const n = Number(value);
    if (term === undefined || term === '' || rest.length > 0 || value === undefined || !Number.isFinite(n) || n < 0) {
      if (problems.length < 20) problems.push({ path: where, message: `${path}:${i + 1}: expected term<TAB>idf (a number >= 0), got ${JSON.stringify(line.slice(0, 80))}` });
      return;
    }
    idf.set(term.toLowerCase(), n);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return idf;
}

/** The models `config.order` needs (none unless a table is named). */
export function orderModelsOf(config: CrawlConfig): OrderModels {
  const file = config.orderTables.idfFile;
  return file === null ? {} : { idf: readIdfTable(file) };
}
