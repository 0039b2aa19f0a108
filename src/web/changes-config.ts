/**
 * The `changes` section of the test web's configuration: pages whose content changes over time, so
 * that a re-crawl's freshness can be measured (src/web/changes.ts, docs/recrawl.md).
 */
import { z } from 'zod';
import { durationMs, rate } from '../config/units.js';

/** The `changes` section. */
export const changesSchema = z
  .strictObject({
    share: rate().default(0).describe('share of content pages whose content changes over time (0 = a static Web)'),
    minIntervalMs: durationMs()
      .default(10_000)
      .describe(
        'shortest mean time between two changes of a changing page (each page draws its mean log-uniformly between the two bounds)',
      ),
    maxIntervalMs: durationMs().default(600_000).describe('longest mean time between two changes of a changing page'),
    epochMs: durationMs()
      .default(1000)
      .describe(
        'pages change only at whole epochs after the origin; each epoch a changing page changes with probability 1 − exp(−epoch / its mean)',
      ),
    originMs: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .default(null)
      .meta({ unit: 'ms since 1970' })
      .describe('wall-clock time of epoch 0, ms since 1970; null = when the server starts listening'),
  })
  .prefault({});
