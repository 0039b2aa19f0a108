/**
 * The ground truth of a changing test web (src/web/changes.ts): when each changing page changed, up
 * to a given time, in `changes.tsv` beside the rest of the truth. One line per changing page:
 *
 *     page  url  meanIntervalMs  perEpoch  changedAtMs
 *
 * `changedAtMs` lists the wall-clock instants of its changes, comma-separated (empty when none yet).
 * The first line is a comment with the origin, the epoch and the time the list runs to:
 * `# originMs=… epochMs=… untilMs=…`. Pages that never change are not listed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PageChanges } from '../changes.js';
import type { WebModel } from '../model.js';

/** The file's name in a truth folder. */
export const CHANGES_FILE = 'changes.tsv';

/** One changing page of the truth. */
export interface ChangeTruthPage {
  readonly page: number;
  readonly url: string;
  readonly meanIntervalMs: number;
  readonly perEpoch: number;
  /** Wall-clock ms of each change, rising. */
  readonly changedAtMs: readonly number[];
}

/** The truth of a changing web. */
export interface ChangeTruth {
  readonly originMs: number;
  readonly epochMs: number;
  readonly untilMs: number;
  readonly pages: readonly ChangeTruthPage[];
}

/** Every changing page's changes up to `untilMs`. */
export function changeTruth(model: WebModel, changes: PageChanges, port: number, untilMs: number): ChangeTruth {
  const pages: ChangeTruthPage[] = [];
  for (let g = 0; g < model.pageCount; g++) {
    const info = changes.info(g);
    if (info === null) continue;
    pages.push({
      page: g,
      url: model.url(g, port),
      meanIntervalMs: Math.round(info.meanIntervalMs),
      perEpoch: info.perEpoch,
      changedAtMs: changes.changeTimes(g, untilMs),
    });
  }
  return { originMs: changes.originMs, epochMs: changes.epochMs, untilMs, pages };
}

/** Writes `changes.tsv` into `dir`; returns its path. */
export function writeChangeTruth(dir: string, truth: ChangeTruth): string {
  const lines = [
    `# originMs=${truth.originMs} epochMs=${truth.epochMs} untilMs=${truth.untilMs}`,
    'page\turl\tmeanIntervalMs\tperEpoch\tchangedAtMs',
  ];
  for (const p of truth.pages)
    lines.push(`${p.page}\t${p.url}\t${p.meanIntervalMs}\t${p.perEpoch.toPrecision(6)}\t${p.changedAtMs.join(',')}`);
  const path = join(dir, CHANGES_FILE);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Reads a `changes.tsv`. */
export function readChangeTruth(dir: string): ChangeTruth {
  const lines = readFileSync(join(dir, CHANGES_FILE), 'utf8').split('\n');
  const head = /^# originMs=(\d+) epochMs=(\d+) untilMs=(\d+)$/.exec(lines[0] ?? '');
  if (head === null) throw new Error(`${CHANGES_FILE}: the first line must give originMs, epochMs and untilMs`);
  const pages: ChangeTruthPage[] = [];
  for (const line of lines.slice(2)) {
    if (line === '') continue;
    const [page, url, mean, perEpoch, times] = line.split('\t');
    pages.push({
      page: Number(page),
      url: url ?? '',
      meanIntervalMs: Number(mean),
      perEpoch: Number(perEpoch),
      changedAtMs: times === undefined || times === '' ? [] : times.split(',').map(Number),
    });
  }
  return { originMs: Number(head[1]), epochMs: Number(head[2]), untilMs: Number(head[3]), pages };
}
