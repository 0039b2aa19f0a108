/**
 * What the near-duplicate index reads back on resume: pages.jsonl when the crawl keeps it, else the
 * crawl log's `ok` lines with a SimHash (failures and unparsed pages left out), else nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keptPagesOf } from '../../../../src/node/durability/kept-pages.js';
import { CRAWL_LOG_FILE, CrawlLog } from '../../../../src/store/crawl-log.js';
import { PAGE_METADATA_FILE, PageMetadataLog } from '../../../../src/store/page-metadata.js';
import type { KeptPage } from '../../../../src/node/stages/near-duplicates.js';

async function all(pages: AsyncIterable<KeptPage> | null): Promise<[string, string | null, string | null][] | null> {
  if (pages === null) return null;
  const out: [string, string | null, string | null][] = [];
  for await (const p of pages) out.push([p.url, p.simhash, p.nearDuplicateOf]);
  return out;
}

const line = (url: string, outcome: 'ok' | 'http-error', simhash: string | null, nearDuplicateOf: string | null = null) =>
  ({
    ts: '2026-01-01T00:00:00.000Z',
    url,
    status: outcome === 'ok' ? 200 : 404,
    outcome,
    durationMs: 1,
    discoveredFrom: null,
    depth: 0,
    simhash,
    nearDuplicateOf,
  }) as const;

describe('keptPagesOf', () => {
  test('reads pages.jsonl when kept, else the ok lines of the crawl log, else nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-kept-'));
    try {
      const both = { hasPageMetadata: true, hasCrawlLog: true };
      assert.equal(keptPagesOf(dir, both), null);
      const log = new CrawlLog({ path: join(dir, CRAWL_LOG_FILE) });
      await log.start();
      log.append(line('http://a.test/1', 'ok', '00000000000000ff'));
      log.append(line('http://a.test/2', 'http-error', null));
      log.append(line('http://a.test/3', 'ok', '00000000000000fe', 'http://a.test/1'));
      log.append(line('http://a.test/4', 'ok', null));
      await log.close();
      const fromLog = [
        ['http://a.test/1', '00000000000000ff', null],
        ['http://a.test/3', '00000000000000fe', 'http://a.test/1'],
      ];
      assert.deepEqual(await all(keptPagesOf(dir, both)), fromLog);

      const pages = new PageMetadataLog({ path: join(dir, PAGE_METADATA_FILE) });
      await pages.start();
      pages.append({
        ts: '2026-01-01T00:00:00.000Z',
        url: 'http://b.test/',
        payloadDigest: null,
        textDigest: null,
        simhash: '0000000000000abc',
        lang: null,
        title: null,
        linkCounts: { total: 0, unique: 0, nofollow: 0, sameHost: 0 },
        isNoindex: false,
        isNofollow: false,
        canonical: null,
      });
      await pages.close();
      assert.deepEqual(await all(keptPagesOf(dir, both)), [['http://b.test/', '0000000000000abc', null]]);
      assert.deepEqual(await all(keptPagesOf(dir, { hasPageMetadata: false, hasCrawlLog: true })), fromLog);
      assert.equal(keptPagesOf(dir, { hasPageMetadata: false, hasCrawlLog: false }), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
