/** What the commands of the CLI share to read flags and print figures. */

/** Away from a terminal, how often a long command prints a progress line, ms. */
export const PROGRESS_LINE_MS = 5000;

/** Commander's collector for a repeatable flag (`--seed a --seed b`). */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** A count for people: rounded, with thousands separators (`12,345`). */
export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Bytes as megabytes, one decimal below 100 MB (`48.4 MB`). */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`;
}

/** The sum of `of` over `items`. */
export const sumOf = <T>(items: readonly T[], of: (t: T) => number): number => items.reduce((a, t) => a + of(t), 0);
