/**
 * k-fold cross-validation of Naive Bayes training (`shoal train --evaluate`): the documents are
 * dealt to k folds label by label, round robin in their order (stratified and deterministic), a
 * model is trained on k − 1 folds and classifies the held-out one, and the predictions of all k
 * rounds are scored together against their labels.
 */
import { classifierAccuracy, type ClassifierAccuracy } from '../eval/classifier-accuracy.js';
import { NaiveBayesClassifier } from '../classify/naive-bayes.js';
import {
  categoriesOf,
  trainNaiveBayes,
  TrainingError,
  type LabelledDocument,
  type TrainingOptions,
} from '../classify/naive-bayes-trainer.js';

/** The fold of each document: per label, round robin. */
export function foldsOf(docs: readonly LabelledDocument[], k: number): Uint16Array {
  const next = new Map<string, number>();
  return Uint16Array.from(docs, (d) => {
    const i = next.get(d.label) ?? 0;
    next.set(d.label, i + 1);
    return i % k;
  });
}

/** Accuracy over k folds; throws {@link TrainingError} for k < 2 or too few documents. */
export function crossValidate(docs: readonly LabelledDocument[], k: number, options: Partial<TrainingOptions> = {}): ClassifierAccuracy {
  if (!Number.isInteger(k) || k < 2) throw new TrainingError(`--folds must be an integer >= 2, got ${k}`);
  if (docs.length < k) throw new TrainingError(`${docs.length} documents cannot make ${k} folds`);
  const categories = categoriesOf(docs);
  const folds = foldsOf(docs, k);
  const predicted = new Array<string>(docs.length);
  for (let f = 0; f < k; f++) {
    const train = docs.filter((_, i) => folds[i] !== f);
    const classifier = new NaiveBayesClassifier(trainNaiveBayes(train, options, categories));
    docs.forEach((d, i) => {
      if (folds[i] === f) predicted[i] = classifier.classify(d).category;
    });
  }
  return classifierAccuracy(
    docs.map((d) => d.label),
    predicted,
    categories,
  );
}
