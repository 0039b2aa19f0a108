/**
 * The GnuCash Tutorial and Concepts Guide in English (gnucash-docs): personal and small-business
 * accounting, budgets, loans, investments, payroll and tax. Each HTML page's prose (code listings and
 * navigation dropped) is split into chunks of about 500 words. The licence pages are left out.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { chunkWords, htmlToText, squash, allExist } from '../lib.mjs';

const DIR = '/usr/share/doc/gnucash-docs/gnucash-guide-en';

export const gnucash = {
  id: 'gnucash-docs',
  install: { apt: ['gnucash-docs'] },
  isAvailable: () => allExist([`${DIR}/index.html`]),
  documents() {
    const docs = [];
    const pages = readdirSync(DIR)
      .filter((f) => f.endsWith('.html') && !/^(fdl|authors|index|ix)/.test(f))
      .sort();
    for (const page of pages) {
      const html = readFileSync(`${DIR}/${page}`, 'utf8').replace(/<div class="nav(header|footer)">[\s\S]*?<\/div>/g, '');
      const text = squash(htmlToText(html));
      for (const t of chunkWords(text)) docs.push({ label: 'BUSINESS', text: t, sub: page });
    }
    return docs;
  },
};
