/** What moves a URL towards the frontier: admission takes it from seeds, pages, redirects, sitemaps and other nodes. */

/** A normalized URL on its way to the frontier. */
export interface Candidate {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Its host name without port, as normalization returned it. */
  readonly hostname: string;
  readonly depth: number;
  readonly fromUrl: string | null;
  /** Dense id of the page it was found on (`url/url-ids.ts`), when the node numbers URLs for its ordering policy. */
  readonly fromId?: number;
  /** Dense id of the URL itself, when the node numbers URLs and the page processor has looked it up already. */
  readonly id?: number;
  /**
   * The URL's fingerprint (`url/fingerprint.ts`) as two unsigned 32-bit words, when the caller has
   * computed it (the page processor, once per link): admission then does not hash the URL again.
   * Both or neither.
   */
  readonly fingerprintHi?: number;
  readonly fingerprintLo?: number;
  readonly anchorText?: string;
  /** The words before and after the anchor on the page (extended anchor text), for strategies that read them. */
  readonly anchorBefore?: string;
  readonly anchorAfter?: string;
  /**
   * A sitemap to read (its URLs become seeds), not a page. Sitemaps come from the user or from
   * robots.txt, not from links: the URL filter does not judge them (the URLs they list meet it).
   */
  readonly isSitemap?: boolean;
}
