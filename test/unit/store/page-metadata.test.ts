import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { payloadDigest, textDigest } from '../../../src/dedup/content-digest.js';
import { simhash } from '../../../src/dedup/simhash.js';
import { simhashHex } from '../../../src/store/json-lines.js';
import { LinkGraphWriter } from '../../../src/store/link-graph.js';
import { readLinkGraph } from '../../../src/store/link-graph-reader.js';
import { readLines } from '../../../src/store/read-lines.js';
import {
  PAGE_METADATA_FILE,
  PageMetadataLog,
  readPageMetadata,
  type PageMetadata,
  type PageMetadataInput,
} from '../../../src/store/page-metadata.js';
import { scratchDirs } from '../../helpers/scratch.js';

// The every-offset test repairs (truncates and fsyncs) a file per byte: cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-pages-');
let dirs = 0;
function freshDir(base = root): string {
  const dir = join(base, `p${++dirs}`);
  mkdirSync(dir);
  return dir;
}

async function readAll(path: string): Promise<PageMetadata[]> {
  const out: PageMetadata[] = [];
  for await (const p of readPageMetadata(path)) out.push(p);
  return out;
}

const TEXT = 'Die Straße am Fluss — ein Beispiel.';
function page(url: string, title: string | null = 'Bücher & mehr'): PageMetadataInput {
  return {
    ts: '2024-05-01T12:00:00.000Z',
    url,
    payloadDigest: payloadDigest(Buffer.from(`<p>${TEXT}</p>`)),
    textDigest: textDigest(TEXT),
    simhash: simhashHex(simhash(TEXT)),
    lang: 'de',
    title,
    linkCounts: { total: 12, unique: 10, nofollow: 1, sameHost: 7 },
    isNoindex: false,
    isNofollow: true,
    canonical: `${url}#canonical`,
  };
}

