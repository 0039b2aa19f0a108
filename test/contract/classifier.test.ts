/**
 * The Classifier contract (src/classify/classifier.ts), run against every classifier shoal builds:
 * Naive Bayes trained here, and the same model read back from its file. Categories fixed and
 * distinct; answers inside them, probabilities a distribution whose argmax is the category; term
 * counts as `countTerms` gives them; deterministic in any call order; odd input never throws.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Classifier } from '../../src/classify/classifier.js';
import { decodeModelFile, encodeModelFile } from '../../src/classify/model-file.js';
import { NaiveBayesClassifier, Priors } from '../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../src/classify/naive-bayes-trainer.js';
import { countTerms } from '../../src/classify/terms.js';
import { topicCorpus } from '../helpers/topic-corpus.js';

const corpus = topicCorpus({ perCategory: 25 });

const CLASSIFIERS: readonly [string, () => Classifier][] = [
  ['naive-bayes', () => new NaiveBayesClassifier(trainNaiveBayes(corpus))],
  [
    'naive-bayes with document priors, no calibration',
    () => new NaiveBayesClassifier(trainNaiveBayes(corpus, { priors: Priors.documents, calibrationShare: 0 })),
  ],
  [
    'naive-bayes read from its gzip file',
    () => new NaiveBayesClassifier(decodeModelFile(encodeModelFile(trainNaiveBayes(corpus), {}, true)).model),
  ],
];

const ODD = [
  { title: '', text: '' },
  { title: '\u0000', text: '\ud800\udc00\uffff' },
  { title: 'x'.repeat(100_000), text: '1 2 3 4 5' },
  { title: '', text: 'café naïve 東京 Москва العربية '.repeat(200) },
  { title: '<script>', text: '<p>&amp;</p>'.repeat(1000) },
];

for (const [name, build] of CLASSIFIERS) {
  describe(`Classifier contract: ${name}`, () => {
    const classifier = build();
    const docs = [...corpus.slice(0, 20), ...ODD];

    test('categories are fixed, non-empty and distinct', () => {
      const c = classifier.categories;
      assert.ok(c.length > 0);
      assert.equal(new Set(c).size, c.length);
      assert.ok(c.every((x) => typeof x === 'string' && x !== ''));
      assert.ok(Object.isFrozen(c));
    });

    test('answers are categories of the classifier, with a probability distribution whose argmax they are', () => {
      for (const d of docs) {
        const r = classifier.classify(d);
        assert.equal(classifier.categories[r.index], r.category);
        assert.equal(r.probabilities.length, classifier.categories.length);
        let sum = 0;
        for (const p of r.probabilities) {
          assert.ok(p >= 0 && p <= 1);
          sum += p;
        }
        assert.ok(Math.abs(sum - 1) < 1e-9);
        assert.equal(r.probability, r.probabilities[r.index]);
        assert.ok(r.probabilities.every((p) => p <= r.probability));
        assert.equal(r.probabilities.indexOf(r.probability), r.index, 'the first category of the highest probability');
      }
    });

    test('terms are the body terms countTerms finds; known never exceeds title and body terms', () => {
      for (const d of docs) {
        const r = classifier.classify(d);
        assert.equal(r.terms, countTerms(d.text, classifier.termOptions));
        assert.ok(r.known <= r.terms + countTerms(d.title, classifier.termOptions));
      }
    });

    test('a document with no known term gets the same answer as an empty one', () => {
      const empty = classifier.classify({ title: '', text: '' });
      const unknown = classifier.classify({ title: 'zzqx', text: 'qqzv wwxj' });
      assert.equal(unknown.known, 0);
      assert.deepEqual([...unknown.probabilities], [...empty.probabilities]);
    });

    test('is deterministic in any order of calls', () => {
      const forward = docs.map((d) => classifier.classify(d));
      const backward = [...docs]
        .reverse()
        .map((d) => classifier.classify(d))
        .reverse();
      assert.deepEqual(backward, forward);
      assert.deepEqual(build().classify(docs[0]!), forward[0]);
    });

    test('learned something: most training documents get their label', () => {
      const right = corpus.filter((d) => classifier.classify(d).category === d.label).length;
      assert.ok(right / corpus.length > 0.9, `${right} of ${corpus.length}`);
    });

    test('spec names the classifier and its model exactly', () => {
      assert.ok(classifier.spec.id.length > 0);
      assert.match(String(classifier.spec.params.digest), /^[0-9a-f]{64}$/);
    });
  });
}
