/**
 * `npm run demo` (scripts/demo.mjs) as a user runs it, with a smaller budget: it prints the
 * dashboard's address as the crawl starts, ends with the collaboration table against the web's
 * truth (coverage included) and the topic lines, and writes the crawl's report. Needs dist/ built.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';

const demo = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'shoal-demo-'));

after(() => rmSync(cwd, { recursive: true, force: true }));

describe('npm run demo', () => {
  test('prints the dashboard address, ends with the collaboration table against the truth, and writes the report', async () => {
    const child = spawn(process.execPath, [demo], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SHOAL_DEMO_MAX_PAGES: '600' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0, err.slice(-3000));
    assert.match(err, /shoal: dashboard on http:\/\/127\.0\.0\.1:\d+\/\n/);
    assert.match(out, /collaboration \(shoal eval \.shoal\/demo-crawl --truth \.shoal\/demo-truth\):/);
    assert.match(out, /nodes +4, topic: /);
    assert.match(out, /coverage +0\.\d{4} +\(\d[\d,]* of [\d,]+ target pages/);
    assert.match(out, /topic locality +0\.\d{4}/);
    assert.match(out, /shoal report: crawl of 4 nodes, [\d,]+ pages .*wrote \.shoal\/demo-crawl\/report\.html/);
    assert.ok(existsSync(join(cwd, '.shoal', 'demo-crawl', 'report.html')));
  });
});
