/**
 * Game manuals and in-game lore shipped as plain text: NetHack's Guidebook (nethack-common) and
 * Dungeon Crawl Stone Soup's manual and description files (crawl-common). Long texts are split into
 * chunks of about 500 words; crawl's description files, many short entries, are grouped instead.
 * crawl's quotes.txt (literary epigraphs) and translations are left out.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { chunkWords, groupEntries, squash, allExist } from '../lib.mjs';

const NETHACK = '/usr/share/doc/nethack-common/Guidebook.txt.gz';
const CRAWL = '/usr/share/crawl';

export const nethack = {
  id: 'nethack-common',
  install: { apt: ['nethack-common'] },
  isAvailable: () => allExist([NETHACK]),
  documents() {
    const text = gunzipSync(readFileSync(NETHACK)).toString('utf8').replace(/.\x08/g, '');
    return chunkWords(squash(text)).map((t) => ({ label: 'GAMES', text: t, sub: 'Guidebook' }));
  },
};

export const crawl = {
  id: 'crawl-common',
  install: { apt: ['crawl-common'] },
  isAvailable: () => allExist([`${CRAWL}/docs/crawl_manual.txt`, `${CRAWL}/dat/descript/monsters.txt`]),
  documents() {
    const docs = chunkWords(squash(readFileSync(`${CRAWL}/docs/crawl_manual.txt`, 'utf8'))).map((t) => ({
      label: 'GAMES',
      text: t,
      sub: 'crawl_manual',
    }));
    const dir = `${CRAWL}/dat/descript`;
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.txt') && f !== 'quotes.txt')
      .sort()) {
      const entries = readFileSync(`${dir}/${file}`, 'utf8')
        .split(/^%%%%$/m)
        .map((e) =>
          squash(
            e
              .replace(/^#.*$/gm, ' ')
              .replace(/\{\{[\s\S]*?\}\}/g, ' ')
              .replace(/<[^>]*>/g, ' '),
          ),
        )
        .filter((e) => e !== '');
      for (const text of groupEntries(entries, { targetWords: 200 })) docs.push({ label: 'GAMES', text, sub: file });
    }
    return docs;
  },
};
