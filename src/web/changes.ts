/**
 * Pages of the test web that change over time (`changes` in its configuration): the content of a
 * changing page at time t follows from the seed and the epoch of t alone, so any process can tell
 * what a page said at any time, and the ground truth of when each page changed is a function too.
 *
 * Page g changes with `share`; its mean time between changes, m_g, is drawn log-uniformly in
 * [minIntervalMs, maxIntervalMs]. Time is cut into epochs of `epochMs` from `origin`; at the end of
 * epoch k ≥ 1 the page changes with probability p_g = 1 − exp(−epochMs / m_g), independently per
 * epoch (a Bernoulli process, the discrete form of the Poisson process of rate 1/m_g that Cho &
 * Garcia-Molina model pages with). Its version at t is the number of changes in epochs 1..⌊(t − origin) /
 * epochMs⌋; version 0 is the static page. A new version adds one paragraph of seeded words, and gets
 * its own ETag and a Last-Modified of the instant it changed.
 */
import { hash32, unitFromHash } from '../core/prng.js';
import type { WebModel } from './model.js';

/** The hash stream of change draws, apart from the model's `Purpose` streams. */
const CHANGE_STREAM = 0x63686e67;

/** One page's change process. */
export interface PageChangeInfo {
  /** Mean time between changes, ms. */
  readonly meanIntervalMs: number;
  /** Probability of a change at each epoch boundary. */
  readonly perEpoch: number;
}

/** The change processes of one test web, from one origin. */
export class PageChanges {
  readonly originMs: number;
  readonly epochMs: number;
  private readonly seed: number;
  private readonly share: number;
  private readonly minMs: number;
  private readonly maxMs: number;
  /** Per page: the last epoch counted and the version then (versions are asked in rising time). */
  private readonly counted = new Map<number, { epoch: number; version: number }>();

  constructor(model: WebModel, originMs: number) {
    const c = model.config.changes;
    this.seed = model.config.seed;
    this.share = c.share;
    this.minMs = Math.max(1, c.minIntervalMs);
    this.maxMs = Math.max(this.minMs, c.maxIntervalMs);
    this.epochMs = Math.max(1, c.epochMs);
    this.originMs = originMs;
  }

  /** Whether page g changes at all. */
  isChanging(g: number): boolean {
    return this.share > 0 && unitFromHash(hash32(this.seed ^ CHANGE_STREAM, g, 0, 1)) < this.share;
  }

  /** Page g's change process; null for a page that never changes. */
  info(g: number): PageChangeInfo | null {
    if (!this.isChanging(g)) return null;
    const u = unitFromHash(hash32(this.seed ^ CHANGE_STREAM, g, 0, 2));
    const meanIntervalMs = this.minMs * (this.maxMs / this.minMs) ** u;
    return { meanIntervalMs, perEpoch: 1 - Math.exp(-this.epochMs / meanIntervalMs) };
  }

  /** The epoch that holds wall-clock time `tMs` (0 before the first boundary, and before the origin). */
  epochAt(tMs: number): number {
    return Math.max(0, Math.floor((tMs - this.originMs) / this.epochMs));
  }

  /** Whether page g (with `info`) changes at the end of epoch k (k ≥ 1). */
  changesAt(g: number, info: PageChangeInfo, k: number): boolean {
    return unitFromHash(hash32(this.seed ^ CHANGE_STREAM, g, k, 3)) < info.perEpoch;
  }

  /** Page g's version at wall-clock time `tMs`: its changes so far (0 for a page that never changes). */
  versionAt(g: number, tMs: number): number {
    const info = this.info(g);
    if (info === null) return 0;
    const epoch = this.epochAt(tMs);
    let from = this.counted.get(g);
    if (from === undefined || from.epoch > epoch) from = { epoch: 0, version: 0 };
    let version = from.version;
    for (let k = from.epoch + 1; k <= epoch; k++) if (this.changesAt(g, info, k)) version++;
    this.counted.set(g, { epoch, version });
    return version;
  }

  /** When page g changed, wall-clock ms, up to `untilMs` (the ground truth of its changes). */
  changeTimes(g: number, untilMs: number): number[] {
    const info = this.info(g);
    if (info === null) return [];
    const times: number[] = [];
    const last = this.epochAt(untilMs);
    for (let k = 1; k <= last; k++) if (this.changesAt(g, info, k)) times.push(this.originMs + k * this.epochMs);
    return times;
  }

  /** The instant page g took its version at `tMs` (null for version 0). */
  lastChangeMs(g: number, tMs: number): number | null {
    const times = this.changeTimes(g, tMs);
    return times.length === 0 ? null : (times[times.length - 1] as number);
  }
}

/** The paragraph a version adds to a page's body, before `</body>`. */
export function versionedBody(body: Buffer, seed: number, g: number, version: number): Buffer {
  if (version === 0) return body;
  const words: string[] = [];
  for (let i = 0; i < 12; i++) words.push((hash32(seed ^ CHANGE_STREAM, g, version, 10 + i) % 46_656).toString(36));
  const p = Buffer.from(`<p class="revision">revision ${version}: ${words.join(' ')}</p>\n`);
  const close = body.lastIndexOf('</body>');
  return close < 0 ? Buffer.concat([body, p]) : Buffer.concat([body.subarray(0, close), p, body.subarray(close)]);
}
