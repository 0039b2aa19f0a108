import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { orderPolicySchema } from '../../../src/order/registry.js';
import { parseOrderList, policyFactory } from '../../../src/sim/policies.js';
import { policyLabel } from '../../../src/sim/run-simulation.js';

describe('--order', () => {
  it('reads ids and parenthesized parameters', () => {
    assert.deepEqual(parseOrderList('bfs, pagerank(recomputeEvery=10000, damping=0.85),random(seed=3)'), [
      { policy: 'bfs' },
      { policy: 'pagerank', recomputeEvery: 10000, damping: 0.85 },
      { policy: 'random', seed: 3 },
    ]);
  });

  it('reports unbalanced parentheses and parameters without =', () => {
    assert.throws(
      () => parseOrderList('pagerank(recomputeEvery=5'),
      (err: unknown) => err instanceof ConfigError && /unbalanced "\("/.test(err.message),
    );
    assert.throws(
      () => parseOrderList('random(seed)'),
      (err: unknown) => err instanceof ConfigError && /key=value/.test(err.message),
    );
  });
});

describe('policies of a simulation', () => {
  it('labels a policy by its id and the parameters that differ from their defaults', () => {
    assert.equal(policyLabel(orderPolicySchema.parse({ policy: 'bfs' })), 'bfs');
    assert.equal(policyLabel(orderPolicySchema.parse({ policy: 'pagerank', recomputeEvery: 10000 })), 'pagerank(recomputeEvery=10000)');
    // Required parameters are named, defaults left out.
    assert.equal(policyLabel(orderPolicySchema.parse({ policy: 'similarity', query: 'sport' })), 'similarity(query=sport)');
    assert.equal(
      policyLabel(orderPolicySchema.parse({ policy: 'hot-queue', terms: ['a', 'b'], hotDistance: 0 })),
      'hot-queue(hotDistance=0, terms=["a","b"])',
    );
  });

  it('builds a fresh policy object per call', () => {
    const make = policyFactory(orderPolicySchema.parse({ policy: 'backlink' }), 0);
    assert.notEqual(make(), make());
    assert.equal(make().spec.id, 'backlink');
  });

  it('reports a parameter a policy rejects at its place in the list', () => {
    const config = orderPolicySchema.parse({ policy: 'hot-queue', terms: ['two words'] });
    assert.throws(
      () => policyFactory(config, 2),
      (err: unknown) => err instanceof ConfigError && err.issues.some((i) => i.path.startsWith('order.2')),
    );
  });
});
