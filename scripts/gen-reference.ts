// Writes docs/reference/*.md from the code (npm run docs:reference).
import { writeFileSync } from 'node:fs';
import { referenceDocs } from '../src/cli/reference-docs.js';

for (const [name, text] of referenceDocs()) {
  writeFileSync(new URL(`../docs/reference/${name}`, import.meta.url), text);
  process.stdout.write(`wrote docs/reference/${name}\n`);
}
