/**
 * Near-duplicates across the nodes of a distributed crawl (SPEC §2.10, §4.5; `dedup.near.isShared`):
 * two `shoal node` processes (the installed command, over dist/) under `url-hash` partitioning,
 * joined only through a private nats-server, crawl a test web with many near-duplicates. The
 * fingerprints of the pages each keeps travel over JetStream to the other: pages are marked as copies
 * of pages the other node fetched, each mark names a page of the same truth family that is itself
 * unmarked, and `exchange.json` counts the fingerprints both ways.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { EXCHANGE_TOTALS_FILE } from '../../src/node/collaboration/exchange-totals.js';
import { readPageMetadata, type PageMetadata } from '../../src/store/page-metadata.js';
import type { TestWeb } from '../../src/web/start.js';
import { startNearDuplicateWeb, type NearDuplicateWeb } from '../helpers/near-duplicate-web.js';
import { runNodeProcess } from '../helpers/cli.js';
import { startNatsServer, type TestNatsServer } from '../helpers/nats-server.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
// At the top level: the helper's clean-up hook must belong to the file, not to a `before` hook.
const nats: TestNatsServer = await startNatsServer();
let web: TestWeb;
let dir: string;
let world: NearDuplicateWeb;

before(async () => {
  world = await startNearDuplicateWeb('shoal-distributed-neardup-');
  ({ web, dir } = world);
});

after(async () => {
  await world?.close();
});

const familyOf = (url: string): number => world.familyOf(url);

function node(partition: number): Promise<{ code: number | null; stderr: string }> {
  return runNodeProcess(
    [
      bin,
      'node',
      ...['--nats', nats.url, '--crawl', 'neardup', '--nodes', '2', '--partition', 'url-hash', '--partitions', String(partition)],
      ...['--node-id', `neardup${partition}`, '--out', join(dir, `n${partition}`)],
      ...web.seeds.flatMap((s) => ['--seed', s]),
      ...['--hosts-file', web.hostsFile, '--allow-loopback', '--min-delay-ms', '5', '--max-pages', '200'],
      ...['--set', 'cluster.batchDelayMs=50'],
    ],
    { ...process.env, SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000' },
  );
}

describe('near-duplicates across shoal node processes over NATS', () => {
  test('pages are marked as copies of pages the other node fetched', { timeout: 180_000 }, async (t) => {
    const runs = await Promise.all([node(0), node(1)]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr.slice(-2000));
    const pages: (PageMetadata & { node: number })[] = [];
    for (const n of [0, 1]) {
      for await (const p of readPageMetadata(join(dir, `n${n}`, 'pages.jsonl'))) pages.push({ ...p, node: n });
    }
    const byUrl = new Map(pages.map((p) => [p.url, p]));
    const marked = pages.filter((p) => p.nearDuplicateOf !== null);
    const cross = marked.filter((p) => byUrl.get(p.nearDuplicateOf as string)?.node !== p.node);
    assert.ok(cross.length >= 3, `${cross.length} of ${marked.length} marks across nodes`);
    for (const p of marked) {
      const original = byUrl.get(p.nearDuplicateOf as string);
      assert.ok(original !== undefined, `${p.nearDuplicateOf} was fetched by a node`);
      assert.equal(original.nearDuplicateOf, null, `${p.url} names ${original.url}, itself a copy`);
      assert.ok(familyOf(p.url) >= 0 && familyOf(p.url) === familyOf(original.url), `${p.url} is not a copy of ${original.url}`);
    }
    const totals = [0, 1].map((n) => JSON.parse(readFileSync(join(dir, `n${n}`, EXCHANGE_TOTALS_FILE), 'utf8')) as Record<string, number>);
    for (const [n, x] of totals.entries()) {
      assert.ok((x.simhashesSent as number) > 0 && (x.simhashBytesSent as number) > 0, `node ${n}: ${JSON.stringify(x)}`);
      assert.ok((x.simhashesReceived as number) > 0, `node ${n}: ${JSON.stringify(x)}`);
    }
    const sent = totals.reduce((s, x) => s + (x.simhashesSent as number), 0);
    const bytes = totals.reduce((s, x) => s + (x.simhashBytesSent as number), 0);
    t.diagnostic(
      `${marked.length} marks, ${cross.length} across nodes; ${sent} fingerprints sent in ${bytes} bytes; ${pages.length} pages`,
    );
  });
});
