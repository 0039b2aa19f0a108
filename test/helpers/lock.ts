/** Whether a crawl directory's lock is held, as a second crawl would find it. */
import { ShoalError } from '../../src/core/errors.js';
import { crawlDirLayout, lockCrawlDir } from '../../src/store/crawl-dir.js';

/** True when some open file holds `dir`'s lock (a crawl is writing into it); false after taking and releasing it. */
export function isCrawlDirLocked(dir: string): boolean {
  try {
    lockCrawlDir(crawlDirLayout(dir)).release();
    return false;
  } catch (err) {
    if (err instanceof ShoalError && err.code === 'CRAWL_DIR_LOCKED') return true;
    throw err;
  }
}
