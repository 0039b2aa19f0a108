/**
 * Endless numbered URL spaces (SPEC §8): pagination that never ends (`/q?p=1` links `/q?p=2`, which
 * links `/q?p=3`, ...), a calendar's "next month" and its days, an id that grows with every page.
 * No rule that looks at one URL alone sees them: each URL is short and plain. What they share is that
 * a page links a new URL of its own *form*, the same URL with other numbers.
 *
 * The form (`numberedForm`) of a URL is its path and query with every run of digits written `#`, and
 * a run of numeric path segments written once (`/calendar/2024/1/` and `/calendar/2024/1/15/` are both
 * `/calendar/#/`). A *numbered sibling* is a link to a new URL (not seen before) of the same host and
 * the same form as the page it was found on. Each (host, form) may admit at most `maxUrls` numbered
 * siblings; later ones are rejected (`trap-numbered`) before the URL-seen test, so that the same URL
 * found on a page of another form (an index, a table of contents, a sitemap) is still admitted.
 *
 * Why this bounds every such space within about `maxUrls` requests while an ordinary site never meets
 * it: an endless space grows only through its own pages, so all its URLs after the first are numbered
 * siblings, whether it is a chain (pagination) or a tree (each page linking several new ids). The
 * pages of a documentation site, of a blog or a shop are reached from pages of other forms (indexes,
 * listings, menus): a breadth-first crawl meets them there first, and only what is reachable through
 * a chain of same-form pages *alone* is cut past the bound, such as a listing's pages past page 40.
 *
 * Pure: counts only, no clock, no I/O (the node keeps a snapshot at each checkpoint). The map of
 * counts is bounded: past `maxKeys` forms the least recently counted one is forgotten.
 */

/** The form of a URL's path and query; see the file comment. */
export function numberedForm(pathAndQuery: string): string {
  return pathAndQuery.replace(/\d+/g, '#').replace(/(?:\/#)+(?=\/|\?|$)/g, '/#');
}

/** Whether `pathAndQuery` holds a digit at all (a URL without one has no numbered siblings). */
function hasDigit(pathAndQuery: string): boolean {
  return /\d/.test(pathAndQuery);
}

/** One (host, form) whose numbered siblings reached the bound, for the crawl summary. */
export interface CutSpace {
  readonly host: string;
  readonly form: string;
  /** Numbered siblings admitted (the bound). */
  readonly admitted: number;
  /** Numbered siblings rejected past it. */
  readonly cut: number;
}

/** What {@link NumberedSpaces} counted, to store at a checkpoint: `[host, form, admitted, cut]`. */
export type NumberedSpacesSnapshot = readonly (readonly [string, string, number, number])[];

/** Default bound of numbered siblings per (host, form). */
export const DEFAULT_MAX_NUMBERED_URLS = 40;
/** Default number of (host, form) counts kept. */
export const DEFAULT_MAX_NUMBERED_KEYS = 65_536;

interface Count {
  admitted: number;
  cut: number;
}

/** The counts of numbered siblings per (host, form); see the file comment. */
export class NumberedSpaces {
  private readonly counts = new Map<string, Count>();
  private changed = false;

  /**
   * @param maxUrls numbered siblings admitted per (host, form), a non-negative integer.
   * @param maxKeys (host, form) counts kept at most.
   */
  constructor(
    readonly maxUrls: number = DEFAULT_MAX_NUMBERED_URLS,
    private readonly maxKeys: number = DEFAULT_MAX_NUMBERED_KEYS,
    restored?: NumberedSpacesSnapshot,
  ) {
    if (!Number.isSafeInteger(maxUrls) || maxUrls < 0)
      throw new RangeError(`NumberedSpaces: maxUrls must be a non-negative integer, got ${maxUrls}`);
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new RangeError(`NumberedSpaces: maxKeys must be a positive integer, got ${maxKeys}`);
    for (const [host, form, admitted, cut] of restored ?? []) this.counts.set(keyOf(host, form), { admitted, cut });
  }

  /**
   * The key of a link from `from` to `to` (both as host key and path-and-query) when it is a numbered
   * sibling candidate (same host, same form, with a digit); null otherwise.
   */
  keyOf(toHost: string, toPathAndQuery: string, fromHost: string, fromPathAndQuery: string): string | null {
    if (toHost !== fromHost || !hasDigit(toPathAndQuery) || !hasDigit(fromPathAndQuery)) return null;
    const form = numberedForm(toPathAndQuery);
    return form === numberedForm(fromPathAndQuery) ? keyOf(toHost, form) : null;
  }

  /** Whether a new numbered sibling of `key` would pass the bound; counts the rejection when not. */
  admits(key: string): boolean {
    if ((this.counts.get(key)?.admitted ?? 0) < this.maxUrls) return true;
    this.touch(key).cut++;
    return false;
  }

  /** Counts a numbered sibling of `key` that was admitted (it was new). */
  add(key: string): void {
    this.touch(key).admitted++;
  }

  /** The count of `key`, made the most recent (the oldest form is forgotten first), created if new. */
  private touch(key: string): Count {
    let c = this.counts.get(key);
    if (c === undefined) {
      c = { admitted: 0, cut: 0 };
      if (this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value as string);
    } else {
      this.counts.delete(key);
    }
    this.counts.set(key, c);
    this.changed = true;
    return c;
  }

  /** The spaces that reached the bound, most cut first. */
  cutSpaces(limit = 10): CutSpace[] {
    const out: CutSpace[] = [];
    for (const [key, c] of this.counts) {
      if (c.cut === 0) continue;
      const [host = '', form = ''] = key.split('\t');
      out.push({ host, form, admitted: c.admitted, cut: c.cut });
    }
    return out.sort((a, b) => b.cut - a.cut || a.host.localeCompare(b.host)).slice(0, limit);
  }

  /** Whether anything was counted since the last {@link snapshot}. */
  get isChanged(): boolean {
    return this.changed;
  }

  /** The counts, for a checkpoint. */
  snapshot(): NumberedSpacesSnapshot {
    this.changed = false;
    return [...this.counts].map(([key, c]) => {
      const [host = '', form = ''] = key.split('\t');
      return [host, form, c.admitted, c.cut] as const;
    });
  }
}

function keyOf(host: string, form: string): string {
  return `${host}\t${form}`;
}
