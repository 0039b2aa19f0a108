/**
 * Shared pieces of the topic-corpus recipe: word counting, grouping short entries into documents,
 * splitting long texts into chunks, dictd file reading, HTML to text, and a seeded shuffle. Everything
 * here is deterministic: the same input files give the same documents in the same order.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';

/** The fewest words a document may have; shorter groups and tails are dropped. */
export const MIN_WORDS = 80;

export function countWords(text) {
  const m = text.match(/\S+/g);
  return m ? m.length : 0;
}

/** Collapses runs of white space to one space and trims. */
export function squash(text) {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Groups short entries (definitions, glosses, quotations) into documents of about `targetWords` words,
 * keeping the entries' order so neighbours of one subject stay together. A tail shorter than
 * MIN_WORDS is dropped rather than padded.
 * @param {string[]} entries
 */
export function groupEntries(entries, { targetWords = 150, maxEntries = 40 } = {}) {
  const docs = [];
  let cur = [];
  let words = 0;
  for (const e of entries) {
    const w = countWords(e);
    if (w === 0) continue;
    cur.push(e);
    words += w;
    if (words >= targetWords || cur.length >= maxEntries) {
      if (words >= MIN_WORDS) docs.push(cur.join('\n'));
      cur = [];
      words = 0;
    }
  }
  if (words >= MIN_WORDS) docs.push(cur.join('\n'));
  return docs;
}

/**
 * Splits a long text into chunks of about `chunkWords` words (never more than 1.5x that: a tail
 * shorter than half a chunk joins the previous chunk). Texts shorter than MIN_WORDS give nothing.
 */
export function chunkWords(text, chunkWords = 500) {
  const words = text.match(/\S+/g) ?? [];
  if (words.length < MIN_WORDS) return [];
  const n = Math.max(1, Math.round(words.length / chunkWords));
  const size = Math.ceil(words.length / n);
  const out = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(' '));
  return out.filter((c) => countWords(c) >= MIN_WORDS);
}

/** 32-bit FNV-1a of a string: seeds the shuffle from a name so each list shuffles on its own. */
export function hash32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small seeded PRNG, enough for a reproducible shuffle. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates on a copy, seeded by `seed` and `name`. */
export function shuffled(items, seed, name) {
  const out = items.slice();
  const r = rng(hash32(`${seed}:${name}`));
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function b64num(s) {
  let n = 0;
  for (const c of s) n = n * 64 + B64.indexOf(c);
  return n;
}

/**
 * Reads a dictd database (NAME.index + NAME.dict.dz, as the Debian dict-* packages install them) and
 * returns its entries in file order, one per distinct offset, without the 00-database-* headers.
 * A .dict.dz file is gzip with an extra random-access header, so plain gunzip reads it whole.
 * @returns {{ headword: string, body: string }[]}
 */
export function readDictd(dir, name) {
  const data = gunzipSync(readFileSync(`${dir}/${name}.dict.dz`));
  const seen = new Set();
  const entries = [];
  for (const line of readFileSync(`${dir}/${name}.index`, 'utf8').split('\n')) {
    const [headword, off, len] = line.split('\t');
    if (!len || headword.startsWith('00-database') || headword.startsWith('00database')) continue;
    const offset = b64num(off);
    if (seen.has(offset)) continue;
    seen.add(offset);
    entries.push({ offset, headword, body: data.subarray(offset, offset + b64num(len)).toString('utf8') });
  }
  entries.sort((a, b) => a.offset - b.offset);
  return entries.map(({ headword, body }) => ({ headword, body }));
}

const SKIP_TAGS = new Set(['script', 'style', 'head', 'nav', 'pre', 'code', 'kbd', 'samp', 'tt']);
const BLOCK_TAGS = new Set([
  'p',
  'div',
  'br',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'td',
  'th',
  'tr',
  'dt',
  'dd',
  'section',
  'table',
  'blockquote',
]);

/**
 * Visible prose of an HTML page: drops scripts, styles, navigation and code listings (code is not the
 * language a classifier of web pages should learn from), keeps block boundaries as new lines.
 */
export function htmlToText(html) {
  let out = '';
  let skipDepth = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP_TAGS.has(name)) skipDepth++;
        else if (BLOCK_TAGS.has(name)) out += '\n';
      },
      ontext(text) {
        if (skipDepth === 0) out += text;
      },
      onclosetag(name) {
        if (SKIP_TAGS.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (BLOCK_TAGS.has(name)) out += '\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out;
}

/** True when every path exists. */
export function allExist(paths) {
  return paths.every((p) => existsSync(p));
}
