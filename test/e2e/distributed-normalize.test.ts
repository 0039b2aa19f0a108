/**
 * Every node of a distributed crawl normalizes alike (`shoal node` over a real nats-server): a node
 * whose `normalize` section differs from the one the crawl was started with would give one URL
 * another fingerprint and owner, so it is refused with a configuration error (exit 2) naming
 * `normalize`; a node with the same section joins.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runNodeProcess } from '../helpers/cli.js';
import { startNatsServer, type TestNatsServer } from '../helpers/nats-server.js';
import { waitUntil } from '../helpers/wait.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const nats: TestNatsServer = await startNatsServer();
let web: TestWeb;
let dir: string;

before(async () => {
  web = await startTestWeb(WEB_PRESETS.tiny);
  dir = mkdtempSync(join(tmpdir(), 'shoal-distributed-normalize-'));
});
after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const ENV = { ...process.env, SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000' };
const STRIP_WWW = ['--set', 'normalize.stripWww=true'];

function node(partition: number, extra: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return runNodeProcess(
    [
      bin,
      'node',
      '--nats',
      nats.url,
      '--crawl',
      'normalize',
      '--nodes',
      '2',
      '--partitions',
      String(partition),
      '--node-id',
      `node${partition}`,
      '--out',
      join(dir, `n${partition}`),
      ...web.seeds.flatMap((s) => ['--seed', s]),
      '--hosts-file',
      web.hostsFile,
      '--allow-loopback',
      '--min-delay-ms',
      '5',
      '--max-pages',
      '30',
      ...extra,
    ],
    ENV,
  );
}

describe('distributed crawl, normalize section', () => {
  test('a node with other normalization rules is refused, naming normalize; one with the same joins', { timeout: 120_000 }, async () => {
    const first = node(0, STRIP_WWW);
    await waitUntil(() => existsSync(join(dir, 'n0', 'node.json')), { what: 'the first node to join', timeoutMs: 60_000 });
    const other = await node(1, []);
    assert.equal(other.code, 2, other.stderr.slice(-2000));
    assert.match(
      other.stderr,
      /crawl normalize is partitioned otherwise \(.*"normalize":\{.*"stripWww":true.*\); use the same .*and normalize/,
    );
    const same = await node(1, STRIP_WWW);
    assert.equal(same.code, 0, same.stderr.slice(-2000));
    const a = await first;
    assert.equal(a.code, 0, a.stderr.slice(-2000));
  });
});
