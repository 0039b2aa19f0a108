/**
 * Labelled documents drawn from the test web's topic vocabularies (src/web/data/topic-words.ts) and
 * its topic-neutral words: each document mixes `topicShare` words of its topic with neutral ones, so
 * a classifier has to find the signal, as on the test web's pages. Deterministic for a seed.
 */
import { Rng } from '../../src/core/prng.js';
import { GENERIC_ENGLISH_WORDS, TOPIC_WORDS } from '../../src/web/data/topic-words.js';
import type { LabelledDocument } from '../../src/classify/naive-bayes-trainer.js';

export interface CorpusOptions {
  readonly categories?: readonly string[];
  readonly perCategory?: number;
  readonly words?: number;
  readonly topicShare?: number;
  readonly seed?: number;
}

export function topicCorpus(o: CorpusOptions = {}): LabelledDocument[] {
  const categories = o.categories ?? ['ARTS', 'COMPUTERS', 'HEALTH', 'SPORTS'];
  const perCategory = o.perCategory ?? 40;
  const words = o.words ?? 120;
  const share = o.topicShare ?? 0.3;
  const rng = new Rng(o.seed ?? 7, 99, 1);
  const pick = (list: readonly string[]): string => list[Math.floor(rng.next() * list.length)] as string;
  const docs: LabelledDocument[] = [];
  for (let i = 0; i < perCategory; i++) {
    for (const label of categories) {
      const vocab = TOPIC_WORDS[label] as readonly string[];
      const text = Array.from({ length: words }, () => (rng.next() < share ? pick(vocab) : pick(GENERIC_ENGLISH_WORDS))).join(' ');
      docs.push({ label, title: `${pick(vocab)} ${pick(GENERIC_ENGLISH_WORDS)}`, text });
    }
  }
  return docs;
}
