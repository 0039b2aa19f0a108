/**
 * The first load of a topic model in a fresh process, as a crawl's node or analysis worker pays it
 * (cold code, an empty heap): `node --expose-gc --import tsx bench/lib/model-load-child.ts FILE`
 * prints one JSON line of {@link FirstLoad}. Loaded the way `loadTopicModel()` does (read, decode,
 * build the classifier), each step timed; memory is read after a full GC before and after, with the
 * classifier still held.
 */
import { readFileSync } from 'node:fs';
import { decodeModelFile } from '../../src/classify/model-file.js';
import { NaiveBayesClassifier } from '../../src/classify/naive-bayes.js';

/** What the child prints. */
export interface FirstLoad {
  readonly readMs: number;
  readonly decodeMs: number;
  readonly buildMs: number;
  readonly totalMs: number;
  readonly heapUsedGrowthBytes: number;
  /** ArrayBuffers and other memory V8 does not hold in its heap. */
  readonly externalGrowthBytes: number;
  readonly rssGrowthBytes: number;
}

function main(): void {
  const path = process.argv[2];
  const gc = (globalThis as { gc?: () => void }).gc;
  if (path === undefined || gc === undefined) throw new Error('usage: node --expose-gc --import tsx model-load-child.ts MODEL_FILE');
  gc();
  const m0 = process.memoryUsage();
  const t0 = performance.now();
  const bytes = readFileSync(path);
  const t1 = performance.now();
  const file = decodeModelFile(bytes);
  const t2 = performance.now();
  const classifier = new NaiveBayesClassifier(file.model);
  const t3 = performance.now();
  gc();
  const m1 = process.memoryUsage();
  const out: FirstLoad = {
    readMs: t1 - t0,
    decodeMs: t2 - t1,
    buildMs: t3 - t2,
    totalMs: t3 - t0,
    heapUsedGrowthBytes: m1.heapUsed - m0.heapUsed,
    externalGrowthBytes: m1.external - m0.external,
    rssGrowthBytes: m1.rss - m0.rss,
  };
  // The classifier must outlive the second reading, or the GC takes it back before memory is read.
  if (classifier.categories.length === 0) throw new Error('empty model');
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main();
