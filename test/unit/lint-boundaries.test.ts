import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

// The import boundaries of CONVENTIONS §2, checked by linting small snippets as if they lived in src/.
const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function rulesHit(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint boundaries', () => {
  it('keeps eval/, order/, partition/ and frontier/ free of I/O and the clock', async () => {
    assert.ok((await rulesHit('export const t = Date.now();\n', 'src/frontier/x.ts')).includes('no-restricted-properties'));
    assert.ok((await rulesHit("import { readFileSync } from 'node:fs';\nexport const n = readFileSync.length;\n", 'src/eval/x.ts')).includes('no-restricted-imports'));
    assert.ok((await rulesHit('export const t = Date.now();\n', 'src/order/x.ts')).includes('no-restricted-properties'));
    assert.ok((await rulesHit('export const t = setTimeout;\n', 'src/partition/x.ts')).includes('no-restricted-globals'));
    assert.deepEqual(await rulesHit('export const t = Date.now();\n', 'src/web/x.ts'), []);
  });

  it('keeps core/ from importing the rest of src/', async () => {
    assert.ok((await rulesHit("import { x } from '../web/model.js';\nexport const y = x;\n", 'src/core/x.ts')).includes('no-restricted-imports'));
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
});
