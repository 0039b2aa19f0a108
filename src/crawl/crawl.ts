/**
 * `new Crawl(config).run()`: one local crawler as a library call (SPEC §7). The configuration is
 * validated at construction (every problem listed with its path, as a ConfigError); `run` builds the
 * node (or, with `cluster.nodes` > 1, the nodes of an embedded collaborative crawl: src/cluster/),
 * crawls until the frontier is empty, `limits.maxPages` is reached or the signal aborts, closes
 * every store, and resolves to a {@link CrawlSummary}. Progress goes out on `shoal:crawl:progress`,
 * each URL's result on `shoal:crawl:fetch`.
 *
 * ```ts
 * import { Crawl } from 'shoal';
 * const summary = await new Crawl({ seeds: { urls: ['https://example.org/'] }, store: { outDir: 'crawl' } }).run();
 * ```
 */
import { EmbeddedCluster } from '../cluster/embedded-cluster.js';
import { validateConfig } from '../config/load.js';
import type { PartitionModels } from '../partition/registry.js';
import { buildNode, type NodeComponents, type NodeDeps } from '../node/build-node.js';
import { crawlConfigSchema, type CrawlConfig, type CrawlConfigInput } from '../config/crawl-config.js';
import type { CrawlSummary } from '../node/crawl-stats.js';

/** Options of {@link Crawl} besides the configuration. */
export interface CrawlOptions {
  /** Clock, log and events (defaults: system clock, `<out>/logs/node.jsonl`, diagnostics channels). */
  readonly deps?: Partial<NodeDeps>;
  /**
   * Components replacing the ones the configuration builds (fetcher, frontier, seen set, filter,
   * stores). In a collaborative crawl (`cluster.nodes` > 1) only the analyzer is used, shared by the nodes.
   * The bodies a fetcher returns become the crawl's, which gives their memory back (`FetchOk`).
   */
  readonly components?: NodeComponents;
  /** Models the partitioning strategy reads (the true topic labels of `truth-topic`). */
  readonly models?: PartitionModels;
}

/** One crawl; see the file comment. `run` may be called once. */
export class Crawl {
  /** The validated configuration, every default filled in. */
  readonly config: CrawlConfig;
  private isStarted = false;

  /** @throws ConfigError listing every invalid option. */
  constructor(
    config: CrawlConfigInput | CrawlConfig,
    private readonly options: CrawlOptions = {},
  ) {
    this.config = validateConfig(crawlConfigSchema, config);
  }

  /**
   * Crawls and resolves to the summary once everything is flushed and closed. Aborting `signal`
   * (Ctrl-C) stops cleanly: no new fetches, fetches in flight abandoned, stores flushed; the summary's
   * `stopReason` is then `interrupted`.
   * @throws ConfigError (bad seeds, unreadable files), ShoalError `IO` (crawl directory locked or
   *   not writable, storage failure).
   */
  async run(signal: AbortSignal = new AbortController().signal): Promise<CrawlSummary> {
    if (this.isStarted) throw new Error('Crawl.run() may be called once; make a new Crawl to crawl again');
    this.isStarted = true;
    if (this.config.cluster.nodes > 1) {
      const analyzer = this.options.components?.analyzer;
      return new EmbeddedCluster(this.config, {
        ...(this.options.deps === undefined ? {} : { deps: this.options.deps }),
        ...(analyzer === undefined ? {} : { components: { analyzer } }),
        ...(this.options.models === undefined ? {} : { models: this.options.models }),
      }).run(signal);
    }
    const node = buildNode(this.config, this.options.deps, this.options.components);
    return node.run(signal);
  }
}
