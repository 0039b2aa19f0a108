/**
 * Exact duplicates across runs: a crawl stopped after a few pages and resumed on the same directory
 * still recognises copies of pages the first run fetched. Mirror hosts of the test web serve
 * byte-identical pages (compression off here, so payloads are identical too): a copy met in the
 * second run is written as a `revisit` record whose WARC-Refers-To names a response record of the
 * first run's WARC file, and every revisit of both runs points at a response record that exists.
 */
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WARCParser } from 'warcio';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { NO_FAULTS } from '../../helpers/test-web.js';

const WEB = {
  seed: 29,
  hosts: 12,
  pages: 600,
  seeds: 6,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  traps: { hostRate: 0 },
  faults: NO_FAULTS,
  robots: { serverErrorRate: 0, unavailableRate: 0, crawlDelayRate: 0, rulesRate: 0 },
  encoding: { gzipRate: 0, brotliRate: 0 },
  duplicates: { mirrorHostRate: 0.4 },
} satisfies WebConfigInput;

let web: TestWeb;
let root: string;

before(async () => {
  web = await startTestWeb(WEB);
  root = mkdtempSync(join(tmpdir(), 'shoal-dedup-resume-'));
});

after(async () => {
  await web?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

interface Rec {
  readonly file: string;
  readonly type: string;
  readonly id: string;
  readonly refersTo: string | null;
}

async function records(dir: string): Promise<Rec[]> {
  const out: Rec[] = [];
  for (const file of readdirSync(dir)
    .filter((n) => n.endsWith('.warc.gz'))
    .sort()) {
    for await (const r of new WARCParser(createReadStream(join(dir, file)))) {
      out.push({
        file,
        type: r.warcType ?? '',
        id: r.warcHeader('WARC-Record-ID') ?? '',
        refersTo: r.warcHeader('WARC-Refers-To') ?? null,
      });
    }
  }
  return out;
}

test("a resumed crawl writes copies of the first run's pages as revisits of its records", async () => {
  const out = join(root, 'crawl');
  const config = {
    nodeId: 'dedup',
    seeds: { urls: [...web.seeds] },
    store: { outDir: out },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 8 },
    progressIntervalMs: 0,
  };
  const first = await new Crawl({ ...config, limits: { concurrency: 8, maxPages: 120 } }).run();
  assert.equal(first.stopReason, 'max-pages');
  const firstRecords = await records(join(out, 'warc'));
  const firstResponses = new Set(firstRecords.filter((r) => r.type === 'response').map((r) => r.id));

  const second = await new Crawl(config).run();
  assert.equal(second.stopReason, 'exhausted');
  const all = await records(join(out, 'warc'));
  const responses = new Set(all.filter((r) => r.type === 'response').map((r) => r.id));
  const revisits = all.filter((r) => r.type === 'revisit');
  assert.ok(revisits.length > 0);
  for (const r of revisits)
    assert.ok(r.refersTo !== null && responses.has(r.refersTo), `${r.id} refers to ${r.refersTo}, a response record that exists`);
  const secondRunRevisits = revisits.slice(firstRecords.filter((r) => r.type === 'revisit').length);
  const acrossRuns = secondRunRevisits.filter((r) => r.refersTo !== null && firstResponses.has(r.refersTo));
  assert.ok(acrossRuns.length > 0, `${secondRunRevisits.length} revisits in the second run, none of a first-run capture`);
});
