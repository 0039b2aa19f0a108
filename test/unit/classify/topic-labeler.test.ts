import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NaiveBayesClassifier } from '../../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../../src/classify/naive-bayes-trainer.js';
import { TopicLabeler, TopicReason } from '../../../src/classify/topic-labeler.js';
import { topicCorpus } from '../../helpers/topic-corpus.js';

const classifier = new NaiveBayesClassifier(trainNaiveBayes(topicCorpus({ perCategory: 30 })));
const sports = topicCorpus({ categories: ['SPORTS'], perCategory: 1, words: 80, seed: 11 })[0]!;
const words = (n: number): string => sports.text.split(' ').slice(0, n).join(' ');

describe('TopicLabeler (the X4 pipeline)', () => {
  test('a page of fewer than 50 terms is unclassifiable and gets the configured default', () => {
    assert.deepEqual(new TopicLabeler(classifier).label({ title: 'x', text: words(49), language: 'en' }), {
      category: null,
      probability: null,
      reason: TopicReason.unclassifiable,
    });
    const withDefault = new TopicLabeler(classifier, { unclassifiableCategory: 'REFERENCE' });
    assert.equal(withDefault.label({ title: '', text: words(49), language: 'de' }).category, 'REFERENCE');
    assert.equal(withDefault.label({ title: '', text: words(50), language: 'en' }).reason, TopicReason.classifier);
  });

  test('a page in another language goes to WORLD, or to its language category', () => {
    const labeler = new TopicLabeler(classifier, { languageCategories: { fr: 'FRENCH' } });
    assert.deepEqual(labeler.label({ title: '', text: words(80), language: 'de' }), {
      category: 'WORLD',
      probability: null,
      reason: TopicReason.language,
    });
    assert.equal(labeler.label({ title: '', text: words(80), language: 'fr' }).category, 'FRENCH');
    assert.deepEqual(labeler.labels, ['ARTS', 'COMPUTERS', 'HEALTH', 'SPORTS', 'WORLD', 'FRENCH']);
  });

  test('English and unknown languages go to the classifier, with its probability', () => {
    const labeler = new TopicLabeler(classifier);
    for (const language of ['en', '']) {
      const l = labeler.label({ title: '', text: words(80), language });
      assert.equal(l.reason, TopicReason.classifier);
      assert.equal(l.category, 'SPORTS');
      assert.ok(l.probability !== null && l.probability > 0.25 && l.probability <= 1);
    }
  });

  test('with otherLanguageCategory null every language is classified', () => {
    const labeler = new TopicLabeler(classifier, { otherLanguageCategory: null });
    assert.equal(labeler.label({ title: '', text: words(80), language: 'de' }).reason, TopicReason.classifier);
    assert.deepEqual(labeler.labels, ['ARTS', 'COMPUTERS', 'HEALTH', 'SPORTS']);
  });
});
