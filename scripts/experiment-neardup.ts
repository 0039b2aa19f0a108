/**
 * `npm run experiment:neardup` (node --import tsx scripts/experiment-neardup.ts [--quick]): how well
 * the crawl's near-duplicate marks (`dedup.near`, SPEC §2.10) find the test web's near-duplicates,
 * and regenerates docs/experiments/near-duplicates.md from what it measured. The document is never
 * edited by hand.
 *
 * One live crawl of a test web with near-duplicate pages and mirror hosts (`dedup.near.action:
 * archive` at the default distance), over loopback; its pages.jsonl is then measured against the
 * web's ground truth (`src/eval/near-duplicates.ts`: a mark is correct when both pages are of one
 * truth family; a positive is a page with an earlier page of its family in the crawl). The same
 * sequence of fingerprints is replayed through the index at other distances, which gives the
 * precision and recall each `maxDistance` would have had on this crawl, and the distances between
 * true copies and between unrelated pages are counted over every pair of analysed pages.
 *
 * Verdicts, each of which can fail: the replay at the default distance reproduces the crawl's own
 * marks exactly (the index decides from the order of pages.jsonl alone); precision at the default
 * distance is at least 0.99; recall at least 0.8; no two unrelated pages of the crawl are within the
 * default distance. Takes 1–3 minutes on a 2-core machine (`--quick`: a smaller crawl).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Crawl } from '../src/crawl/crawl.js';
import { DEFAULT_NEAR_DUPLICATE_DISTANCE } from '../src/dedup/near-duplicate-action.js';
import { hammingDistance } from '../src/dedup/simhash.js';
import { nearDuplicateQuality, truthFamilies, type MarkedPage, type NearDuplicateQuality } from '../src/eval/near-duplicates.js';
import { NearDuplicates } from '../src/node/stages/near-duplicates.js';
import { readPageMetadata, type PageMetadata } from '../src/store/page-metadata.js';
import { startTestWeb } from '../src/web/start.js';
import { exportTruth } from '../src/web/truth/export.js';
import { readTruth } from '../src/web/truth/read.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs', 'experiments', 'near-duplicates.md');
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' } } });
const isQuick = flags.quick === true;
const WEB = {
  seed: 23,
  hosts: isQuick ? 20 : 60,
  pages: isQuick ? 2000 : 6000,
  seeds: 6,
  server: { addressCount: 16 },
  duplicates: { nearDuplicateRate: 0.05, mirrorHostRate: 0.05 },
  traps: { hostRate: 0 },
  latency: { slowHostRate: 0 },
  robots: { crawlDelayRate: 0 },
};
const MAX_PAGES = isQuick ? 1200 : 4000;
const DISTANCES = [2, 3, 4, 6, 8, 10, 12, 16];
const started = performance.now();
const log = (line: string): void => {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};

interface Verdict {
  readonly text: string;
  readonly isTrue: boolean;
  readonly evidence: string;
}

/** The marks the index would make at distance `k` for the crawl's pages in their order. */
function replay(pages: readonly PageMetadata[], k: number): MarkedPage[] {
  const near = new NearDuplicates({ action: 'archive', maxDistance: k, blocks: null, maxFingerprints: 1_000_000 });
  return pages.map((p) => ({
    url: p.url,
    simhash: p.simhash,
    nearDuplicateOf: p.simhash === null ? null : (near.check(p.url, p.simhash)?.url ?? null),
  }));
}