describe('PageMetadataLog', () => {
  it("round-trips every field; urlId is the page's id in the link graph", async () => {
    const dir = freshDir();
    const graph = new LinkGraphWriter({ dir: join(dir, 'links') });
    await graph.start();
    graph.addLink('http://a.test/', 'http://b.test/', 'b');
    const path = join(dir, PAGE_METADATA_FILE);
    const log = new PageMetadataLog({ path, linkGraph: graph });
    await log.start();
    assert.equal(log.append(page('http://b.test/')), 1);
    assert.equal(
      log.append({
        ...page('http://c.test/', null),
        category: 'sports',
        categoryProbability: 0.5,
        categoryReason: 'classifier',
        geo: 'Austin, TX',
        nearDuplicateOf: 'http://b.test/',
        nearDuplicateDistance: 4,
      }),
      2,
      'a new URL gets the next id',
    );
    await log.close();
    await graph.close();

    const got = await readAll(path);
    assert.deepEqual(got, [
      {
        ...page('http://b.test/'),
        urlId: 1,
        category: null,
        categoryProbability: null,
        categoryReason: null,
        geo: null,
        nearDuplicateOf: null,
        nearDuplicateDistance: null,
      },
      {
        ...page('http://c.test/', null),
        urlId: 2,
        category: 'sports',
        categoryProbability: 0.5,
        categoryReason: 'classifier',
        geo: 'Austin, TX',
        nearDuplicateOf: 'http://b.test/',
        nearDuplicateDistance: 4,
      },
    ]);
    assert.match(got[0]?.simhash ?? '', /^[0-9a-f]{16}$/);
    const keys = Object.keys(JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string) as object);
    assert.deepEqual(keys, [
      'ts',
      'urlId',
      'url',
      'payloadDigest',
      'textDigest',
      'simhash',
      'lang',
      'title',
      'category',
      'categoryProbability',
      'categoryReason',
      'geo',
      'linkCounts',
      'isNoindex',
      'isNofollow',
      'canonical',
      'nearDuplicateOf',
      'nearDuplicateDistance',
    ]);
    const g = await readLinkGraph(join(dir, 'links'));
    assert.deepEqual(
      got.map((p) => g.urls[p.urlId as number]),
      ['http://b.test/', 'http://c.test/'],
    );
    g.close();
  });

  it('without a link graph, urlId is null', async () => {
    const path = join(freshDir(), PAGE_METADATA_FILE);
    const log = new PageMetadataLog({ path });
    await log.start();
    assert.equal(log.append(page('http://a.test/')), null);
    await log.close();
    assert.equal((await readAll(path))[0]?.urlId, null);
  });

  it('refuses an invalid page with a RangeError, before its URL gets an id', async () => {
    const dir = freshDir();
    const graph = new LinkGraphWriter({ dir: join(dir, 'links') });
    await graph.start();
    const log = new PageMetadataLog({ path: join(dir, PAGE_METADATA_FILE), linkGraph: graph });
    await log.start();
    assert.throws(
      () => log.append({ ...page('http://a.test/'), linkCounts: { total: 1, unique: -1, nofollow: 0, sameHost: 0 } }),
      /field "linkCounts"/,
    );
    assert.throws(() => log.append({ ...page('http://a.test/'), simhash: 'xyz' }), /field "simhash"/);
    assert.throws(() => log.append({ ...page('http://a.test/'), canonical: '' }), /field "canonical"/);
    assert.equal(graph.urlCount, 0);
    await log.close();
    await graph.close();
  });

  it('keeps only complete lines when torn at any byte offset', async () => {
    const source = join(freshDir(), PAGE_METADATA_FILE);
    const log = new PageMetadataLog({ path: source });
    await log.start();
    for (const url of ['http://a.test/', 'http://b.test/ü', 'http://c.test/']) log.append(page(url));
    await log.close();
    const whole = readFileSync(source);
    const expected = await readAll(source);
    for (let cut = 0; cut <= whole.length; cut++) {
      const path = join(freshDir(ramRoot), PAGE_METADATA_FILE);
      writeFileSync(path, whole.subarray(0, cut));
      const again = new PageMetadataLog({ path });
      await again.start();
      await again.close();
      const survivors = whole.subarray(0, cut).toString('latin1').split('\n').length - 1;
      assert.deepEqual(await readAll(path), expected.slice(0, survivors), `cut at ${cut}`);
      assert.equal(readFileSync(path).length, whole.subarray(0, cut).lastIndexOf(0x0a) + 1, `cut at ${cut}`);
    }
  });

  it('a page line never reaches the file before the dictionary line of its urlId', async () => {
    const dir = freshDir();
    const graph = new LinkGraphWriter({ dir: join(dir, 'links'), bufferBytes: 512 });
    await graph.start();
    const path = join(dir, PAGE_METADATA_FILE);
    const log = new PageMetadataLog({ path, linkGraph: graph, bufferBytes: 256 });
    await log.start();
    for (let i = 0; i < 300; i++) {
      log.append(page(`http://h${i}.test/`));
      let urlLines = 0;
      for await (const line of readLines(join(dir, 'links', 'urls.tsv'))) if (line.lineNumber > 1) urlLines++; // past the header
      let maxId = -1;
      for await (const line of readLines(path)) maxId = Math.max(maxId, (JSON.parse(line.text) as PageMetadata).urlId as number);
      assert.ok(maxId < urlLines, `after page ${i}: a page names id ${maxId}, the dictionary on disk has ${urlLines} URLs`);
    }
    await log.close();
    await graph.close();
  });

  it('the reader names the file and line of a damaged entry', async () => {
    const path = join(freshDir(), PAGE_METADATA_FILE);
    writeFileSync(
      path,
      `${JSON.stringify({ ...page('http://a.test/'), urlId: null, category: null, categoryProbability: null, categoryReason: null, geo: null, nearDuplicateOf: null, nearDuplicateDistance: null })}\n{"ts":1}\n`,
    );
    await assert.rejects(
      readAll(path),
      (err: unknown) => err instanceof ShoalError && err.code === 'IO' && /:2: invalid page metadata: field "ts" is 1/.test(err.message),
    );
  });
});
