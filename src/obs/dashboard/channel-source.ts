/**
 * Feeds a {@link DashboardAggregator} from this process's diagnostics channels (src/obs/events.ts):
 * every node crawling here publishes on them, and an embedded collaborative crawl adds its crawl-wide
 * events and relays those of its worker threads. Listening costs the crawl nothing it would not pay
 * anyway (CONVENTIONS §7): the core does not know the dashboard exists.
 */
import { channel } from 'node:diagnostics_channel';
import type { CrawlLogRecord } from '../../store/records.js';
import { CrawlChannel, type CrawlProgress, type CrawlStarted } from '../events.js';
import type { DashboardAggregator } from './dashboard-aggregator.js';

/** Subscribes `aggregator` to the channels; returns the function that unsubscribes it. */
export function listenToChannels(aggregator: DashboardAggregator, now: () => number): () => void {
  const onProgress = (m: unknown): void => aggregator.progress(m as CrawlProgress, now());
  const onFetch = (m: unknown): void => aggregator.fetch(m as CrawlLogRecord);
  const onStarted = (m: unknown): void => aggregator.started(m as CrawlStarted);
  const progress = channel(CrawlChannel.progress);
  const fetch = channel(CrawlChannel.fetch);
  const started = channel(CrawlChannel.started);
  progress.subscribe(onProgress);
  fetch.subscribe(onFetch);
  started.subscribe(onStarted);
  return () => {
    progress.unsubscribe(onProgress);
    fetch.unsubscribe(onFetch);
    started.unsubscribe(onStarted);
  };
}
