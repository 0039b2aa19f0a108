import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NaiveBayesClassifier, Priors, type NaiveBayesModel } from '../../../src/classify/naive-bayes.js';
import { trainNaiveBayes, TrainingError } from '../../../src/classify/naive-bayes-trainer.js';
import { DEFAULT_TERM_OPTIONS, termId } from '../../../src/classify/terms.js';
import { topicCorpus } from '../../helpers/topic-corpus.js';

/** A two-category model written by hand: "goal" is SPORTS, "code" COMPUTERS, "the" both. */
function handModel(overrides: Partial<NaiveBayesModel> = {}): NaiveBayesModel {
  const words = ['goal', 'code', 'the'].map((w) => termId(w, DEFAULT_TERM_OPTIONS) as number);
  const order = [...words.keys()].sort((a, b) => (words[a] as number) - (words[b] as number));
  const rows: Record<number, [number, number]> = { 0: [0, 9], 1: [9, 0], 2: [5, 5] }; // [COMPUTERS, SPORTS]
  return {
    categories: ['COMPUTERS', 'SPORTS'],
    termOptions: DEFAULT_TERM_OPTIONS,
    titleWeight: 3,
    smoothing: 1,
    priors: Priors.uniform,
    temperature: 1,
    features: Uint32Array.from(order.map((i) => words[i] as number)),
    weights: new Float32Array(3).fill(1),
    counts: Float32Array.from(order.flatMap((i) => rows[i] as [number, number])),
    documents: [3, 3],
    ...overrides,
  };
}

describe('NaiveBayesClassifier', () => {
  test('computes log P(c) + Σ log P(t|c) with Laplace smoothing', () => {
    const nb = new NaiveBayesClassifier(handModel());
    const scores = new Float64Array(2);
    nb.score({ title: '', text: 'goal goal code' }, scores);
    // N(c) = 14 for both; V = 3; P(goal|SPORTS) = 10/17, P(code|SPORTS) = 1/17.
    const sports = Math.log(0.5) + 2 * Math.log(10 / 17) + Math.log(1 / 17);
    const computers = Math.log(0.5) + 2 * Math.log(1 / 17) + Math.log(10 / 17);
    assert.ok(Math.abs((scores[1] as number) - sports) < 1e-9);
    assert.ok(Math.abs((scores[0] as number) - computers) < 1e-9);
    const c = nb.classify({ title: '', text: 'goal goal code' });
    assert.equal(c.category, 'SPORTS');
    assert.equal(c.terms, 3);
    assert.equal(c.known, 3);
    assert.ok(Math.abs(c.probability - 1 / (1 + Math.exp(computers - sports))) < 1e-9);
  });

  test('weights title terms by titleWeight', () => {
    const nb = new NaiveBayesClassifier(handModel());
    // Body: code, code (COMPUTERS); title: goal ×3 outweighs it.
    assert.equal(nb.classify({ title: 'goal', text: 'code code' }).category, 'SPORTS');
    assert.equal(
      new NaiveBayesClassifier(handModel({ titleWeight: 1 })).classify({ title: 'goal', text: 'code code' }).category,
      'COMPUTERS',
    );
    assert.equal(nb.classify({ title: 'goal', text: 'code code' }).terms, 2, 'terms counts the body only');
  });

  test('a document with no known term gets the prior; the first category wins a tie', () => {
    const nb = new NaiveBayesClassifier(handModel());
    const c = nb.classify({ title: '', text: 'unknown words only' });
    assert.equal(c.known, 0);
    assert.deepEqual([...c.probabilities], [0.5, 0.5]);
    assert.equal(c.category, 'COMPUTERS');
    const skewed = new NaiveBayesClassifier(handModel({ priors: Priors.documents, documents: [1, 8] })).classify({ title: '', text: '' });
    assert.equal(skewed.category, 'SPORTS');
  });

  test('the temperature softens the posterior without changing the category', () => {
    const cold = new NaiveBayesClassifier(handModel()).classify({ title: '', text: 'goal goal goal code' });
    const warm = new NaiveBayesClassifier(handModel({ temperature: 8 })).classify({ title: '', text: 'goal goal goal code' });
    assert.equal(cold.category, warm.category);
    assert.ok(warm.probability < cold.probability && warm.probability > 0.5);
  });

  test('refuses inconsistent models', () => {
    assert.throws(() => new NaiveBayesClassifier(handModel({ counts: new Float32Array(5) })), /counts hold 5 values/);
    assert.throws(() => new NaiveBayesClassifier(handModel({ categories: ['A', 'A'] })), /distinct/);
    assert.throws(() => new NaiveBayesClassifier(handModel({ features: Uint32Array.from([3, 2, 1]) })), /ascending/);
    assert.throws(() => new NaiveBayesClassifier(handModel({ temperature: 0.5 })), /temperature/);
    assert.throws(() => new NaiveBayesClassifier(handModel({ counts: Float32Array.from([1, 1, -1, 1, 1, 1]) })), /non-negative/);
  });
});

