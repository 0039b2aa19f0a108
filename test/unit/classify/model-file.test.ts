import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { decodeModelFile, encodeModelFile, MODEL_VERSION, ModelFileError } from '../../../src/classify/model-file.js';
import { NaiveBayesClassifier } from '../../../src/classify/naive-bayes.js';
import { trainNaiveBayes } from '../../../src/classify/naive-bayes-trainer.js';
import { topicCorpus } from '../../helpers/topic-corpus.js';

const model = trainNaiveBayes(topicCorpus({ perCategory: 20 }));
const sample = { title: 'stadium', text: topicCorpus({ perCategory: 1, seed: 3 })[3]?.text ?? '' };

function edit(f: (doc: Record<string, unknown>) => void): Buffer {
  const doc = JSON.parse(encodeModelFile(model, {}, false).toString()) as Record<string, unknown>;
  f(doc);
  return Buffer.from(JSON.stringify(doc));
}

describe('model file', () => {
  test('round-trips, plain and gzip, to a classifier with the same answers and digest', () => {
    const original = new NaiveBayesClassifier(model);
    for (const gzip of [false, true]) {
      const bytes = encodeModelFile(model, { source: 'test' }, gzip);
      assert.equal(bytes[0] === 0x1f && bytes[1] === 0x8b, gzip);
      const read = decodeModelFile(bytes);
      assert.equal(read.digest, original.digest);
      assert.deepEqual(read.training, { source: 'test' });
      const again = new NaiveBayesClassifier(read.model);
      assert.deepEqual(again.classify(sample), original.classify(sample));
    }
  });

  test('holds its preprocessing and format version', () => {
    const doc = JSON.parse(encodeModelFile(model, {}, false).toString()) as Record<string, unknown>;
    assert.equal(doc.format, 'shoal-topic-model');
    assert.equal(doc.version, MODEL_VERSION);
    assert.deepEqual(doc.preprocessing, { hashBits: 18, minTermChars: 2, maxTermChars: 32, titleWeight: 2 });
  });

  test('refuses another format version, naming the version it reads', () => {
    assert.throws(
      () =>
        decodeModelFile(
          edit((d) => {
            d.version = 2;
          }),
        ),
      (err: Error) => err instanceof ModelFileError && /version 2; this shoal reads version 1/.test(err.message),
    );
  });

  test('refuses files that are not models, and damaged ones', () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('not json'), /not JSON/],
      [Buffer.from('[]'), /not a shoal topic model/],
      [Buffer.from('{"format":"other"}'), /not a shoal topic model/],
      [gzipSync(Buffer.from('{}')).subarray(0, 10), /gzip/],
      [
        edit((d) => {
          d.kind = 'svm';
        }),
        /unknown model kind/,
      ],
      [
        edit((d) => {
          (d.preprocessing as Record<string, unknown>).hashBits = 40;
        }),
        /hashBits/,
      ],
      [
        edit((d) => {
          d.counts = 'AAA';
        }),
        /4-byte/,
      ],
      [
        edit((d) => {
          d.temperature = 'hot';
        }),
        /temperature/,
      ],
      [
        edit((d) => {
          d.categories = ['A', 'B', 'C', 'D', 'E'];
        }),
        /counts hold/,
      ],
      [
        edit((d) => {
          d.documents = [1];
        }),
        /documents has/,
      ],
      [
        edit((d) => {
          d.smoothing = 2;
        }),
        /does not match its digest/,
      ],
    ];
    for (const [bytes, message] of cases) {
      assert.throws(
        () => decodeModelFile(bytes),
        (err: Error) => err instanceof ModelFileError && message.test(err.message),
        String(message),
      );
    }
  });
});
