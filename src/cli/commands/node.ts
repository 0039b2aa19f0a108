/**
 * `shoal node --nats URL --crawl ID [--partitions 0,3] --out DIR [crawl options]`: one node of a
 * distributed collaborative crawl (src/cluster/distributed-node.ts). Run it on any machine that
 * reaches the NATS server; every node of the crawl gives the same `--crawl`, `--nodes` (the partition
 * count) and `--partition`. The same command on the same directory resumes the node. Exit codes as
 * `shoal crawl`.
 */
import type { Command } from 'commander';
import { setPath } from '../../config/load.js';
import { DistributedNode } from '../../cluster/distributed-node.js';
import { crawlConfigFromFlags, crawlOptions, runCrawl, type CrawlFlags } from './crawl.js';
import { collect } from '../format.js';
import type { CliIo } from '../cli-io.js';

interface NodeFlags extends CrawlFlags {
  nats: string[];
  crawl?: string;
  partitions?: string;
  nodeId?: string;
}

export function registerNodeCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  crawlOptions(
    program.command('node').description('join a distributed crawl over NATS JetStream as one node (own crawl directory, own partitions)'),
  )
    .option(
      '--nats <url>',
      'NATS server with JetStream, e.g. nats://10.0.0.5:4222 (repeatable; credentials and TLS: cluster.nats.* options)',
      collect,
      [],
    )
    .option('--crawl <id>', 'the crawl to join (letters, digits, _ or -)')
    .option('--partitions <list>', 'partitions this node owns, e.g. 0,3 (default: those it owned before in --out, else the first free one)')
    .option('--nodes <n>', 'partitions of the crawl (the same on every node)')
    .option('--node-id <id>', 'this node’s name (default: the one it had before in --out, else host-pid)')
    .action(async (opts: NodeFlags) => {
      const config = crawlConfigFromFlags(opts, io.env, (tree, problems) => {
        if (opts.nats.length > 0) setPath(tree, 'cluster.nats.servers', opts.nats);
        if (opts.crawl !== undefined) setPath(tree, 'cluster.nats.crawlId', opts.crawl);
        if (opts.nodeId !== undefined) setPath(tree, 'nodeId', opts.nodeId);
        if (opts.partitions !== undefined) {
          const list = opts.partitions.split(',').map((x) => x.trim());
          if (list.some((x) => !/^\d+$/.test(x)))
            problems.push({ path: '--partitions', message: `expected partition numbers like 0,3, got ${JSON.stringify(opts.partitions)}` });
          else setPath(tree, 'cluster.nats.partitions', list.map(Number));
        }
      });
      const node = new DistributedNode(config);
      await runCrawl(
        io,
        setCode,
        'node',
        config,
        () => true,
        (signal) => node.run(signal),
      );
    });
}
