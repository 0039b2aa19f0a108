/**
 * Extended anchor text is computed only where something reads it (issue 22): a crawl of one node
 * whose ordering policy does not read it analyses its pages without it, and writes the same crawl
 * as one whose policy does. Real crawls on loopback, one connection, pages analysed in the crawl
 * thread by an analyzer that records what it was asked.
 *
 *     /      -> /a, /b, each between words
 *     /a     -> /b, /c
 *     /b, /c -> /
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import { InlinePageAnalyzer } from '../../../src/node/analysis/page-analyzer.js';
import { BreadthFirstPolicy } from '../../../src/order/bfs.js';
import { NEEDS_NOTHING, type FetchedPage, type OrderingPolicy, type PolicyNeeds, type PriorityChanges } from '../../../src/order/policy.js';
import type { PageAnalysis, PageAnalysisInput } from '../../../src/parse/page-analysis.js';
import { startDripServer, type DripServer } from '../../helpers/drip-server.js';
import { scratchDirs } from '../../helpers/scratch.js';

const PAGES: Record<string, string> = {
  '/': 'The harbour guide starts <a href="/a">at the north pier</a> where boats wait, then <a href="/b">the old lighthouse</a> stands alone.',
  '/a': 'North pier notes and tides. <a href="/b">Lighthouse</a> hours; <a href="/c">ferry timetable</a> for summer.',
  '/b': 'Lighthouse history. <a href="/">Back to the guide</a>.',
  '/c': 'Ferry timetable. <a href="/">Back to the guide</a>.',
};

/** Breadth-first order that reads extended anchor text, and keeps what it was given. */
class ContextReadingPolicy extends BreadthFirstPolicy {
  override readonly needs: PolicyNeeds = { ...NEEDS_NOTHING, anchorContext: true };
  readonly contexts: string[] = [];
  override observe(page: FetchedPage): PriorityChanges {
    this.contexts.push(...(page.anchorContexts ?? []));
    return super.observe(page);
  }
}

/** The crawl thread's analyzer, recording whether each page was to be analysed with extended anchor text. */
class RecordingAnalyzer extends InlinePageAnalyzer {
  readonly wanted: boolean[] = [];
  override analyze(input: PageAnalysisInput): Promise<PageAnalysis> {
    this.wanted.push(input.wantsAnchorContext !== false);
    return super.analyze(input);
  }
}

const { root } = scratchDirs('shoal-anchor-context-');
let server: DripServer;

async function crawl(name: string, policy: OrderingPolicy): Promise<{ dir: string; analyzer: RecordingAnalyzer }> {
  const dir = join(root, name);
  const analyzer = new RecordingAnalyzer({ anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 });
  const summary = await new Crawl(
    {
      seeds: { urls: [`http://127.0.0.1:${server.port}/`] },
      store: { outDir: dir },
      network: { allowLoopback: true },
      politeness: { minDelayMs: 0, delayFactor: 0 },
      limits: { concurrency: 1 },
      progressIntervalMs: 0,
    },
    { components: { analyzer, policy } },
  ).run(AbortSignal.timeout(30_000));
  assert.equal(summary.stopReason, 'exhausted');
  return { dir, analyzer };
}

let plain: Awaited<ReturnType<typeof crawl>>;
let reading: Awaited<ReturnType<typeof crawl>>;
const policy = new ContextReadingPolicy();

before(async () => {
  server = await startDripServer((path) => {
    const body = PAGES[path];
    return body === undefined ? null : { kind: 'whole', body: `<!doctype html><title>${path}</title><p>${body}</p>` };
  });
  plain = await crawl('plain', new BreadthFirstPolicy());
  reading = await crawl('reading', policy);
});

after(async () => {
  await server?.close();
});

describe('extended anchor text in a crawl of one node', () => {
  test('is left out when the ordering policy does not read it', () => {
    assert.deepEqual(plain.analyzer.wanted, [false, false, false, false]);
  });

  test('is computed and given to a policy that reads it', () => {
    assert.deepEqual(reading.analyzer.wanted, [true, true, true, true]);
    assert.ok(
      policy.contexts.includes('The harbour guide starts where boats wait then the old lighthouse stands alone'),
      policy.contexts.join(' | '),
    );
  });

  test('changes nothing the crawl writes: the link graph is the same byte for byte', () => {
    for (const file of ['urls.tsv', 'anchors.txt', 'links.bin']) {
      const a = readFileSync(join(plain.dir, 'links', file));
      assert.ok(a.length > 0, file);
      assert.ok(a.equals(readFileSync(join(reading.dir, 'links', file))), file);
    }
  });
});
