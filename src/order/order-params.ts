/**
 * Construction checks shared by the ordering policies. A policy throws {@link OrderParamError} for a
 * parameter it cannot use (the Contract: bad parameters throw at construction, Web data never does);
 * the registry turns it into a `ConfigError` at `order.<param>`, so the user sees the option to fix.
 */

/** A policy parameter that cannot be used; `param` is its name in the `order` section. */
export class OrderParamError extends RangeError {
  /** Name of the offending option, e.g. `recomputeEvery` (a dotted path inside a combination). */
  readonly param: string;
  /** What is wrong with it, without the name. */
  readonly detail: string;
  constructor(param: string, detail: string, options?: { cause?: unknown }) {
    super(`${param}: ${detail}`, options);
    this.name = 'OrderParamError';
    this.param = param;
    this.detail = detail;
  }
}

/** `value` if it is an integer in [min, max], else throws {@link OrderParamError}. */
export function integerParam(param: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new OrderParamError(param, `must be an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

/** `value` if it is a finite number in [min, max], else throws {@link OrderParamError}. */
export function numberParam(param: string, value: number, min = -Number.MAX_VALUE, max = Number.MAX_VALUE): number {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new OrderParamError(param, `must be a finite number in [${min}, ${max}], got ${value}`);
  }
  return value;
}
