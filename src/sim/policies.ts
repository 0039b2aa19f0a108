/**
 * The ordering policies a simulation compares, built by the crawl's registry (`src/order/registry.ts`)
 * from the same configuration sections, so each run uses exactly the code a crawl would. Each node
 * of a run gets a fresh policy object.
 *
 * The `order` section of a simulation is a list of policy sections `{ policy: <id>, ...params }`; on
 * the command line `--order bfs,backlink,pagerank(recomputeEvery=10000),random` (parameters in
 * parentheses, as a legend writes them).
 */
import { ConfigError } from '../core/errors.js';
import { parseScalar } from '../config/load.js';
import type { OrderingPolicy } from '../order/policy.js';
import { orderingPolicyFrom, type OrderModels, type OrderPolicyConfig } from '../order/registry.js';

/** Fresh policy objects for one entry of the `order` list, with what they read and their spec. */
export interface PolicyFactory {
  /** A policy object no one else holds. */
  (): OrderingPolicy;
  readonly spec: OrderingPolicy['spec'];
  readonly needs: OrderingPolicy['needs'];
}

/**
 * A factory of fresh policy objects for the `index`-th entry of the `order` list (the registry's
 * `orderingPolicyFrom`). Builds one at once, so that bad parameters fail before any run, as a
 * `ConfigError` at `order.<index>.<option>`, and so that its spec and needs can be read; that object
 * is the one the first call returns.
 */
export function policyFactory(config: OrderPolicyConfig, index: number, models: OrderModels = {}): PolicyFactory {
  let first: OrderingPolicy | null;
  try {
    first = orderingPolicyFrom(config, models);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new ConfigError(
        err.issues.map((i) => ({ path: i.path.replace(/^order(?=\.|$)/, `order.${index}`), message: i.message })),
        { cause: err },
      );
    }
    throw err;
  }
  const { spec, needs } = first;
  const make = (): OrderingPolicy => {
    const policy = first ?? orderingPolicyFrom(config, models);
    first = null;
    return policy;
  };
  return Object.assign(make, { spec, needs });
}

/**
 * Parses `--order`: policies separated by commas, each `id` or `id(key=value, ...)`; values read as
 * YAML scalars (numbers, booleans, strings).
 * @throws ConfigError (USAGE) on unbalanced parentheses or a parameter without `=`.
 */
export function parseOrderList(text: string): Record<string, unknown>[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if (depth < 0) throw new ConfigError([{ path: '--order', message: `unbalanced ")" in ${JSON.stringify(text)}` }], { code: 'USAGE' });
    if ((c === ',' && depth === 0) || i === text.length) {
      items.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (depth !== 0) throw new ConfigError([{ path: '--order', message: `unbalanced "(" in ${JSON.stringify(text)}` }], { code: 'USAGE' });
  return items
    .filter((s) => s !== '')
    .map((item) => {
      const open = item.indexOf('(');
      if (open < 0) return { policy: item };
      if (!item.endsWith(')'))
        throw new ConfigError([{ path: '--order', message: `expected id(key=value, ...), got ${JSON.stringify(item)}` }], {
          code: 'USAGE',
        });
      const entry: Record<string, unknown> = { policy: item.slice(0, open).trim() };
      for (const pair of item
        .slice(open + 1, -1)
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')) {
        const eq = pair.indexOf('=');
        if (eq <= 0)
          throw new ConfigError(
            [{ path: '--order', message: `expected key=value in ${JSON.stringify(item)}, got ${JSON.stringify(pair)}` }],
            { code: 'USAGE' },
          );
        entry[pair.slice(0, eq).trim()] = parseScalar(pair.slice(eq + 1).trim());
      }
      return entry;
    });
}
