/**
 * Whole-topic dictionaries from Debian's dict-* packages: FOLDOC and the Jargon File (computing) and
 * the dictionary of chemical elements. Every entry is on the topic, so entries are grouped, in
 * dictionary order, into documents of about 150 words; cross-reference braces are removed.
 */
import { groupEntries, readDictd, squash, allExist } from '../lib.mjs';

const DIR = '/usr/share/dictd';

function cleanEntry(body) {
  return squash(
    body
      .replace(/[{}]/g, '')
      .replace(/<[^>\s]+>/g, ' ')
      .replace(/\(\d{4}-\d{2}-\d{2}\)/g, ' '),
  );
}

function dictSource(id, name, label) {
  return {
    id,
    install: { apt: [id] },
    isAvailable: () => allExist([`${DIR}/${name}.index`, `${DIR}/${name}.dict.dz`]),
    documents() {
      const entries = readDictd(DIR, name).map((e) => cleanEntry(e.body));
      return groupEntries(entries).map((text) => ({ label, text, sub: name }));
    },
  };
}

export const foldoc = dictSource('dict-foldoc', 'foldoc', 'COMPUTERS');
export const jargon = dictSource('dict-jargon', 'jargon', 'COMPUTERS');
export const elements = dictSource('dict-elements', 'elements', 'SCIENCE');
