/**
 * The process settings of the `shoal` command: two V8 flags and one glibc malloc setting that hold
 * a crawler's memory to about two thirds of what Node's defaults let it take (docs/memory.md).
 *
 * They belong to the process, not to a crawl: V8 sizes its young generation when the isolate starts,
 * and glibc reads its malloc settings at the first allocation, so neither can be set from inside a
 * running crawl. `bin/shoal.js` starts as a shell script that runs node with them (its first two
 * lines); `node bin/shoal.js` and a program calling `new Crawl(config).run()` run under whatever
 * node was started with, and can pass these to `node` or to `child_process.fork` themselves.
 *
 * - `--max-semi-space-size=4`: each semi-space of V8's young generation is at most 4 MiB, against
 *   Node 20's 16 on 64-bit machines. The young generation of the crawl thread goes from up to 48 MiB
 *   to 12; the price is more scavenges, and more objects promoted to the old generation.
 * - `--heap-growing-percent=50`: after a full collection, V8 lets the old generation grow by half of
 *   what survived before the next one, instead of up to 4 times it when collections look cheap. The
 *   crawl thread's live objects (about 45 MiB) then take 75–90 MiB of heap instead of about 140.
 * - `MALLOC_MMAP_THRESHOLD_=131072`: every malloc of 128 KiB or more gets its own mapping, returned
 *   to the system when freed. Without it glibc raises that threshold after each large free (up to
 *   32 MiB), so the frontier's growing columns and large page bodies end up in the malloc heap, whose
 *   freed holes it keeps: 40–50 MiB more at the peak of `bench:frontier`. A value set in the
 *   environment is kept.
 *
 * The price, measured by `npm run bench:crawl` in alternating runs, is CPU time per page (see
 * docs/memory.md for the figures); the benchmarks run their crawler under these settings, as users do.
 */

/** Node flags of the shoal command, in the order it passes them. */
export const SHOAL_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/** Environment of the shoal command: set unless the user's environment already has the variable. */
export const SHOAL_PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** What of the shoal command's settings the current process runs with. */
export interface ProcessSettingsReport {
  /** True when every flag of {@link SHOAL_NODE_FLAGS} is among node's flags and every variable of {@link SHOAL_PROCESS_ENV} is set (to any value). */
  readonly isInEffect: boolean;
  /** The flags and variables missing (empty when in effect). */
  readonly missing: readonly string[];
}

/**
 * Which of the shoal command's settings a process runs with, given its node flags
 * (`process.execArgv`) and its environment (`process.env`). A flag counts as present when node was
 * given the same flag with any value (`--max-semi-space-size=8` is a choice, not a missing setting),
 * so this tells whether the process was started by the shoal command or with the settings on
 * purpose, not which values it has.
 */
export function processSettings(execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): ProcessSettingsReport {
  const given = new Set(execArgv.map(flagName));
  const missing = [
    ...SHOAL_NODE_FLAGS.filter((f) => !given.has(flagName(f))),
    ...Object.keys(SHOAL_PROCESS_ENV).filter((name) => env[name] === undefined),
  ];
  return { isInEffect: missing.length === 0, missing };
}

/** `--max-semi-space-size` of `--max-semi-space-size=4`; V8 also accepts underscores. */
function flagName(flag: string): string {
  const eq = flag.indexOf('=');
  return (eq === -1 ? flag : flag.slice(0, eq)).replaceAll('_', '-');
}
