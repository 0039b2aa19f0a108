/**
 * fortune-mod's quotation files, from Debian's fortunes and fortunes-min. Each themed file (computers,
 * food, medicine, sports, ...) is a list of quotations and jokes on one theme; quotations of one file are
 * grouped, in file order, into documents of about 150 words. Only the files whose quotations carry
 * their theme's vocabulary are used: a 5-fold Naive Bayes check found the food, medicine, sports,
 * science, education, work, art and politics files to be jokes whose words say little of the theme
 * (0-40% recognised), so they would teach noise. Files without one theme (cookie, wisdom, zippy) are
 * left out too.
 */
import { readFileSync } from 'node:fs';
import { groupEntries, squash, allExist } from '../lib.mjs';

const DIR = '/usr/share/games/fortunes';

/** File -> category; the package that installs it is in `install` below. */
const FILES = {
  computers: 'COMPUTERS',
  linux: 'COMPUTERS',
  linuxcookie: 'COMPUTERS',
  perl: 'COMPUTERS',
  debian: 'COMPUTERS',
  kids: 'KIDS',
  news: 'NEWS',
};

export const fortunes = {
  id: 'fortunes',
  install: { apt: ['fortunes', 'fortunes-min'] },
  isAvailable: () => allExist(Object.keys(FILES).map((f) => `${DIR}/${f}`)),
  documents() {
    const docs = [];
    for (const [file, label] of Object.entries(FILES)) {
      const quotes = readFileSync(`${DIR}/${file}`, 'utf8')
        .split(/\n%\n/)
        .map((q) => squash(q.replace(/^\s*--\s.*$/gm, ' ')))
        .filter((q) => q !== '' && q !== '%');
      for (const text of groupEntries(quotes)) docs.push({ label, text, sub: file });
    }
    return docs;
  },
};
