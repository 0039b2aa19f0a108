/**
 * The pages earlier runs of a crawl directory kept, as the near-duplicate index reads them back on
 * resume (`../stages/near-duplicates.ts`): the lines of `pages.jsonl`, or, when the crawl keeps no
 * page metadata, the crawl log's `ok` lines (both carry the URL, the SimHash and the near-duplicate
 * mark). A torn last line is skipped (the store repairs it when it opens, after this read).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CRAWL_LOG_FILE, readCrawlLog } from '../../store/crawl-log.js';
import { PAGE_METADATA_FILE, readPageMetadata } from '../../store/page-metadata.js';
import type { KeptPage } from '../stages/near-duplicates.js';

/** Which stores the crawl keeps (the `store` configuration section). */
export interface KeptStores {
  readonly hasPageMetadata: boolean;
  readonly hasCrawlLog: boolean;
}

/** The kept pages of the crawl directory `root`, oldest first; null when neither file exists. */
export function keptPagesOf(root: string, stores: KeptStores): AsyncIterable<KeptPage> | null {
  const pages = join(root, PAGE_METADATA_FILE);
  if (stores.hasPageMetadata && existsSync(pages)) return readPageMetadata(pages);
  const log = join(root, CRAWL_LOG_FILE);
  if (stores.hasCrawlLog && existsSync(log)) return okLines(log);
  return null;
}

async function* okLines(path: string): AsyncGenerator<KeptPage> {
  for await (const e of readCrawlLog(path)) if (e.outcome === 'ok' && e.simhash !== null) yield e;
}
