import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import type { FetchOutcomeKind } from '../../../src/fetch/fetcher.js';
import {
  CRAWL_LOG_FILE,
  CRAWL_LOG_SHAPE,
  CrawlLog,
  CrawlOutcome,
  crawlOutcomeOf,
  readCrawlLog,
  type CrawlLogEntry,
  type CrawlLogInput,
} from '../../../src/store/crawl-log.js';
import { problemOf, simhashHex } from '../../../src/store/json-lines.js';
import { scratchDirs, killWhileRunning } from '../../helpers/scratch.js';

// The every-offset test repairs (truncates and fsyncs) a file per byte: cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-crawl-log-');
let dirs = 0;
function freshPath(base = root): string {
  const dir = join(base, `c${++dirs}`);
  mkdirSync(dir);
  return join(dir, CRAWL_LOG_FILE);
}

async function readAll(path: string): Promise<CrawlLogEntry[]> {
  const out: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(path)) out.push(e);
  return out;
}

const FULL: CrawlLogEntry = {
  ts: '2024-05-01T12:00:00.123Z',
  url: 'http://xn--bcher-kva.test/stra%C3%9Fe?q=1',
  status: 200,
  outcome: 'ok',
  bytes: 5120,
  contentType: 'text/html',
  durationMs: 12.5,
  ip: '127.0.0.2',
  discoveredFrom: 'http://a.test/',
  depth: 2,
  node: 'node-1',
  partition: 3,
  attempt: 2,
  warc: { file: 'node-1-20240501120000-00001.warc.gz', offset: 1234 },
  digest: 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ',
  isDuplicate: true,
  simhash: simhashHex(0xfedcba9876543210n),
  lang: 'de',
  reason: 'near-duplicate of "http://b.test/" ✓',
  category: 'SCIENCE',
  categoryProbability: 0.75,
  categoryReason: 'classifier',
  nearDuplicateOf: 'http://b.test/',
  nearDuplicateDistance: 3,
};

const MINIMAL: CrawlLogInput = {
  ts: '2024-05-01T12:00:01.000Z',
  url: 'http://nowhere.test/',
  status: 0,
  outcome: 'dns-error',
  durationMs: 0.25,
  discoveredFrom: null,
  depth: 0,
};

function entry(i: number): CrawlLogInput {
  return {
    ts: new Date(Date.UTC(2024, 4, 1) + i).toISOString(),
    url: `http://h${i % 7}.test/p/${i}`,
    status: 200,
    outcome: 'ok',
    durationMs: i,
    discoveredFrom: null,
    depth: i % 4,
  };
}

