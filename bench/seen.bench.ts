/**
 * `npm run bench:seen`: how fast the URL-seen test answers (SPEC §2 item 4), in memory and on disk.
 * Prints figures, asserts none. Targets: >= 1M/s lookups answered by the cache, >= 100k/s lookups
 * in a disk-resident set far larger than the cache.
 *
 * Scenarios, in the order of the table:
 *  1. `MemorySeenSet`: inserts of new fingerprints, then lookups (half present, half absent);
 *  2. `DiskSeenSet`, a working set that fits its cache: `addBatch` of fingerprints all seen before;
 *  3. the same store holding millions of fingerprints, 20x its cache: random lookups (`hasBatch`,
 *     half present, half absent), and `addBatch` of batches that are half seen, half new;
 *  4. inserts of new fingerprints in batches: building the store, and batches at full size
 *     followed by `flush()` (durable inserts);
 *  5. peak RSS, JS heap and the store's size on disk.
 * Fingerprints are seeded hashes: the same on every run. The store lives in a temporary directory,
 * removed at the end. Rates are medians over repetitions.
 *
 * Flags: `--quick` (smaller sets, fewer repetitions: for trying changes, under ~20 s).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib/report.js';
import { DiskSeenSet } from '../src/seen/disk-seen-set.js';
import { MemorySeenSet } from '../src/seen/memory-seen-set.js';
import { WORD_OFFSET, fingerprintWords } from '../src/seen/seen-set.js';
import { hash32 } from '../src/core/prng.js';

/** Sizes and repetitions of one bench run. */
interface Plan {
  readonly reps: number;
  /** Fingerprints inserted into the memory set per repetition. */
  readonly memoryCount: number;
  /** Fingerprints in the disk-resident store. */
  readonly diskCount: number;
  readonly cacheEntries: number;
  /** Working set of scenario 2: fits the cache. */
  readonly workingSet: number;
  readonly batch: number;
  /** Lookups or inserts per repetition, in scenarios 2-4. */
  readonly opsPerRep: number;
}

const FULL: Plan = {
  reps: 5,
  memoryCount: 5_000_000,
  diskCount: 5_000_000,
  cacheEntries: 1 << 18,
  workingSet: 100_000,
  batch: 10_000,
  opsPerRep: 200_000,
};
const QUICK: Plan = {
  reps: 3,
  memoryCount: 1_000_000,
  diskCount: 1_000_000,
  cacheEntries: 1 << 16,
  workingSet: 25_000,
  batch: 10_000,
  opsPerRep: 100_000,
};
const MB = 1e6;

const LEGEND = [
  'ops = fingerprints looked up or inserted; runs = ops/s of each repetition, median shown. Cache hits: share of the fingerprints the',
  'fingerprint cache answered. disk-resident = outside the cache and the in-memory buffer, read from the sorted run with pread: when the',
  'OS page cache holds the file (as on a machine with RAM to spare) no physical read happens; a cold store on a real disk answers slower. 4 "then flush" includes',
  'the fsync that makes the inserts durable; the build figure per segment does not (its final flush is in the note).',
];

/** Streams of fingerprints, so that "absent" ones are never inserted by another scenario. */
const Stream = { disk: 1, absent: 2, newcomers: 3, memory: 4, picks: 5 } as const;

/** One line of the table. */
interface Row {
  readonly id: string;
  readonly what: string;
  /** Fingerprints in the set when measured (at the start, for inserts). */
  readonly setSize: number;
  readonly opsPerRun: number;
  /** Operations per second of each repetition, and their median. */
  readonly runs: readonly number[];
  readonly opsPerSec: number;
  readonly note: string;
}

/** Fingerprints `start .. start + n - 1` of a stream. */
function fresh(stream: number, start: number, n: number): BigUint64Array {
  const out = new BigUint64Array(n);
  const w = fingerprintWords(out);
  for (let i = 0; i < n; i++) {
    w[2 * i + WORD_OFFSET.hi] = hash32(stream, start + i, 1);
    w[2 * i + WORD_OFFSET.lo] = hash32(stream, start + i, 2);
  }
  return out;
}

/**
 * `n` fingerprints: with probability `absentShare` a fresh one of `absentStream` (from
 * `absentStart`), otherwise one picked at random from `from`.
 */
function mixed(
  from: BigUint64Array,
  n: number,
  seed: number,
  absentShare: number,
  absentStream: number,
  absentStart: number,
): BigUint64Array {
  const out = new BigUint64Array(n);
  const absent = fresh(absentStream, absentStart, n);
  for (let i = 0; i < n; i++) {
    const isAbsent = hash32(Stream.picks, seed, i, 1) / 2 ** 32 < absentShare;
    out[i] = isAbsent ? absent[i]! : from[hash32(Stream.picks, seed, i, 2) % from.length]!;
  }
  return out;
}

