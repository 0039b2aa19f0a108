/**
 * Running counts of messages by kind for {@link ExchangeStats}: what a node sent and received, with
 * the URLs, pages, link counts and SimHash fingerprints they carried and their encoded size — the exact communication
 * overhead SPEC §4.5 asks to count.
 */
import type { MessageCounts } from './exchange.js';
import type { ExchangeMessage, OutgoingMessage } from './messages.js';

/** Mutable counts, read as an immutable {@link MessageCounts} snapshot. */
export class MessageCounter {
  private messages = 0;
  private bytes = 0;
  private urlBatches = 0;
  private urls = 0;
  private pages = 0;
  private pageBytes = 0;
  private linkSummaries = 0;
  private linkCounts = 0;
  private linkSummaryBytes = 0;
  private simhashBatches = 0;
  private simhashes = 0;
  private simhashBytes = 0;
  private controls = 0;

  /** Counts one message of `encodedBytes` bytes. */
  add(message: ExchangeMessage | OutgoingMessage, encodedBytes: number): void {
    this.messages++;
    this.bytes += encodedBytes;
    switch (message.kind) {
      case 'urls':
        this.urlBatches++;
        this.urls += message.urls.length;
        break;
      case 'page':
        this.pages++;
        this.pageBytes += encodedBytes;
        break;
      case 'links':
        this.linkSummaries++;
        this.linkCounts += message.counts.length;
        this.linkSummaryBytes += encodedBytes;
        break;
      case 'simhashes':
        this.simhashBatches++;
        this.simhashes += message.urls.length;
        this.simhashBytes += encodedBytes;
        break;
      case 'control':
        this.controls++;
        break;
    }
  }

  snapshot(): MessageCounts {
    return {
      messages: this.messages,
      bytes: this.bytes,
      urlBatches: this.urlBatches,
      urls: this.urls,
      pages: this.pages,
      pageBytes: this.pageBytes,
      linkSummaries: this.linkSummaries,
      linkCounts: this.linkCounts,
      linkSummaryBytes: this.linkSummaryBytes,
      simhashBatches: this.simhashBatches,
      simhashes: this.simhashes,
      simhashBytes: this.simhashBytes,
      controls: this.controls,
    };
  }
}
