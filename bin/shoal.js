#!/usr/bin/env node
// The shoal command. Runs the compiled CLI (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('shoal: dist/ is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
const { runCli } = await import(main.href);
process.exitCode = await runCli(process.argv.slice(2));