/** Runs `body` once per repetition and folds the timings into a row. */
async function measure(
  plan: Plan,
  id: string,
  what: string,
  setSize: number,
  opsPerRun: number,
  body: (rep: number) => unknown,
  note = '',
): Promise<Row> {
  const runs: number[] = [];
  for (let rep = 0; rep < plan.reps; rep++) {
    const t0 = performance.now();
    await body(rep);
    runs.push(opsPerRun / ((performance.now() - t0) / 1000));
  }
  const row: Row = { id, what, setSize, opsPerRun, runs, opsPerSec: median(runs), note };
  console.log(`${id} ${what}: ${fmt(row.opsPerSec)}/s (runs ${runs.map((r) => fmt(r)).join(', ')})${note === '' ? '' : `; ${note}`}`);
  return row;
}

const fmt = (x: number): string => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(0)}k` : x.toFixed(0));

async function inBatches(arr: BigUint64Array, batch: number, fn: (b: BigUint64Array) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < arr.length; i += batch) await fn(arr.subarray(i, i + batch));
}

/** Bytes the files of `dir` take on disk (allocated blocks), and their apparent size. */
async function diskUse(dir: string): Promise<{ allocated: number; apparent: number }> {
  let allocated = 0;
  let apparent = 0;
  for (const name of await readdir(dir)) {
    const s = await stat(join(dir, name));
    allocated += s.blocks * 512;
    apparent += s.size;
  }
  return { allocated, apparent };
}

const rssMb = (): number => process.memoryUsage().rss / MB;

/**
 * RSS split into private memory (heap, malloc) and pages of mapped files (the store, the node
 * binary), from /proc/self/status: the private part is what the seen set must keep bounded.
 * NaN where /proc is missing.
 */
function rssSplitMb(): { privateMb: number; fileMb: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { privateMb: (kb('RssAnon') * 1024) / MB, fileMb: (kb('RssFile') * 1024) / MB };
  } catch {
    return { privateMb: Number.NaN, fileMb: Number.NaN };
  }
}
const peakRssMb = (): number => (process.resourceUsage().maxRSS * 1024) / MB;
const hitPct = (hits: number, total: number): string => `${((100 * hits) / Math.max(1, total)).toFixed(1)}% cache hits`;

/** Scenarios 2-4 on one store; returns its rows and memory/disk figures. */
async function diskScenarios(plan: Plan, dir: string): Promise<{ rows: Row[]; figures: Record<string, number> }> {
  const rows: Row[] = [];
  // A buffer the size of the cache: after the build, all but the last quarter-million fingerprints are in the sorted run.
  const set = new DiskSeenSet({ dir, cacheEntries: plan.cacheEntries, bufferEntries: plan.cacheEntries });
  await set.start();
  try {
    // 4a. Build: every fingerprint new, in batches; the last flush counts.
    const all = fresh(Stream.disk, 0, plan.diskCount);
    const t0 = performance.now();
    const segmentRates: number[] = [];
    for (let s = 0; s < plan.reps; s++) {
      const t = performance.now();
      const part = all.subarray(Math.floor((s * plan.diskCount) / plan.reps), Math.floor(((s + 1) * plan.diskCount) / plan.reps));
      await inBatches(part, plan.batch, (b) => set.addBatch(b));
      segmentRates.push(part.length / ((performance.now() - t) / 1000));
    }
    await set.settled();
    await set.flush();
    const buildRate = plan.diskCount / ((performance.now() - t0) / 1000);
    rows.push({
      id: '4',
      what: `build 0 -> ${fmt(plan.diskCount)}, addBatch of ${fmt(plan.batch)} new`,
      setSize: 0,
      opsPerRun: Math.floor(plan.diskCount / plan.reps),
      runs: segmentRates,
      opsPerSec: median(segmentRates),
      note: `whole build with its final flush: ${fmt(buildRate)}/s`,
    });
    console.log(
      `4 build: ${fmt(median(segmentRates))}/s median of ${plan.reps} segments (${segmentRates.map((r) => fmt(r)).join(', ')}), ${fmt(buildRate)}/s with flush`,
    );
    const rssAfterBuild = rssMb();
    const splitAfterBuild = rssSplitMb();

    // 2. A working set that fits the cache: one warming pass, then lookups of it in random order.
    const working = all.subarray(0, plan.workingSet);
    await inBatches(working, plan.batch, (b) => set.addBatch(b));
    let before = set.stats();
    const cachedBatches = Array.from({ length: plan.reps }, (_, rep) => mixed(working, plan.opsPerRep * 5, 100 + rep, 0, Stream.absent, 0));
    const cached = await measure(
      plan,
      '2',
      `disk cached: addBatch, all seen (working set ${fmt(plan.workingSet)})`,
      set.size,
      plan.opsPerRep * 5,
      (rep) => inBatches(cachedBatches[rep]!, plan.batch, (b) => set.addBatch(b)),
    );
    let after = set.stats();
    rows.push({ ...cached, note: hitPct(after.cacheHits - before.cacheHits, plan.reps * plan.opsPerRep * 5) });

    // 3. Disk-resident: random picks among all, half absent; the cache holds a few percent.
    const lookupBatches = Array.from({ length: plan.reps }, (_, rep) =>
      mixed(all, plan.opsPerRep, 200 + rep, 0.5, Stream.absent, rep * plan.opsPerRep),
    );
    before = set.stats();
    const lookups = await measure(
      plan,
      '3',
      `disk-resident: hasBatch of ${fmt(plan.batch)}, 50% present`,
      set.size,
      plan.opsPerRep,
      (rep) => inBatches(lookupBatches[rep]!, plan.batch, (b) => set.hasBatch(b)),
    );
    after = set.stats();
    rows.push({ ...lookups, note: hitPct(after.cacheHits - before.cacheHits, plan.reps * plan.opsPerRep) });

    const mixedBatches = Array.from({ length: plan.reps }, (_, rep) =>
      mixed(all, plan.opsPerRep, 300 + rep, 0.5, Stream.newcomers, rep * plan.opsPerRep),
    );
    before = set.stats();
    const sizeBefore = set.size;
    const mixedRow = await measure(plan, '3', `disk-resident: addBatch of ${fmt(plan.batch)}, 50% new`, sizeBefore, plan.opsPerRep, (rep) =>
      inBatches(mixedBatches[rep]!, plan.batch, (b) => set.addBatch(b)),
    );
    after = set.stats();
    rows.push({
      ...mixedRow,
      note: `${hitPct(after.cacheHits - before.cacheHits, plan.reps * plan.opsPerRep)}, ${fmt(set.size - sizeBefore)} inserted`,
    });

    // 4b. New fingerprints into the full store, each repetition made durable by flush().
    const newcomers = fresh(Stream.newcomers, 1e9, plan.reps * plan.opsPerRep);
    rows.push(
      await measure(plan, '4', `disk inserts: addBatch of ${fmt(plan.batch)} new, then flush`, set.size, plan.opsPerRep, async (rep) => {
        await inBatches(newcomers.subarray(rep * plan.opsPerRep, (rep + 1) * plan.opsPerRep), plan.batch, (b) => set.addBatch(b));
        await set.flush();
      }),
    );
    const final = set.stats();
    const finalSize = set.size;
    const splitAfterDisk = rssSplitMb();
    await set.close();
    const disk = await diskUse(dir);
    return {
      rows,
      figures: {
        storeFingerprints: finalSize,
        cacheEntries: plan.cacheEntries,
        cacheMb: final.cacheBytes / MB,
        rssAfterBuildMb: rssAfterBuild,
        privateAfterBuildMb: splitAfterBuild.privateMb,
        mappedAfterBuildMb: splitAfterBuild.fileMb,
        privateAfterDiskMb: splitAfterDisk.privateMb,
        mappedAfterDiskMb: splitAfterDisk.fileMb,
        rssAfterDiskMb: rssMb(),
        diskAllocatedMb: disk.allocated / MB,
        diskApparentMb: disk.apparent / MB,
        diskBytesPerFingerprint: disk.allocated / finalSize,
        heapAfterDiskMb: process.memoryUsage().heapUsed / MB,
      },
    };
  } finally {
    await set.close();
  }
}

/** Scenario 1: the memory set, a fresh one per repetition. */
async function memoryScenarios(plan: Plan): Promise<Row[]> {
  const n = plan.memoryCount;
  const input = fresh(Stream.memory, 0, n);
  let set = new MemorySeenSet();
  const inserts = await measure(plan, '1', `memory: addBatch of ${fmt(plan.batch)} new (growing from empty)`, 0, n, () => {
    set = new MemorySeenSet();
    for (let i = 0; i < n; i += plan.batch) set.addBatchSync(input.subarray(i, i + plan.batch));
  });
  const probe = mixed(input, n, 400, 0.5, Stream.absent, 0);
  const pw = fingerprintWords(probe);
  let found = 0;
  const lookups = await measure(plan, '1', 'memory: lookups (hasWords), 50% present', n, n, () => {
    found = 0;
    for (let i = 0; i < n; i++) if (set.hasWords(pw[2 * i + WORD_OFFSET.hi]!, pw[2 * i + WORD_OFFSET.lo]!)) found++;
  });
  const seen = await measure(plan, '1', `memory: addBatch of ${fmt(plan.batch)}, all seen`, n, n, () => {
    for (let i = 0; i < n; i += plan.batch) set.addBatchSync(input.subarray(i, i + plan.batch));
  });
  const bytes = set.byteLength;
  await set.close();
  return [
    { ...inserts, note: `table ${(bytes / MB).toFixed(0)} MB for ${fmt(n)} (${(bytes / n).toFixed(1)} B each)` },
    { ...lookups, note: `${found} of ${n} found` },
    seen,
  ];
}

function table(rows: readonly Row[]): string {
  const header = ['#', 'operation', 'set size', 'ops/run', 'median ops/s', 'runs (ops/s)', 'note'];
  const cells = rows.map((r) => [
    r.id,
    r.what,
    fmt(r.setSize),
    fmt(r.opsPerRun),
    fmt(r.opsPerSec),
    r.runs.map((x) => fmt(x)).join(' '),
    r.note,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string =>
    c
      .map((x, i) => (i === 1 || i === 6 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

async function main(plan: Plan, isQuick: boolean): Promise<void> {
  const t0 = performance.now();
  const load0 = loadavg()[0];
  console.log(
    `seen bench${isQuick ? ' (quick)' : ''}: ${plan.reps} repetitions, batches of ${fmt(plan.batch)}, store of ${fmt(plan.diskCount)} ` +
      `with a cache of ${fmt(plan.cacheEntries)} entries; rates are medians over repetitions`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'shoal-seen-bench-'));
  let disk: Awaited<ReturnType<typeof diskScenarios>>;
  try {
    // The disk scenarios run first, so RSS after them does not include the memory set's table.
    disk = await diskScenarios(plan, join(dir, 'seen'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const memory = await memoryScenarios(plan);
  const rows = [...memory, ...disk.rows.filter((r) => r.id !== '4'), ...disk.rows.filter((r) => r.id === '4')];
  const f = disk.figures;
  const memoryFigures = { ...f, peakRssMb: peakRssMb(), rssEndMb: rssMb(), heapEndMb: process.memoryUsage().heapUsed / MB };
  console.log(`\n${table(rows)}\n`);
  console.log(`${LEGEND.join('\n')}\n`);
  const mb = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(0));
  console.log(
    `5 memory: peak RSS ${mb(memoryFigures.peakRssMb)} MB (whole run, memory set included). With the store of ` +
      `${fmt(plan.diskCount)}: RSS ${mb(f.rssAfterBuildMb)} MB after building it = ${mb(f.privateAfterBuildMb)} MB private + ` +
      `${mb(f.mappedAfterBuildMb)} MB mapped file pages; after scenarios 2-4 ${mb(f.privateAfterDiskMb)} MB private + ` +
      `${mb(f.mappedAfterDiskMb)} MB mapped (JS heap ${mb(f.heapAfterDiskMb)} MB, cache ${f.cacheMb!.toFixed(1)} MB).`,
  );
  console.log(
    `5 disk: store of ${fmt(f.storeFingerprints!)} fingerprints: ${mb(f.diskAllocatedMb)} MB allocated on disk ` +
      `(${f.diskBytesPerFingerprint!.toFixed(1)} B each; file size ${mb(f.diskApparentMb)} MB).`,
  );
  console.log(
    "Private memory holds the cache, the buffer of fingerprints not yet merged, node itself and the bench's own fingerprint arrays " +
      `(${((plan.diskCount * 8 * 2) / MB).toFixed(0)} MB). The store is read with pread, not mapped: its pages are in the OS page cache, not in RSS.`,
  );
  const machine = { cpus: cpus().length, loadAvg1mStart: load0, loadAvg1mEnd: loadavg()[0] };
  console.log(
    `machine: ${machine.cpus} CPUs, 1-min load average ${machine.loadAvg1mStart?.toFixed(2)} at start, ${machine.loadAvg1mEnd?.toFixed(2)} at end`,
  );
  const totalSeconds = (performance.now() - t0) / 1000;
  console.log(`BENCH_SEEN_JSON ${JSON.stringify({ plan, isQuick, rows, memory: memoryFigures, machine, totalSeconds })}`);
  console.log(`total ${totalSeconds.toFixed(0)} s`);
}

const args = parseArgs({ options: { quick: { type: 'boolean', default: false } }, allowPositionals: false });
await main(args.values.quick ? QUICK : FULL, args.values.quick);
