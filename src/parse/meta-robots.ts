/**
 * Meta robots directives (SPEC §2 item 9): the tokens of a `<meta name="robots">` `content` (or of
 * an X-Robots-Tag header value) and the combined summary the parser reports on a page.
 *
 * Apart from html-page.ts because it is a vocabulary of its own, needed wherever robots directives
 * are read (a header as well as a tag), and keeps the parser's file under the size limit.
 */

/** Directives of the meta robots tags that apply to shoal (combined). */
export interface MetaRobots {
  readonly isNoindex: boolean;
  readonly isNofollow: boolean;
  readonly isNoarchive: boolean;
  readonly isNosnippet: boolean;
  /** Every directive token found, lowercase, once each. */
  readonly directives: readonly string[];
}

/** The directive tokens of a robots meta `content` (or an X-Robots-Tag value): lowercase, split on commas and spaces. */
export function parseRobotsDirectives(content: string): string[] {
  return content
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((t) => t !== '');
}

/** Directives a page has, mostly: up to this many are made unique without a Set (quadratic, so only a few). */
const FEW = 16;

/** The meta robots summary of a set of directive tokens (`none` means noindex and nofollow). */
export function metaRobotsOf(directives: Iterable<string>): MetaRobots {
  const all = Array.isArray(directives) && directives.length <= FEW ? unique(directives as readonly string[]) : [...new Set(directives)];
  const has = (d: string): boolean => all.includes(d);
  return {
    isNoindex: has('noindex') || has('none'),
    isNofollow: has('nofollow') || has('none'),
    isNoarchive: has('noarchive'),
    isNosnippet: has('nosnippet'),
    directives: all,
  };
}

/** The distinct tokens of `tokens` in order of first appearance, as a Set keeps them. */
function unique(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
