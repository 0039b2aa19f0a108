/**
 * Units in configuration. Code speaks milliseconds and bytes only; files and flags may say
 * `250ms`, `10s`, `2m`, `1h` or `512KiB`, `2MiB`, `1GB`, which the schema converts.
 */
import { z } from 'zod';

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

function parseWithUnits(raw: string, units: Readonly<Record<string, number>>, fallbackUnit: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  if (m === null) return undefined;
  const unit = (m[2] ?? '').toLowerCase() || fallbackUnit;
  const factor = units[unit];
  return factor === undefined ? undefined : Math.round(Number(m[1]) * factor);
}

/** A duration in milliseconds; accepts a number (ms) or a string such as `10s` or `250ms`. */
export function durationMs(): z.ZodType<number, unknown> {
  return z
    .preprocess(
      (v) => (typeof v === 'string' ? (parseWithUnits(v, DURATION_UNITS, 'ms') ?? v) : v),
      z.number({ error: 'expected a duration such as 250ms, 10s, 2m' }).int().nonnegative(),
    )
    .meta({ unit: 'ms' });
}

/** A size in bytes; accepts a number (bytes) or a string such as `512KiB` or `2MB`. */
export function bytes(): z.ZodType<number, unknown> {
  return z
    .preprocess(
      (v) => (typeof v === 'string' ? (parseWithUnits(v, BYTE_UNITS, 'b') ?? v) : v),
      z.number({ error: 'expected a size such as 4096, 512KiB, 2MiB' }).int().nonnegative(),
    )
    .meta({ unit: 'bytes' });
}

/** A probability in [0, 1]. */
export function rate(): z.ZodNumber {
  return z.number().min(0).max(1);
}

/** A whole number of at least `min`. */
export function int(min = 0): z.ZodNumber {
  return z.number().int().min(min);
}

/** A count, with what it counts as its unit (`pages`, `connections`). */
export function count(unit: string, min = 0): z.ZodNumber {
  return int(min).meta({ unit });
}