describe('CrawlLog', () => {
  it('round-trips every field, and fills the defaults of a minimal entry', async () => {
    const path = freshPath();
    const log = new CrawlLog({ path });
    assert.deepEqual(await log.start(), { isNew: true, keptBytes: 0, droppedBytes: 0 });
    log.append(FULL);
    log.append(MINIMAL);
    log.append({ ...FULL, partition: 'topic-sports', warc: null, outcome: 'robots-denied', status: 0, attempt: 0 });
    await log.flush();
    await log.close();
    const got = await readAll(path);
    assert.deepEqual(got, [
      FULL,
      {
        ...MINIMAL,
        bytes: 0,
        contentType: null,
        ip: null,
        node: null,
        partition: null,
        attempt: 1,
        warc: null,
        digest: null,
        category: null,
        categoryProbability: null,
        categoryReason: null,
        nearDuplicateOf: null,
        nearDuplicateDistance: null,
        isDuplicate: false,
        simhash: null,
        lang: null,
        reason: null,
      },
      { ...FULL, partition: 'topic-sports', warc: null, outcome: 'robots-denied', status: 0, attempt: 0 },
    ]);
    // The fields are written in the documented order, one entry per line.
    const lines = readFileSync(path, 'utf8').split('\n');
    assert.equal(lines.length, 4);
    assert.deepEqual(Object.keys(JSON.parse(lines[0] as string) as object), Object.keys(FULL));
    assert.equal(simhashHex(1n), '0000000000000001');
    assert.equal(simhashHex(-1n), 'ffffffffffffffff');
  });

  it('accepts every fetch outcome kind and the robots outcomes, and nothing else', async () => {
    const kinds: FetchOutcomeKind[] = [
      'ok',
      'not-modified',
      'redirect',
      'http-error',
      'dns-error',
      'address-denied',
      'connect-error',
      'timeout',
      'reset',
      'too-large',
      'too-slow',
      'unsupported-encoding',
      'protocol-error',
      'aborted',
    ];
    assert.deepEqual(kinds.map(crawlOutcomeOf), kinds);
    assert.deepEqual(new Set(Object.values(CrawlOutcome)), new Set([...kinds, 'robots-denied', 'robots-unavailable', 'over-budget']));
    const log = new CrawlLog({ path: freshPath() });
    await log.start();
    for (const outcome of Object.values(CrawlOutcome)) log.append({ ...MINIMAL, outcome });
    assert.throws(
      () => log.append({ ...MINIMAL, outcome: 'gone-fishing' as CrawlOutcome }),
      /field "outcome" is "gone-fishing", expected one of ok, /,
    );
    await log.close();
  });

  it('refuses an invalid entry with a RangeError naming the field, and writes nothing of it', async () => {
    const path = freshPath();
    const log = new CrawlLog({ path });
    await log.start();
    const bad: Array<[Partial<CrawlLogEntry>, RegExp]> = [
      [{ ts: '2024-05-01 12:00:00' }, /"ts"/],
      [{ ts: '2024-13-45T99:00:00Z' }, /"ts"/],
      [{ url: '' }, /"url"/],
      [{ status: 1000 }, /"status"/],
      [{ status: 200.5 }, /"status"/],
      [{ durationMs: Number.NaN }, /"durationMs" is null/],
      [{ durationMs: -1 }, /"durationMs"/],
      [{ bytes: -1 }, /"bytes"/],
      [{ depth: 1.5 }, /"depth"/],
      [{ attempt: -1 }, /"attempt"/],
      [{ attempt: 1.5 }, /"attempt"/],
      [{ partition: -1 }, /"partition"/],
      [{ simhash: 'FEDCBA9876543210' }, /"simhash"/],
      [{ warc: { file: 'x.warc.gz', offset: -5 } }, /"warc"/],
      [{ isDuplicate: 'no' as unknown as boolean }, /"isDuplicate"/],
    ];
    for (const [change, message] of bad) {
      assert.throws(
        () => log.append({ ...FULL, ...change }),
        (err: unknown) => err instanceof RangeError && message.test(err.message),
        JSON.stringify(change),
      );
    }
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), '');
  });

  it('keeps only complete entries when the log is torn at any byte offset, and appends after them', async () => {
    const source = freshPath();
    const log = new CrawlLog({ path: source });
    await log.start();
    const written = [FULL, entry(1), entry(2), entry(3)];
    for (const e of written) log.append(e);
    await log.close();
    const whole = readFileSync(source);
    const expected = await readAll(source);
    const ends: number[] = [];
    for (let at = whole.indexOf(0x0a); at >= 0; at = whole.indexOf(0x0a, at + 1)) ends.push(at + 1);
    for (let cut = 0; cut <= whole.length; cut++) {
      const path = freshPath(ramRoot);
      writeFileSync(path, whole.subarray(0, cut));
      const again = new CrawlLog({ path });
      const survivors = ends.filter((e) => e <= cut).length;
      assert.equal((await again.start()).droppedBytes, cut - (survivors === 0 ? 0 : (ends[survivors - 1] as number)), `cut at ${cut}`);
      again.append(entry(99));
      await again.close();
      const got = await readAll(path);
      assert.deepEqual(got.slice(0, -1), expected.slice(0, survivors), `cut at ${cut}`);
      assert.equal(got.at(-1)?.url, 'http://h1.test/p/99');
    }
  });

  it('reader: skips an unterminated last line, names file and line of a bad one, ignores unknown fields', async () => {
    const path = freshPath();
    const log = new CrawlLog({ path });
    await log.start();
    log.append(FULL);
    await log.close();
    appendFileSync(path, '{"ts":"2024-05-01T12:00:00.123Z","url":"http://torn');
    assert.deepEqual(await readAll(path), [FULL], 'a torn tail is not an entry');

    writeFileSync(path, `${JSON.stringify({ ...FULL, addedLater: [1, 2] })}\n`);
    assert.deepEqual(await readAll(path), [{ ...FULL, addedLater: [1, 2] }]);

    const withoutReason = Object.fromEntries(Object.entries(FULL).filter(([k]) => k !== 'reason'));
    for (const [line, message] of [
      [JSON.stringify({ ...FULL, status: '200' }), /:2: invalid crawl log entry: field "status" is "200", expected an HTTP status/],
      [JSON.stringify(withoutReason), /:2: invalid crawl log entry: field "reason" is missing/],
      ['[1,2,3]', /:2: invalid crawl log entry: not a JSON object/],
      ['{"ts": oops}', /:2: not valid JSON/],
    ] as const) {
      writeFileSync(path, `${JSON.stringify(FULL)}\n${line}\n`);
      await assert.rejects(
        readAll(path),
        (err: unknown) => err instanceof ShoalError && err.code === 'IO' && err.message.startsWith(path) && message.test(err.message),
      );
    }
  });

  it('reads a line written before the near-duplicate fields existed as not a near-duplicate; appending still needs them', async () => {
    const path = freshPath();
    const earlier = Object.fromEntries(Object.entries(FULL).filter(([k]) => k !== 'nearDuplicateOf' && k !== 'nearDuplicateDistance'));
    writeFileSync(path, `${JSON.stringify(earlier)}\n${JSON.stringify({ ...earlier, nearDuplicateDistance: -1 })}\n`);
    await assert.rejects(readAll(path), /:2: invalid crawl log entry: field "nearDuplicateDistance" is -1/);
    writeFileSync(path, `${JSON.stringify(earlier)}\n`);
    assert.deepEqual(await readAll(path), [{ ...FULL, nearDuplicateOf: null, nearDuplicateDistance: null }]);
    assert.equal(problemOf(earlier, CRAWL_LOG_SHAPE), 'field "nearDuplicateOf" is missing', 'what is written is checked in full');
  });

  it("repair keeps a well-formed line it cannot read (a later version's), so that nothing is lost", async () => {
    const path = freshPath();
    const later = JSON.stringify({ ...FULL, outcome: 'quic-error' });
    writeFileSync(path, `${JSON.stringify(FULL)}\n${later}\n{"torn":`);
    const log = new CrawlLog({ path });
    assert.equal((await log.start()).droppedBytes, '{"torn":'.length);
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify(FULL)}\n${later}\n`);
    await assert.rejects(readAll(path), /:2: invalid crawl log entry: field "outcome" is "quic-error"/);
  });

  it('after SIGKILL while logging, opens, repairs and reads back a prefix of the entries written', async () => {
    const path = freshPath();
    const moduleUrl = new URL('../../../src/store/crawl-log.js', import.meta.url).href;
    const child = `
      const [moduleUrl, path] = process.argv.slice(1);
      const { CrawlLog } = await import(moduleUrl);
      const log = new CrawlLog({ path, bufferBytes: 4096 });
      await log.start();
      // The same entries as entry(i) in the test.
      const entry = (i) => ({
        ts: new Date(Date.UTC(2024, 4, 1) + i).toISOString(), url: 'http://h' + (i % 7) + '.test/p/' + i, status: 200, outcome: 'ok',
        durationMs: i, discoveredFrom: null, depth: i % 4,
      });
      for (let i = 0; ; i++) {
        log.append(entry(i));
        if (i % 400 === 399) {
          await log.flush();
          process.stdout.write((i + 1) + '\\n');
        }
      }
    `;
    const { flushed } = await killWhileRunning(child, [moduleUrl, path], 2000);
    const log = new CrawlLog({ path });
    await log.start();
    await log.close();
    const got = await readAll(path);
    assert.ok(got.length >= flushed, `${got.length} entries survive, ${flushed} were flushed`);
    got.forEach((e, i) => assert.deepEqual(e, { ...e, ...entry(i) }, `entry ${i}`));
  });
});
