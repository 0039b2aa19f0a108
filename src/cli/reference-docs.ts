/** The generated reference pages: file name under docs/reference/ -> content. */
import { configReference, errorCatalogue } from '../config/reference.js';
import { webConfigSchema } from '../web/config.js';

export function referenceDocs(): ReadonlyMap<string, string> {
  return new Map([
    ['web-config.md', configReference('`shoal web` configuration reference', webConfigSchema, 'SHOAL_WEB_')],
    ['errors.md', errorCatalogue()],
  ]);
}
