/**
 * What a crawl does with a near-duplicate page (SPEC §2.10): the values of the `dedup.near.action`
 * option, and the default distance, chosen from measurements (docs/near-duplicates.md).
 */

/**
 * - `archive`: archived and its links followed like any page, only marked;
 * - `archive-nofollow`: archived, its links not followed (as an exact duplicate's);
 * - `skip`: not archived (no WARC records, no link graph), its links not followed; the crawl log and
 *   pages.jsonl still say it was fetched and which page it resembles;
 * - `off`: fingerprints are not looked up, nothing is marked.
 */
export const NEAR_DUPLICATE_ACTIONS = ['archive', 'archive-nofollow', 'skip', 'off'] as const;

export type NearDuplicateAction = (typeof NEAR_DUPLICATE_ACTIONS)[number];

/**
 * Default `dedup.near.maxDistance`: 8 bits of 64. Over a whole crawl every lookup compares against
 * every page kept, so the per-pair false-match rate must be tiny: an unrelated pair (distance
 * Binomial(64, ½)) lands within 8 bits with probability 2.5·10⁻¹⁰, so a million-page index expects
 * one false match in 3,600 lookups, where `NEAR_DUPLICATE_MAX_DISTANCE` (16, meant for a small
 * candidate set) would expect 39 per lookup. The recall this keeps on the test web's near-duplicates
 * is measured by `npm run experiment:neardup` (docs/experiments/near-duplicates.md).
 */
export const DEFAULT_NEAR_DUPLICATE_DISTANCE = 8;
