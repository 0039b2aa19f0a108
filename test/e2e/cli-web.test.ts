import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { webConfigSchema } from '../../src/web/config.js';
import { get } from '../helpers/http.js';
import { runInProcess } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: readonly string[]) => runInProcess(args);

describe('shoal web (in process)', () => {
  it('serves, checks pages over sockets and exits 0', async () => {
    const r = await run(['web', '--preset', 'tiny', '--check', '60', '--out', join(dir, 'check')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /12 hosts, 600 pages/);
    assert.match(r.out, /check: 60 pages .* 200: \d+/);
    const seeds = readFileSync(join(dir, 'check', 'seeds.txt'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(seeds.length, 3);
    assert.ok(seeds.every((s) => r.out.includes(s)));
  });

  it('serves the hostile preset: drips and refused connections answer nothing within the check’s time', async () => {
    const r = await run(['web', '--preset', 'hostile', '--check', '150']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /6 hosts, 150 pages/);
    // The 17 pages of the refusing host and the 2 drip pages (seed 1).
    assert.match(r.out, /check: 150 pages .*: reset\/timeout: 19, 200: \d+/);
  });

  it('exits 2 and names every bad field', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'links:\n  topicLocality: 1.5\nfaults:\n  hangMs: later\n');
    const r = await run(['web', '--config', file, '--seed', 'abc', '--set', 'geo.cities=500']);
    assert.equal(r.code, 2);
    for (const path of ['--seed', 'links.topicLocality', 'faults.hangMs', 'geo.cities'])
      assert.ok(r.err.includes(`- ${path}:`), `${path} in ${r.err}`);
  });

  it('refuses an unknown preset and an unknown option value', async () => {
    const r = await run(['web', '--preset', 'huge']);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown preset huge; one of tiny, demo, large, community, hostile/);
    const u = await run(['web', '--no-such-flag']);
    assert.equal(u.code, 2);
  });

  it('prints every option with its default, loadable as a config', async () => {
    const r = await run(['config', '--defaults', '--command', 'web']);
    assert.equal(r.code, 0);
    assert.match(r.out, /# share of hosts with a crawler trap/);
    assert.deepEqual(webConfigSchema.parse(parse(r.out)), webConfigSchema.parse({}));
  });

  it('exports the ground truth', async () => {
    const out = join(dir, 'truth');
    const r = await run(['web', 'export', '--preset', 'tiny', '--out', out]);
    assert.equal(r.code, 0, r.err);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { counts: { pages: number } };
    assert.equal(manifest.counts.pages, 600);
  });
});

describe('shoal web (the installed command)', () => {
  const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));

  it('serves until interrupted and stops cleanly', { timeout: 60_000 }, async () => {
    assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))), 'dist/ is built by `npm install` (prepare)');
    const out = join(dir, 'served');
    const child = spawn(process.execPath, [bin, 'web', '--preset', 'tiny', '--out', out, '--set', 'seeds=2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const onData = (): void => {
        if (stdout.includes('serving;')) resolve();
      };
      child.stdout.on('data', onData);
      void exited.then(() => reject(new Error(`exited early: ${stderr}`)));
    });
    const hosts = new Map(
      readFileSync(join(out, 'hosts'), 'utf8')
        .split('\n')
        .filter((l) => /^\d/.test(l))
        .map((l) => {
          const [ip, name] = l.split(' ');
          return [name!, ip!] as const;
        }),
    );
    const seeds = readFileSync(join(out, 'seeds.txt'), 'utf8').trim().split('\n');
    assert.equal(seeds.length, 2);
    const res = await get(seeds[0]!, hosts);
    assert.equal(res.status, 200);
    assert.match(res.body.toString(), /<title>/);
    child.kill('SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /stopped after [1-9]\d* requests/);
  });
});
