/**
 * Classifier accuracy (SPEC §5; seed 000 reports 60.7 % for X4's Naive Bayes on ODP pages): over
 * pairs (true label, predicted label),
 *
 *   accuracy       = right / pairs
 *   precision(c)   = right predictions of c / predictions of c
 *   recall(c)      = right predictions of c / pages truly c
 *   F1(c)          = 2·P·R / (P + R)
 *
 * and the confusion matrix, rows the true labels, columns the predicted ones. A prediction of null
 * (an unclassifiable page with no default category) is a wrong answer counted in its own column,
 * `null`. Labels outside `categories` (a truth label the model does not know) get their own rows
 * and columns, appended in order of first appearance, so nothing is dropped silently.
 */

/** Precision, recall and F1 of one category; null where the denominator is 0. */
export interface CategoryScores {
  readonly category: string;
  /** Pages truly in the category. */
  readonly support: number;
  /** Pages predicted in the category. */
  readonly predicted: number;
  readonly precision: number | null;
  readonly recall: number | null;
  readonly f1: number | null;
}

export interface ClassifierAccuracy {
  readonly pairs: number;
  readonly right: number;
  /** right / pairs; null with no pairs. */
  readonly accuracy: number | null;
  /** Mean F1 over categories with support (the macro average). */
  readonly macroF1: number | null;
  /** Row and column labels of `confusion` (the last column is `null` predictions). */
  readonly labels: readonly string[];
  /** confusion[t][p]: pages of true label labels[t] predicted labels[p]; column labels.length counts null predictions. */
  readonly confusion: readonly (readonly number[])[];
  readonly perCategory: readonly CategoryScores[];
}

/** Accuracy of `predicted[i]` against `truth[i]`; see the file comment. */
export function classifierAccuracy(
  truth: readonly string[],
  predicted: readonly (string | null)[],
  categories: readonly string[] = [],
): ClassifierAccuracy {
  if (truth.length !== predicted.length)
    throw new RangeError(`classifierAccuracy: ${truth.length} truths but ${predicted.length} predictions`);
  const labels = [...categories];
  const index = new Map(labels.map((l, i) => [l, i]));
  const indexOf = (l: string): number => {
    let i = index.get(l);
    if (i === undefined) {
      i = labels.length;
      labels.push(l);
      index.set(l, i);
    }
    return i;
  };
  const pairs = truth.map((t, i) => [indexOf(t), predicted[i] === null ? -1 : indexOf(predicted[i] as string)] as const);
  const L = labels.length;
  const confusion = Array.from({ length: L }, () => new Array<number>(L + 1).fill(0));
  let right = 0;
  for (const [t, p] of pairs) {
    const row = confusion[t] as number[];
    row[p < 0 ? L : p] = (row[p < 0 ? L : p] as number) + 1;
    if (t === p) right++;
  }
  const perCategory = labels.map((category, c) => {
    const support = (confusion[c] as number[]).reduce((a, b) => a + b, 0);
    const predictedCount = confusion.reduce((a, row) => a + (row[c] as number), 0);
    const tp = (confusion[c] as number[])[c] as number;
    const precision = predictedCount > 0 ? tp / predictedCount : null;
    const recall = support > 0 ? tp / support : null;
    const f1 =
      precision !== null && recall !== null ? (precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0) : null;
    return { category, support, predicted: predictedCount, precision, recall, f1 };
  });
  const withSupport = perCategory.filter((c) => c.support > 0);
  const macroF1 = withSupport.length > 0 ? withSupport.reduce((a, c) => a + (c.f1 ?? 0), 0) / withSupport.length : null;
  return { pairs: pairs.length, right, accuracy: pairs.length > 0 ? right / pairs.length : null, macroF1, labels, confusion, perCategory };
}
