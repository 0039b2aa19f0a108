// Shared by the benchmarks: the bytes of every file under a directory (a crawl directory's size on
// disk, as files). Plain JavaScript so that bench/lib/frontier-crawler.mjs, which runs under plain
// node without a TypeScript loader, can import it too; dir-bytes.d.mts gives its type.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of every file under `dir`, 0 when `dir` does not exist (a store the crawl never opened). */
export function dirBytes(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err?.code === 'ENOENT') return 0;
    throw err;
  }
  let total = 0;
  for (const e of entries) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}