describe('trainNaiveBayes', () => {
  const corpus = topicCorpus({ perCategory: 60 });
  const train = corpus.filter((_, i) => i % 5 !== 0);
  const test_ = corpus.filter((_, i) => i % 5 === 0);

  test('learns the test web vocabularies: > 90 % of held-out documents right', () => {
    const nb = new NaiveBayesClassifier(trainNaiveBayes(train));
    const right = test_.filter((d) => nb.classify(d).category === d.label).length;
    assert.ok(right / test_.length > 0.9, `${right} of ${test_.length}`);
    assert.deepEqual(nb.categories, ['ARTS', 'COMPUTERS', 'HEALTH', 'SPORTS']);
  });

  test('is deterministic: the same documents give the same model digest', () => {
    const a = new NaiveBayesClassifier(trainNaiveBayes(train));
    const b = new NaiveBayesClassifier(trainNaiveBayes([...train]));
    assert.equal(a.digest, b.digest);
    assert.notEqual(a.digest, new NaiveBayesClassifier(trainNaiveBayes(train.slice(1))).digest);
  });

  test('fits a temperature >= 1 that makes the held-out posterior less sure than the raw one', () => {
    const calibrated = trainNaiveBayes(train);
    assert.ok(calibrated.temperature > 1, `temperature ${calibrated.temperature}`);
    assert.equal(trainNaiveBayes(train, { calibrationShare: 0 }).temperature, 1);
  });

  test('keeps at most maxFeatures, the most frequent, and only terms seen minCount times', () => {
    const m = trainNaiveBayes(train, { maxFeatures: 50, calibrationShare: 0 });
    assert.equal(m.features.length, 50);
    const all = trainNaiveBayes(train, { minCount: 1, calibrationShare: 0 });
    const twice = trainNaiveBayes(train, { minCount: 2, calibrationShare: 0 });
    assert.ok(all.features.length > twice.features.length);
  });

  test('leaves stop words out of the model, and weights terms by idf unless told not to', () => {
    const docs = [
      { label: 'A', title: '', text: 'the goal the goal the match' },
      { label: 'B', title: '', text: 'the code the code the build' },
      { label: 'A', title: '', text: 'the goal striker' },
    ];
    const m = trainNaiveBayes(docs, { minCount: 1, calibrationShare: 0 });
    const ids = new Set(m.features);
    assert.ok(!ids.has(termId('the', DEFAULT_TERM_OPTIONS) as number));
    assert.ok(ids.has(termId('goal', DEFAULT_TERM_OPTIONS) as number));
    const weightOf = (w: string): number => m.weights[m.features.indexOf(termId(w, DEFAULT_TERM_OPTIONS) as number)] as number;
    assert.ok(Math.abs(weightOf('goal') - Math.log(4 / 2)) < 1e-6, 'goal is in 2 of 3 documents');
    assert.ok(Math.abs(weightOf('code') - Math.log(4 / 1)) < 1e-6);
    const plain = trainNaiveBayes(docs, { minCount: 1, calibrationShare: 0, termWeighting: 'none', stopWords: [] });
    assert.ok(plain.weights.every((w) => w === 1));
    assert.ok(new Set(plain.features).has(termId('the', DEFAULT_TERM_OPTIONS) as number));
  });

  test('refuses input that cannot make a model', () => {
    assert.throws(() => trainNaiveBayes([]), TrainingError);
    assert.throws(() => trainNaiveBayes([{ label: 'A', title: '', text: 'x' }]), /at least two labels/);
    assert.throws(() => trainNaiveBayes(train, {}, ['ARTS', 'SPORTS']), /not one of the categories/);
  });
});
