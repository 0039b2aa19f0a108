/**
 * `shoal node` against a broker that requires credentials: the `cluster.nats.*` options reach the
 * NATS client (here the token, from the environment, as the docs advise for secrets), and a node
 * without them is refused with a configuration error (exit code 2), not left waiting.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { startNatsServer } from '../helpers/nats-server.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-distributed-auth-'));
// At the top level: the helper's clean-up hook must belong to the file.
const nats = await startNatsServer({ args: ['--auth', 's3cret'], client: { token: 's3cret' } });
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    hosts: 4,
    pages: 60,
    seeds: 2,
    server: { addressCount: 4 },
    traps: { hostRate: 0 },
    latency: { slowHostRate: 0 },
    robots: { crawlDelayRate: 0 },
  });
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function node(out: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [
    bin,
    'node',
    '--nats',
    nats.url,
    '--crawl',
    'auth',
    '--nodes',
    '1',
    '--partitions',
    '0',
    '--out',
    out,
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([h, ip]) => ['--resolve', `${h}=${ip}`]),
    '--allow-loopback',
    '--min-delay-ms',
    '0',
  ];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
      SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
      SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('shoal node with NATS credentials', () => {
  it('crawls with the token given in SHOAL_CRAWL_CLUSTER_NATS_TOKEN', { timeout: 90_000 }, async () => {
    assert.ok(
      existsSync(fileURLToPath(new URL('../../dist/cluster/distributed-node.js', import.meta.url))),
      'dist/ is built (`npm run build`)',
    );
    const run = await node(join(dir, 'with'), { SHOAL_CRAWL_CLUSTER_NATS_TOKEN: 's3cret' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /done: the frontier is empty/);
    assert.match(run.stdout, /pages +[1-9]/);
  });

  it('is refused with a configuration error when the token is wrong', { timeout: 90_000 }, async () => {
    const run = await node(join(dir, 'wrong'), { SHOAL_CRAWL_CLUSTER_NATS_TOKEN: 'guess' });
    assert.equal(run.code, 2, `${run.code}: ${run.stderr}`);
  });
});
