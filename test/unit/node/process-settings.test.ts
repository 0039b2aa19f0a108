/**
 * The shoal command's process settings: which of them a process runs with, and the first lines of
 * bin/shoal.js that start node with them. The launcher is run with a stand-in `node` first in PATH
 * (a shell script that prints what it was given), so the test sees the exact command line and
 * environment without starting a crawl; test/e2e/crawl-cli.test.ts runs the real thing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, symlink, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { SHOAL_NODE_FLAGS, SHOAL_PROCESS_ENV, processSettings } from '../../../src/node/process-settings.js';
import { withDir } from '../../helpers/scratch.js';

const bin = fileURLToPath(new URL('../../../bin/shoal.js', import.meta.url));
const ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

describe('processSettings', () => {
  it('is in effect with every flag and variable, whatever their values', () => {
    assert.deepEqual(processSettings(['--import', 'tsx', ...SHOAL_NODE_FLAGS], ENV), { isInEffect: true, missing: [] });
    // A user's own value is a choice, not a missing setting; V8 takes underscores as dashes.
    assert.equal(
      processSettings(['--max_semi_space_size=16', '--heap-growing-percent=100'], { MALLOC_MMAP_THRESHOLD_: '0' }).isInEffect,
      true,
    );
  });

  it('names what is missing, flags first', () => {
    assert.deepEqual(processSettings([], {}).missing, [...SHOAL_NODE_FLAGS, 'MALLOC_MMAP_THRESHOLD_']);
    assert.deepEqual(processSettings(['--heap-growing-percent=50'], ENV).missing, ['--max-semi-space-size=4']);
    assert.deepEqual(processSettings(SHOAL_NODE_FLAGS, {}).missing, ['MALLOC_MMAP_THRESHOLD_']);
    // A flag that merely starts with the same letters is another flag.
    assert.deepEqual(processSettings(['--max-semi-space-size-x=4', '--heap-growing-percent=50'], ENV).missing, ['--max-semi-space-size=4']);
  });
});

/** Runs bin/shoal.js (through `link`, a symlink to it, when given) as a program, with a stand-in `node` first in PATH. */
async function launch(
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
  link?: string,
): Promise<{ argv: string[]; malloc: string; env: string[] }> {
  const fake = join(dir, 'node');
  await writeFile(
    fake,
    '#!/bin/sh\nfor a in "$@"; do printf \'arg:%s\\n\' "$a"; done\n' +
      "printf 'malloc:%s\\n' \"${MALLOC_MMAP_THRESHOLD_-unset}\"\nenv | sed 's/=.*//; s/^/env:/'\n",
  );
  await chmod(fake, 0o755);
  const child = spawn(link ?? bin, [...args], {
    env: { ...env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, out);
  const lines = out.trimEnd().split('\n');
  return {
    argv: lines.filter((l) => l.startsWith('arg:')).map((l) => l.slice(4)),
    malloc: lines.find((l) => l.startsWith('malloc:'))?.slice(7) ?? '',
    env: lines.filter((l) => l.startsWith('env:')).map((l) => l.slice(4)),
  };
}

describe('bin/shoal.js run as a program', () => {
  it('starts node on itself with the node flags of SHOAL_NODE_FLAGS and the arguments as given', async () => {
    await withDir('shoal-bin-', async (dir) => {
      const r = await launch(dir, ['crawl', '--seed', 'http://a.test/x y', ''], {});
      assert.deepEqual(r.argv, [...SHOAL_NODE_FLAGS, bin, 'crawl', '--seed', 'http://a.test/x y', '']);
      assert.equal(r.malloc, SHOAL_PROCESS_ENV.MALLOC_MMAP_THRESHOLD_);
    });
  });

  it('keeps a malloc setting of the environment, even an empty one', async () => {
    await withDir('shoal-bin-', async (dir) => {
      assert.equal((await launch(dir, [], { MALLOC_MMAP_THRESHOLD_: '65536' })).malloc, '65536');
      assert.equal((await launch(dir, [], { MALLOC_MMAP_THRESHOLD_: '' })).malloc, '');
    });
  });

  it('through a symlink (as npm installs commands), node is given the link, which it follows', async () => {
    await withDir('shoal-bin-', async (dir) => {
      const link = join(dir, 'shoal');
      await symlink(bin, link);
      assert.deepEqual((await launch(dir, ['web'], {}, link)).argv, [...SHOAL_NODE_FLAGS, link, 'web']);
    });
  });

  it('sets exactly the variables of SHOAL_PROCESS_ENV', async () => {
    await withDir('shoal-bin-', async (dir) => {
      // From an environment of PATH alone; the shell adds its own bookkeeping variables.
      const added = (await launch(dir, [], {})).env.filter((name) => !['PATH', 'PWD', 'OLDPWD', 'SHLVL', '_'].includes(name));
      assert.deepEqual(added.sort(), Object.keys(SHOAL_PROCESS_ENV).sort());
    });
  });
});
