/** The generated reference pages: file name under docs/reference/ -> content. */
import { configReference, errorCatalogue } from '../config/reference.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema } from '../config/crawl-config.js';
import { SIMULATE_ENV_PREFIX, simConfigSchema } from '../sim/sim-config.js';
import { webConfigSchema } from '../web/config.js';

export function referenceDocs(): ReadonlyMap<string, string> {
  return new Map([
    ['crawl-config.md', configReference('`shoal crawl` configuration reference', crawlConfigSchema, CRAWL_ENV_PREFIX)],
    ['simulate-config.md', configReference('`shoal simulate` configuration reference', simConfigSchema, SIMULATE_ENV_PREFIX)],
    ['web-config.md', configReference('`shoal web` configuration reference', webConfigSchema, 'SHOAL_WEB_')],
    ['errors.md', errorCatalogue()],
  ]);
}