const f3 = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-neardup-experiment-'));
  const web = await startTestWeb(WEB);
  try {
    log(`test web: ${WEB.hosts} hosts, ${WEB.pages} pages; exporting its truth`);
    await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
    const truth = await readTruth(join(dir, 'truth'));
    const family = truthFamilies(truth.dupOf);
    const familyOf = (url: string): number => {
      const g = truth.pageIdOf(url);
      return g < 0 ? -1 : (family[g] as number);
    };
    log(`crawling ${MAX_PAGES} pages`);
    const t0 = performance.now();
    await new Crawl({
      nodeId: 'n',
      seeds: { urls: [...web.seeds] },
      store: { outDir: join(dir, 'crawl') },
      network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 5, delayFactor: 1 },
      limits: { concurrency: 24, maxPages: MAX_PAGES },
      progressIntervalMs: 0,
      dedup: { near: { action: 'archive' } },
    }).run();
    const crawlSeconds = (performance.now() - t0) / 1000;
    const pages: PageMetadata[] = [];
    for await (const p of readPageMetadata(join(dir, 'crawl', 'pages.jsonl'))) pages.push(p);
    const live = nearDuplicateQuality(pages, familyOf);
    log(`crawl: ${pages.length} pages in ${crawlSeconds.toFixed(0)} s; precision ${f3(live.precision)}, recall ${f3(live.recall)}`);

    const replays = new Map<number, { marks: MarkedPage[]; quality: NearDuplicateQuality }>();
    for (const k of DISTANCES) {
      const marks = replay(pages, k);
      replays.set(k, { marks, quality: nearDuplicateQuality(marks, familyOf) });
    }
    const atDefault = replays.get(DEFAULT_NEAR_DUPLICATE_DISTANCE) ?? { marks: replay(pages, DEFAULT_NEAR_DUPLICATE_DISTANCE) };
    const mismatches = pages.filter((p, i) => p.nearDuplicateOf !== (atDefault.marks[i] as MarkedPage).nearDuplicateOf).length;

    // Distances over every pair of analysed pages: true copies (one family) and unrelated pages.
    const analysed = pages.filter((p) => p.simhash !== null && p.simhash !== '0000000000000000');
    const fingerprints = analysed.map((p) => BigInt(`0x${p.simhash as string}`));
    const families = analysed.map((p) => familyOf(p.url));
    const copyHistogram = new Array<number>(65).fill(0);
    let unrelatedMin = 64;
    let unrelatedPairs = 0;
    let unrelatedWithin16 = 0;
    for (let i = 0; i < analysed.length; i++) {
      for (let j = i + 1; j < analysed.length; j++) {
        const d = hammingDistance(fingerprints[i] as bigint, fingerprints[j] as bigint);
        const isCopy = (families[i] as number) >= 0 && families[i] === families[j];
        if (isCopy) copyHistogram[d] = (copyHistogram[d] as number) + 1;
        else {
          unrelatedPairs++;
          if (d < unrelatedMin) unrelatedMin = d;
          if (d <= 16) unrelatedWithin16++;
        }
      }
    }
    const copyPairs = copyHistogram.reduce((a, b) => a + b, 0);
    const copyMax = copyHistogram.reduce((m, c, d) => (c > 0 ? d : m), 0);

    const q = live;
    const verdicts: Verdict[] = [
      {
        text: `replaying the crawl's pages through the index at k = ${DEFAULT_NEAR_DUPLICATE_DISTANCE} gives the crawl's own marks`,
        isTrue: mismatches === 0,
        evidence: `${mismatches} of ${pages.length} pages differ`,
      },
      {
        text: 'precision at the default distance is at least 0.99',
        isTrue: q.precision >= 0.99,
        evidence: `${q.correctMarks} of ${q.marks} marks correct: ${f3(q.precision)}`,
      },
      {
        text: 'recall at the default distance is at least 0.8',
        isTrue: q.recall >= 0.8,
        evidence: `${q.found} of ${q.positives} positives marked: ${f3(q.recall)}`,
      },
      {
        text: `no two unrelated pages of the crawl are within ${DEFAULT_NEAR_DUPLICATE_DISTANCE} bits`,
        isTrue: unrelatedMin > DEFAULT_NEAR_DUPLICATE_DISTANCE,
        evidence: `closest unrelated pair ${unrelatedMin} bits apart over ${unrelatedPairs.toLocaleString('en')} pairs`,
      },
    ];

    const lines: string[] = [];
    lines.push('# Near-duplicates in the crawl: precision and recall');
    lines.push('');
    lines.push(
      '<!-- Generated by `npm run experiment:neardup` (scripts/experiment-neardup.ts); do not edit by hand. -->',
      '',
      `Generated ${new Date().toISOString().slice(0, 10)} by \`npm run experiment:neardup${isQuick ? ' -- --quick' : ''}\`, Node ${process.versions.node}, ${availableParallelism()} cores, ` +
        `in ${((performance.now() - started) / 1000).toFixed(0)} s. What the options do: [near-duplicates.md](../near-duplicates.md).`,
      '',
      `One crawl of a test web of ${WEB.hosts} hosts and ${WEB.pages.toLocaleString('en')} pages (seed ${WEB.seed}, ` +
        `\`duplicates.nearDuplicateRate\` ${WEB.duplicates.nearDuplicateRate}: copies of a page of the same host with 5 body words changed; ` +
        `\`duplicates.mirrorHostRate\` ${WEB.duplicates.mirrorHostRate}: hosts that copy another byte for byte), ` +
        `${MAX_PAGES.toLocaleString('en')} pages at most, \`dedup.near.action: archive\`, default \`maxDistance\` ${DEFAULT_NEAR_DUPLICATE_DISTANCE}: ` +
        `${pages.length.toLocaleString('en')} lines in pages.jsonl, ${q.pages.toLocaleString('en')} analysed pages (exact duplicates are not analysed), in ${crawlSeconds.toFixed(0)} s.`,
      '',
      "Truth (`src/eval/near-duplicates.ts`): pages are grouped into families by the truth's `dup_of` (a mirror page to the page it copies, a near-duplicate to its original, followed to the end). " +
        'A mark is correct when it names a different page of the same family; a positive is an analysed page with an earlier analysed page of its family in the crawl.',
      '',
      '## Verdicts',
      '',
      '| statement | verdict | evidence |',
      '|---|---|---|',
      ...verdicts.map((v) => `| ${v.text} | ${v.isTrue ? 'holds' : 'does not hold'} | ${v.evidence} |`),
      '',
      '## Precision and recall by distance',
      '',
      `The crawl's pages replayed through the index in the order of pages.jsonl at each \`maxDistance\` (the row of the default, ${DEFAULT_NEAR_DUPLICATE_DISTANCE}, is the live crawl's own result, see the first verdict). ` +
        'Expected false matches per lookup against a million kept pages, for unrelated fingerprints (distance Binomial(64, ½)), are given for scale.',
      '',
      '| maxDistance | marks | correct | positives | found | precision | recall | expected false matches per lookup at 1M pages |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...DISTANCES.map((k) => {
        const r = (replays.get(k) as { quality: NearDuplicateQuality }).quality;
        return `| ${k}${k === DEFAULT_NEAR_DUPLICATE_DISTANCE ? ' (default)' : ''} | ${r.marks} | ${r.correctMarks} | ${r.positives} | ${r.found} | ${f3(r.precision)} | ${f3(r.recall)} | ${(1e6 * binomialTail(k)).toPrecision(2)} |`;
      }),
      '',
      '## Distances between pages',
      '',
      `Over all ${((analysed.length * (analysed.length - 1)) / 2).toLocaleString('en')} pairs of analysed pages with words: ${copyPairs.toLocaleString('en')} pairs of one family ` +
        `(at most ${copyMax} bits apart), ${unrelatedPairs.toLocaleString('en')} unrelated pairs (the closest ${unrelatedMin} bits apart, ${unrelatedWithin16} within 16).`,
      '',
      '| bits apart | pairs of one family |',
      '|---:|---:|',
      ...copyHistogram.flatMap((c, d) => (c === 0 ? [] : [`| ${d} | ${c} |`])),
      '',
    );
    if (q.wrong.length > 0) {
      lines.push('## Wrong marks of the crawl', '', ...q.wrong.map((w) => `- ${w.url} marked as a copy of ${w.markedOf}`), '');
    }
    writeFileSync(DOC, lines.join('\n'));
    log(`wrote ${DOC}`);
    for (const v of verdicts) log(`${v.isTrue ? 'holds' : 'DOES NOT HOLD'}: ${v.text} (${v.evidence})`);
  } finally {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** P(Binomial(64, ½) ≤ k). */
function binomialTail(k: number): number {
  let c = 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += c;
    c = (c * (64 - i)) / (i + 1);
  }
  return sum / 2 ** 64;
}

main().catch((err: unknown) => {
  process.stderr.write(`experiment:neardup: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
