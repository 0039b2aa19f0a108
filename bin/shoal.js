#!/bin/sh
':' //; export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_-131072}"; exec node --max-semi-space-size=4 --heap-growing-percent=50 "$0" "$@"
// The shoal command. Run as a program (`shoal`, `npx shoal`, `./bin/shoal.js`), this file is first a
// shell script: the line above is a no-op for sh (`:`) followed by an `exec` of node on this same
// file with the process settings that hold a crawl's memory down (src/node/process-settings.ts says
// what each does; a test checks that the two lists agree). Node skips the first line and reads the
// second as a string and a comment. `node bin/shoal.js` runs without those settings.
// It runs the compiled CLI (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('shoal: dist/ is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
const { main: run } = await import(main.href);
await run(process.argv.slice(2));
