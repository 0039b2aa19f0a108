/**
 * Extension filter (seed 001, "The Pieces 2"; SPEC §2.3): a link whose last path segment ends in
 * an extension that never names an HTML page is not worth a fetch, a politeness slot and a WARC
 * record, since shoal parses HTML only and the response would carry no links and no text.
 *
 * Only the last segment's extension counts (`/img.d/page.html` is HTML; `/a.jpg/` ends in an empty
 * segment and names a directory); a `;param` after it is ignored (`/p.pdf;v=2` is a PDF); the
 * query never counts (`/view?file=a.jpg` is usually an HTML viewer). Matching is ASCII
 * case-insensitive (`.JPG`). Compound extensions are read by their last part (`.tar.gz` is `gz`).
 *
 * Deliberately not in the default list: `xml`, `json`, `txt`, `rss`, `atom` (feeds and sitemaps
 * list URLs and a future parser may read them), and server-side page extensions (`php`, `asp`,
 * `jsp`, `cgi`): they usually answer HTML.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/**
 * Extensions that never name an HTML page, by family (lower case, no dot). Documents are listed
 * because shoal's parser reads HTML only; a collection that wants PDFs and office files archived
 * passes a list without {@link EXTENSION_GROUPS.document}.
 */
export const EXTENSION_GROUPS = {
  image: [
    'jpg',
    'jpeg',
    'jpe',
    'jfif',
    'png',
    'gif',
    'bmp',
    'tif',
    'tiff',
    'webp',
    'avif',
    'heic',
    'heif',
    'ico',
    'svg',
    'svgz',
    'psd',
    'raw',
    'cr2',
    'nef',
    'dng',
  ],
  audio: ['mp3', 'wav', 'ogg', 'oga', 'opus', 'flac', 'aac', 'm4a', 'wma', 'mid', 'midi', 'aif', 'aiff', 'ra', 'ram'],
  video: ['mp4', 'm4v', 'mov', 'avi', 'wmv', 'flv', 'f4v', 'swf', 'webm', 'mkv', 'mpg', 'mpeg', 'm2ts', '3gp', 'ogv', 'asf', 'rm', 'vob'],
  archive: ['zip', 'gz', 'tgz', 'bz2', 'tbz2', 'xz', 'txz', 'zst', 'lz', 'lzma', '7z', 'rar', 'tar', 'cab', 'arj'],
  binary: [
    'exe',
    'msi',
    'msix',
    'dll',
    'so',
    'bin',
    'dat',
    'iso',
    'img',
    'dmg',
    'pkg',
    'deb',
    'rpm',
    'apk',
    'ipa',
    'jar',
    'war',
    'class',
    'appimage',
  ],
  font: ['woff', 'woff2', 'ttf', 'otf', 'eot'],
  document: ['pdf', 'ps', 'eps', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'epub', 'mobi'],
  /** Stylesheets and scripts: page requisites, never pages. */
  asset: ['css', 'js', 'mjs', 'map'],
} as const;

/** The default list: every family of {@link EXTENSION_GROUPS}. */
export const DEFAULT_BLOCKED_EXTENSIONS: readonly string[] = Object.freeze(Object.values(EXTENSION_GROUPS).flat());

/** Options of {@link ExtensionFilter}. */
export interface ExtensionFilterOptions {
  /**
   * Extensions rejected, with or without the leading dot, any case. Default
   * {@link DEFAULT_BLOCKED_EXTENSIONS}; `[]` accepts everything.
   */
  readonly extensions?: readonly string[];
}

/** The lower-cased extension of the last path segment of `path`, or `''` when it has none. */
export function lastSegmentExtension(path: string): string {
  return extensionIn(path, 0, path.length);
}

/** {@link lastSegmentExtension} of the path `s.slice(start, end)`, without slicing it out first. */
function extensionIn(s: string, start: number, end: number): string {
  const lastSlash = s.lastIndexOf('/', end - 1);
  const segStart = lastSlash < start ? start : lastSlash + 1;
  const semi = s.indexOf(';', segStart);
  if (semi >= 0 && semi < end) end = semi;
  const dot = s.lastIndexOf('.', end - 1);
  // A dot that starts the segment names a hidden file (`/.well-known`), not an extension.
  if (dot <= segStart || dot === end - 1) return '';
  const ext = s.slice(dot + 1, end);
  return hasUpperCase(ext) ? ext.toLowerCase() : ext;
}

function hasUpperCase(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

/** Rejects, with reason `extension`, URLs whose last path segment ends in a listed extension. */
export class ExtensionFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly extensions: ReadonlySet<string>;

  constructor(options: ExtensionFilterOptions = {}) {
    const list = (options.extensions ?? DEFAULT_BLOCKED_EXTENSIONS).map((e) => e.replace(/^\./, '').toLowerCase());
    const issues: ConfigIssue[] = [];
    list.forEach((e, i) => {
      if (!/^[a-z0-9_+-]+$/.test(e))
        issues.push({ path: `extensions[${i}]`, message: `'${e}' is not a file extension (letters, digits, '_', '+', '-')` });
    });
    if (issues.length > 0) throw new ConfigError(issues);
    this.extensions = new Set(list);
    this.spec = Object.freeze({ id: 'extension', params: Object.freeze({ extensions: Object.freeze([...this.extensions]) }) });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    if (this.extensions.size === 0) return ACCEPTED;
    const url = candidate.url;
    // The path ends at the query; a normalized URL has no fragment and no '?' before its path.
    const authority = url.indexOf('//');
    const pathStart = url.indexOf('/', authority < 0 ? 0 : authority + 2);
    if (pathStart < 0) return ACCEPTED;
    const query = url.indexOf('?', pathStart);
    const ext = extensionIn(url, pathStart, query < 0 ? url.length : query);
    return ext !== '' && this.extensions.has(ext) ? rejected(RejectReason.extension) : ACCEPTED;
  }
}
