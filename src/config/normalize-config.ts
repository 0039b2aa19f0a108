/**
 * The `normalize` section of the crawl configuration: the optional URL normalization rules of SPEC
 * §2 item 2 (`src/url/normalize.ts` says what each does and why it is off or on by default). The
 * node applies them wherever a URL enters the crawl (seeds, seeds files, links and canonical links,
 * redirects, sitemaps), so two spellings of one page share a fingerprint, and with it one place in
 * the URL-seen set, one owner in a collaborative crawl and one fetch.
 *
 * Every node of a collaborative crawl must normalize alike, or a URL's fingerprint and partition
 * would depend on the node that found it: embedded nodes share one configuration, and distributed
 * nodes publish a section that differs from the default with the crawl's shared settings (a node
 * with other rules is refused). Changing the rules between runs of one crawl directory takes effect
 * for URLs found from then on; URLs already seen keep the form they were seen in.
 */
import { z } from 'zod';
import { DEFAULT_DROP_PARAMS } from '../url/normalize.js';

/** The `normalize` section: `stripWww` and `sortQuery` off, the default tracking and session parameters dropped. */
export const normalizeSchema = z
  .strictObject({
    stripWww: z
      .boolean()
      .default(false)
      .describe(
        'drop a leading www. from host names (www.example.com and example.com become one host); off: most sites serve both alike, not all',
      ),
    sortQuery: z.boolean().default(false).describe('sort query parameters by name (?b=2&a=1 and ?a=1&b=2 become one URL)'),
    dropParams: z
      .array(z.string().regex(/^[^*]+\*?$/, 'a name, or a prefix ending in *'))
      .default([...DEFAULT_DROP_PARAMS])
      .describe(
        'query and ;path parameters removed, matched case-insensitively by name; a trailing * matches a prefix (utm_*); ' +
          'default: campaign tags (utm_*, gclid, fbclid, ...) and session ids (jsessionid, phpsessid, sid, ...); [] = keep all',
      ),
  })
  .prefault({})
  .describe('optional URL normalization rules (SPEC §2 item 2), applied to every URL the crawl meets');

/** The section; it is the normalizer's `NormalizeOptions` as it stands. */
export type NormalizeConfig = z.output<typeof normalizeSchema>;

/** Whether `section` is the default one: its rules are what every version of shoal applies when none is given. */
export function isDefaultNormalize(section: NormalizeConfig): boolean {
  return (
    !section.stripWww &&
    !section.sortQuery &&
    section.dropParams.length === DEFAULT_DROP_PARAMS.length &&
    section.dropParams.every((p, i) => p === DEFAULT_DROP_PARAMS[i])
  );
}
