/** Shared by the benchmarks: the bytes of every file under a directory (a crawl directory's size on disk, as files). */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}
