import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { ConfigError } from '../../../src/core/errors.js';
import { defaultsYaml, listFields } from '../../../src/config/describe.js';
import { envName, loadConfig, mergeTrees } from '../../../src/config/load.js';
import { bytes, durationMs } from '../../../src/config/units.js';

const schema = z.object({
  name: z.string().default('x').describe('a name'),
  net: z
    .object({
      timeoutMs: durationMs().default(1000).describe('how long to wait'),
      maxBodyBytes: bytes().default(1024).describe('largest body'),
      retries: z.number().int().min(0).default(2).describe('attempts after the first'),
    })
    .prefault({}),
});

const dir = mkdtempSync(join(tmpdir(), 'shoal-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('config loading', () => {
  it('fills every default', () => {
    assert.deepEqual(loadConfig(schema), { name: 'x', net: { timeoutMs: 1000, maxBodyBytes: 1024, retries: 2 } });
  });

  it('converts units written in files and flags', () => {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'net:\n  timeoutMs: 2.5s\n  maxBodyBytes: 2MiB\n');
    const c = loadConfig(schema, { file, flags: { net: { retries: 5 } } });
    assert.deepEqual(c.net, { timeoutMs: 2500, maxBodyBytes: 2 * 1024 * 1024, retries: 5 });
  });

  it('layers preset < file < env < flags', () => {
    const file = join(dir, 'layers.json');
    writeFileSync(file, JSON.stringify({ name: 'file', net: { retries: 1 } }));
    const c = loadConfig(schema, {
      preset: { name: 'preset', net: { retries: 9, timeoutMs: 7 } },
      file,
      env: { SHOAL_T_NAME: 'env', SHOAL_T_NET_MAX_BODY_BYTES: '10KiB', OTHER: 'ignored' },
      envPrefix: 'SHOAL_T_',
      flags: { name: 'flag' },
    });
    assert.deepEqual(c, { name: 'flag', net: { timeoutMs: 7, maxBodyBytes: 10 * 1024, retries: 1 } });
  });

  it('lists every bad field with its path', () => {
    const err = (() => {
      try {
        loadConfig(schema, { flags: { name: 3, net: { timeoutMs: 'soon', retries: -1 } } });
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(err instanceof ConfigError);
    assert.equal(err.code, 'CONFIG_INVALID');
    assert.deepEqual(err.issues.map((i) => i.path).sort(), ['name', 'net.retries', 'net.timeoutMs']);
    assert.match(err.message, /net\.timeoutMs: expected a duration/);
  });

  it('rejects unknown options at their own path, so that a typo is not silently ignored', () => {
    const strict = z.strictObject({ net: z.strictObject({ retries: z.number().default(2) }).prefault({}) });
    const file = join(dir, 'typo.yaml');
    writeFileSync(file, 'net:\n  retires: 5\nnett: {}\n');
    assert.throws(
      () => loadConfig(strict, { file }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.deepEqual(e.issues.map((i) => i.path).sort(), ['net.retires', 'nett']);
        assert.match(e.message, /net\.retires: unknown option/);
        return true;
      },
    );
  });

  it('reports unreadable and malformed files', () => {
    assert.throws(
      () => loadConfig(schema, { file: join(dir, 'missing.yaml') }),
      (e: unknown) => e instanceof ConfigError && e.code === 'CONFIG_FILE_UNREADABLE',
    );
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'net: [1, 2\n');
    assert.throws(
      () => loadConfig(schema, { file: bad }),
      (e: unknown) => e instanceof ConfigError && /cannot parse/.test(e.message),
    );
    const list = join(dir, 'list.yaml');
    writeFileSync(list, '- 1\n- 2\n');
    assert.throws(() => loadConfig(schema, { file: list }), /must hold a mapping/);
  });

  it('merges nested trees without touching the inputs', () => {
    const a = { x: { y: 1, z: 2 } };
    const merged = mergeTrees(a, { x: { z: 3 } });
    assert.deepEqual(merged, { x: { y: 1, z: 3 } });
    assert.deepEqual(a, { x: { y: 1, z: 2 } });
  });

  it('names environment variables after the path', () => {
    assert.equal(envName('SHOAL_WEB_', 'links.topicLocality'), 'SHOAL_WEB_LINKS_TOPIC_LOCALITY');
  });
});

describe('config description', () => {
  it('lists leaves with doc, unit, default and type', () => {
    const fields = listFields(schema);
    assert.deepEqual(
      fields.map((f) => f.path),
      ['name', 'net.timeoutMs', 'net.maxBodyBytes', 'net.retries'],
    );
    const timeout = fields.find((f) => f.path === 'net.timeoutMs');
    assert.equal(timeout?.unit, 'ms');
    assert.equal(timeout?.doc, 'how long to wait');
    assert.equal(timeout?.defaultValue, 1000);
    assert.equal(fields.find((f) => f.path === 'net.retries')?.type, 'integer');
  });

  it('writes a commented YAML of the defaults that loads back to the defaults', async () => {
    const yaml = defaultsYaml(schema, schema.parse({}));
    assert.match(yaml, /# how long to wait \[ms\]/);
    const file = join(dir, 'defaults.yaml');
    writeFileSync(file, yaml);
    assert.deepEqual(loadConfig(schema, { file }), schema.parse({}));
  });
});
