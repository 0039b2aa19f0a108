import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import madge from 'madge';

// The import boundaries of CONVENTIONS §2, checked by linting small snippets as if they lived in src/.
const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });
// A plain-JS module without types: its one export used here is typed at the import.
const configUrl = new URL('../../eslint.config.js', import.meta.url).href;
const { LAYERS } = (await import(configUrl)) as { readonly LAYERS: readonly (readonly string[])[] };

async function rulesHit(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint boundaries', () => {
  it('keeps eval/, order/, partition/ and frontier/ free of I/O and the clock', async () => {
    assert.ok((await rulesHit('export const t = Date.now();\n', 'src/frontier/x.ts')).includes('no-restricted-properties'));
    assert.ok(
      (await rulesHit("import { readFileSync } from 'node:fs';\nexport const n = readFileSync.length;\n", 'src/eval/x.ts')).includes(
        'no-restricted-imports',
      ),
    );
    assert.ok((await rulesHit('export const t = Date.now();\n', 'src/order/x.ts')).includes('no-restricted-properties'));
    assert.ok((await rulesHit('export const t = setTimeout;\n', 'src/partition/x.ts')).includes('no-restricted-globals'));
    assert.deepEqual(await rulesHit('export const t = Date.now();\n', 'src/web/x.ts'), []);
  });

  it('keeps core/ from importing the rest of src/', async () => {
    assert.ok(
      (await rulesHit("import { x } from '../web/model.js';\nexport const y = x;\n", 'src/core/x.ts')).includes('no-restricted-imports'),
    );
  });

  it('reads process.env only in config/ and the CLI', async () => {
    const code = 'export const home = process.env.HOME;\n';
    assert.ok((await rulesHit(code, 'src/web/x.ts')).includes('no-restricted-properties'));
    assert.deepEqual(await rulesHit(code, 'src/config/x.ts'), []);
  });

  it('lets only exchange/nats/ import the NATS client', async () => {
    const code = "import { connect } from '@nats-io/transport-node';\nexport const c = connect;\n";
    assert.ok((await rulesHit(code, 'src/node/x.ts')).includes('no-restricted-imports'));
    assert.ok(!(await rulesHit(code, 'src/exchange/nats/x.ts')).includes('no-restricted-imports'));
  });

  it('forbids enums', async () => {
    assert.ok((await rulesHit('export enum E { A }\n', 'src/web/x.ts')).includes('no-restricted-syntax'));
  });

  it('lets a folder import only lower layers, type imports included', async () => {
    const rule = 'import-x/no-restricted-paths';
    assert.ok(
      (await rulesHit("import type { CrawlNode } from '../node/crawl-node.js';\nexport type T = CrawlNode;\n", 'src/url/x.ts')).includes(
        rule,
      ),
      'url -> node',
    );
    assert.ok(
      (await rulesHit("import { Crawl } from '../crawl/crawl.js';\nexport const c = Crawl;\n", 'src/cluster/x.ts')).includes(rule),
      'cluster -> crawl',
    );
    assert.ok(
      (await rulesHit("import { WebModel } from '../web/model.js';\nexport const m = WebModel;\n", 'src/node/x.ts')).includes(rule),
      'node -> web, one layer',
    );
    assert.ok(
      (
        await rulesHit("import { LinkGraphWriter } from '../store/link-graph.js';\nexport const w = LinkGraphWriter;\n", 'src/parse/x.ts')
      ).includes(rule),
      'parse -> store',
    );
    assert.ok(
      !(await rulesHit("import { normalizeUrl } from '../url/normalize.js';\nexport const n = normalizeUrl;\n", 'src/node/x.ts')).includes(
        rule,
      ),
      'node -> url',
    );
    assert.ok(
      !(await rulesHit("import { buildNode } from '../node/build-node.js';\nexport const b = buildNode;\n", 'src/cluster/x.ts')).includes(
        rule,
      ),
      'cluster -> node',
    );
  });

  it('finds import cycles, type-only ones included, and src/ has none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-cycle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { readonly b: B }\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js';\nexport interface B { readonly a: A }\n");
      const fixture = await madge(dir, { fileExtensions: ['ts'], tsConfig: join(root, 'tsconfig.json') });
      assert.deepEqual(fixture.circular(), [['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const src = await madge(join(root, 'src'), { fileExtensions: ['ts'], tsConfig: join(root, 'tsconfig.json') });
    assert.deepEqual(src.circular(), []);
  });

  it('places every folder of src/ in a layer', () => {
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'types') // declarations only: nothing imports them by path
      .map((d) => d.name)
      .sort();
    assert.deepEqual([...LAYERS.flat()].sort(), folders);
  });

  it('gives each room of src/node/ a one-paragraph README', () => {
    const rooms = readdirSync(join(root, 'src/node'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    assert.ok(rooms.length >= 4, `rooms: ${rooms.join(', ')}`);
    for (const room of rooms) {
      const readme = join(root, 'src/node', room, 'README.md');
      assert.ok(existsSync(readme), `src/node/${room}/README.md is missing`);
      const paragraphs = readFileSync(readme, 'utf8')
        .split(/\n\s*\n/)
        .filter((p) => p.trim() !== '' && !p.startsWith('#'));
      assert.equal(paragraphs.length, 1, `src/node/${room}/README.md: one paragraph, found ${paragraphs.length}`);
    }
  });
});
