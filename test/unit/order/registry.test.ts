/**
 * The ordering-policy registry (src/order/registry.ts): defaults filled in, every option documented,
 * the parameters of a section reaching the policy's spec, and models passed to the policies.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import { listFields } from '../../../src/config/describe.js';
import { ORDER_POLICY_IDS, orderingPolicyFrom, orderPolicySchema } from '../../../src/order/registry.js';
import { SimilarityPolicy } from '../../../src/order/similarity.js';

describe('order registry', () => {
  test('one schema member per id, in the documented order', () => {
    const ids = orderPolicySchema.options.map((o) => (o.shape.policy as z.ZodLiteral<string>).value);
    assert.deepEqual(ids, [...ORDER_POLICY_IDS]);
  });

  test('every option is documented; counts carry a unit', () => {
    for (const member of orderPolicySchema.options) {
      for (const field of listFields(member)) {
        assert.ok(field.doc.length > 10, `${field.path} has no documentation`);
        if (field.type === 'integer' && field.path !== 'seed') assert.ok(field.unit !== undefined, `${field.path} has no unit`);
      }
    }
  });

  test('defaults are filled in and reach the policy spec', () => {
    const config = orderPolicySchema.parse({ policy: 'pagerank', recomputeEvery: 250 });
    assert.deepEqual(config, {
      policy: 'pagerank',
      damping: 0.9,
      recomputeEvery: 250,
      recomputeGrowth: 0.1,
      tolerance: 1e-4,
      maxIterations: 3,
      sliceWork: 2_000_000,
      minChange: 0.01,
    });
    assert.deepEqual(orderingPolicyFrom(config).spec, {
      id: 'pagerank',
      params: {
        damping: 0.9,
        recomputeEvery: 250,
        recomputeGrowth: 0.1,
        tolerance: 1e-4,
        maxIterations: 3,
        sliceWork: 2_000_000,
        minChange: 0.01,
      },
    });
    const hot = orderingPolicyFrom(orderPolicySchema.parse({ policy: 'hot-queue', terms: ['computer'] }));
    assert.deepEqual(hot.spec.params, { terms: ['computer'], hotDistance: 3, titleMin: 1, bodyMin: 10 });
    const location = orderingPolicyFrom(orderPolicySchema.parse({ policy: 'location', keywordWeights: { home: 2 } }));
    assert.deepEqual(location.spec.params, { slashWeight: -1, suffixWeights: ['com=1'], keywordWeights: ['home=2'] });
  });

  test('a reference idf table reaches the similarity policy through the models', () => {
    const config = orderPolicySchema.parse({ policy: 'similarity', query: 'computer', idfSource: 'reference' });
    const policy = orderingPolicyFrom(config, { idf: new Map([['computer', 7]]) });
    assert.ok(policy instanceof SimilarityPolicy);
    assert.equal(policy.idf('computer'), 7);
  });

  test('a combination builds its components from their sections', () => {
    const policy = orderingPolicyFrom(
      orderPolicySchema.parse({
        policy: 'weighted',
        components: [
          { policy: { policy: 'backlink' }, weight: 2 },
          { policy: { policy: 'random', seed: 5 }, weight: 0.5 },
        ],
      }),
    );
    assert.deepEqual(
      (policy.spec.params.components as readonly string[]).map((c) => JSON.parse(c) as unknown),
      [
        { weight: 2, id: 'backlink', params: {} },
        { weight: 0.5, id: 'random', params: { seed: 5 } },
      ],
    );
    const p = policy.prioritize({ id: 0, url: '', depth: 0 });
    assert.ok(p >= 0 && p < 0.5, `2 · 0 backlinks + 0.5 · a draw in [0, 1): ${p}`);
  });
});
