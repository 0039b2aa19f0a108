/**
 * A crawl directory's outputs as sorted lines, for tests that compare two crawls of one site made
 * differently (with and without a parse worker, with a line in front of it): each page with what
 * its analysis gave (pages.jsonl), the link graph with anchor texts, and the response records the
 * CDXJ index names. Sorted, because the order of a crawl of several fetches at once varies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLinkGraph } from '../../src/store/link-graph-reader.js';

/** Each page's URL with what its analysis gave, from pages.jsonl, sorted by URL. */
export function pagesOf(dir: string): string[] {
  return readFileSync(join(dir, 'pages.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const p = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify([p.url, p.title, p.simhash, p.lang, p.textDigest, p.payloadDigest, p.linkCounts]);
    })
    .sort();
}

/** The link graph as sorted "source -> target: anchor" lines. */
export async function linksOf(dir: string): Promise<string[]> {
  const g = await readLinkGraph(join(dir, 'links'));
  try {
    const lines: string[] = [];
    for (let s = 0; s < g.urls.length; s++) {
      for (let e = g.csr.offsets[s] as number; e < (g.csr.offsets[s + 1] as number); e++) {
        lines.push(`${g.urls[s]} -> ${g.urls[g.csr.targets[e] as number]}: ${g.anchorOf(e)}`);
      }
    }
    return lines.sort();
  } finally {
    g.close();
  }
}

/** The CDXJ index's lines but robots.txt's, as parsed JSON objects, in the index's order. */
export function indexEntriesOf(dir: string): Record<string, string>[] {
  return readFileSync(join(dir, 'warc', 'index.cdxj'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, string>)
    .filter((j) => !(j.url ?? '').endsWith('/robots.txt'));
}

/** The records the CDXJ index names but robots.txt's, as sorted "url status digest" lines. */
export function capturesOf(dir: string): string[] {
  return indexEntriesOf(dir)
    .map((j) => `${j.url} ${j.status} ${j.digest}`)
    .sort();
}
