/**
 * The `recrawl` section of a crawl's configuration (SPEC §2 item 12): revisit scheduling for
 * freshness, off by default. docs/recrawl.md explains the estimator and the options.
 */
import { z } from 'zod';
import { count, durationMs } from './units.js';

/** How a page's next revisit interval is chosen (src/frontier/change-rate.ts). */
export const REVISIT_ESTIMATORS = ['cho-optimal', 'cho', 'halve-double'] as const;

/** The `recrawl` section. */
export const recrawlSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        're-queue every page fetched (2xx or 304) after an interval that adapts to how often it changed; off = every URL is fetched once',
      ),
    estimator: z
      .enum(REVISIT_ESTIMATORS)
      .default('cho-optimal')
      .describe(
        "cho-optimal: Cho & Garcia-Molina's freshness-optimal interval for the change rate λ estimated from the page's visits (see tradeoffMs); " +
          'cho: interval = 1/λ; halve-double: halve the interval on a change, double it otherwise (an interval grows at most twofold per visit)',
      ),
    tradeoffMs: durationMs()
      .default(86_400_000)
      .describe(
        'cho-optimal: the interval I solves 1 − e^(−λI)(1 + λI) = λ × this; pages changing more often than once per this long ' +
          'are left at maxIntervalMs; larger = fresher, more requests',
      ),
    initialIntervalMs: durationMs().default(3_600_000).describe('interval before the first revisit of a page'),
    minIntervalMs: durationMs().default(60_000).describe('shortest interval between two visits of a page'),
    maxIntervalMs: durationMs()
      .default(30 * 86_400_000)
      .describe('longest interval between two visits of a page'),
    durationMs: durationMs()
      .nullable()
      .default(null)
      .describe(
        'keep the crawl running this long from the start of the run, waiting for revisits when nothing else is queued; ' +
          'null = the crawl ends when only future revisits are left (they stay scheduled for the next run)',
      ),
    maxRevisits: count('fetches')
      .nullable()
      .default(null)
      .describe('revisits queued at most in one run; after that none is queued (null = no limit besides limits.maxPages)'),
  })
  .prefault({})
  .superRefine((c, ctx) => {
    if (c.minIntervalMs < 1) ctx.addIssue({ code: 'custom', path: ['minIntervalMs'], message: 'must be >= 1' });
    if (c.maxIntervalMs < c.minIntervalMs)
      ctx.addIssue({ code: 'custom', path: ['maxIntervalMs'], message: 'must be >= recrawl.minIntervalMs' });
  });

/** The validated `recrawl` section. */
export type RecrawlConfig = z.output<typeof recrawlSchema>;
