import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const scriptUrl = new URL('../../../scripts/commit-msg.mjs', import.meta.url).href;
const { problemsOf, MAX_SUBJECT } = (await import(scriptUrl)) as { problemsOf: (m: string) => string[]; MAX_SUBJECT: number };

describe('commit-msg check', () => {
  it('accepts an imperative subject, a blank line and a body', () => {
    assert.deepEqual(problemsOf('Cap the politeness gap at 30 s\n\nOne slow response idled its host for 10 min.\n'), []);
    assert.deepEqual(problemsOf('Cap the politeness gap at 30 s\n'), []);
    assert.deepEqual(problemsOf(`${'x'.repeat(MAX_SUBJECT)}\n`), []);
  });

  it('names each problem: length, full stop, tense, missing blank line, empty subject', () => {
    assert.match(problemsOf(`${'x'.repeat(MAX_SUBJECT + 1)}\n`).join(), /73 characters; at most 72/);
    assert.match(problemsOf('Cap the gap.\n').join(), /full stop/);
    assert.match(problemsOf('Added a cap on the gap\n').join(), /imperative.*"Added"/);
    assert.match(problemsOf('Cap the gap\nat 30 s\n').join(), /second line must be blank/);
    assert.deepEqual(problemsOf('\n# only a comment\n'), ['the subject line is empty']);
  });

  it('ignores git comment lines and lets merges and fixups through', () => {
    assert.deepEqual(problemsOf('# Please enter the commit message\nCap the gap\n\n# On branch main\n'), []);
    assert.deepEqual(problemsOf(`Merge branch 'contracts' ${'y'.repeat(80)}\n`), []);
    assert.deepEqual(problemsOf('fixup! Cap the gap\n'), []);
  });

  it('runs as the commit-msg hook: exit 1 with the problem on stderr, 0 when fine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-commit-msg-'));
    try {
      const bad = join(dir, 'bad');
      writeFileSync(bad, 'Fixed everything.\n');
      const r = spawnSync(process.execPath, [join(root, 'scripts/commit-msg.mjs'), bad], { encoding: 'utf8' });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /full stop/);
      const good = join(dir, 'good');
      writeFileSync(good, 'Fix everything\n\nBecause.\n');
      assert.equal(spawnSync('sh', [join(root, '.githooks/commit-msg'), good], { cwd: root }).status, 0);
      assert.equal(spawnSync('sh', [join(root, '.githooks/commit-msg'), bad], { cwd: root }).status, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
