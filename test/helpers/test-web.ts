/** Test-web settings shared by the tests that crawl one. */

/**
 * Every Web fault a test web draws by default turned off (no redirects, errors, resets, oversized
 * bodies or compression bombs; hangs are off by default), so that every ordinary page answers 200.
 */
export const NO_FAULTS = Object.freeze({
  redirectRate: 0,
  redirectLoopRate: 0,
  notFoundRate: 0,
  goneRate: 0,
  serverErrorRate: 0,
  unavailableRate: 0,
  resetRate: 0,
  oversizedRate: 0,
  bombRate: 0,
});
