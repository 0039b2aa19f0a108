/**
 * How long a simulated fetch takes: one duration per host, fixed for the run, from a latency model.
 * The duration drives the virtual clock (a fetch slot is busy that long) and politeness (a host
 * waits delayFactor × its fetch time before its next contact), as measured fetch times do in a real crawl.
 *
 * | model | per host |
 * |---|---|
 * | `constant` | `ms` for every host (0 allowed: fetches take no virtual time) |
 * | `uniform` | drawn uniformly in [ms·(1 − spread), ms·(1 + spread)] |
 * | `lognormal` | ms · e^(spread·z), z standard normal: median `ms`, a long tail of slow hosts |
 * | `measured` | the mean fetch time a real crawl measured on the host (crawl graphs); `ms` for hosts it did not fetch |
 *
 * Draws come from the test web's seeded generator (`core/prng.ts`, purpose `latency`) in host order,
 * so a run is reproducible.
 */
import { Purpose, Rng } from '../core/prng.js';

/** A latency model, as configured (`sim-config.ts`, section `latency`). */
export interface LatencyModel {
  readonly model: 'constant' | 'uniform' | 'lognormal' | 'measured';
  /** Constant value, mean (uniform), median (lognormal) or fallback (measured), ms. */
  readonly ms: number;
  /** Relative half width (uniform) or sigma (lognormal). */
  readonly spread: number;
  /** Seed of the draws. */
  readonly seed: number;
}

/**
 * The fetch time of each of `hostCount` hosts, ms.
 * @param measuredMs per host mean fetch time of a real crawl (NaN: not measured); required by `measured`.
 * @throws RangeError for `measured` without measurements, or a negative or non-finite `ms`.
 */
export function hostLatencies(model: LatencyModel, hostCount: number, measuredMs: Float64Array | null = null): Float64Array {
  if (!(Number.isFinite(model.ms) && model.ms >= 0)) throw new RangeError(`latency: ms must be a finite number >= 0, got ${model.ms}`);
  const out = new Float64Array(hostCount);
  const rng = new Rng(model.seed, Purpose.latency, 0);
  switch (model.model) {
    case 'constant':
      out.fill(model.ms);
      break;
    case 'uniform': {
      const half = Math.min(1, model.spread) * model.ms;
      for (let h = 0; h < hostCount; h++) out[h] = model.ms - half + 2 * half * rng.next();
      break;
    }
    case 'lognormal':
      for (let h = 0; h < hostCount; h++) out[h] = rng.logNormal(model.ms, model.spread);
      break;
    case 'measured':
      if (measuredMs === null)
        throw new RangeError('latency: the measured model needs fetch times measured by a real crawl (a crawl graph with its crawl log)');
      for (let h = 0; h < hostCount; h++) {
        const m = measuredMs[h] as number;
        out[h] = Number.isFinite(m) && m >= 0 ? m : model.ms;
      }
      break;
  }
  return out;
}
