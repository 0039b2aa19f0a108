/**
 * The topic model file: one portable JSON document (gzip-compressed when its name ends in `.gz`, and
 * recognised as such by its first bytes whatever its name), loaded by every node of a crawl.
 *
 *   { "format": "shoal-topic-model", "version": 1, "kind": "multinomial-naive-bayes",
 *     "categories": [...], "preprocessing": { hashBits, minTermChars, maxTermChars, titleWeight },
 *     "smoothing": 1, "priors": "uniform", "temperature": 3.2, "documents": [...],
 *     "features": base64 of little-endian uint32 ids, "counts" and "weights": base64 of little-endian float32,
 *     "digest": sha256 of the content, "training": { free-form provenance } }
 *
 * The preprocessing travels inside the file, so that classification splits text exactly as training
 * did. A file of another format or version is refused with a message saying which version this
 * shoal reads; a digest that does not match the content (a truncated or edited file) is refused.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { checkModel, modelDigest, ModelShapeError, Priors, type NaiveBayesModel } from './naive-bayes.js';
import { TERM_OPTION_BOUNDS, type TermOptions } from './terms.js';

export const MODEL_FORMAT = 'shoal-topic-model';
export const MODEL_VERSION = 1;

/** Free-form provenance of a model (sources, document counts, date, tool version). */
export type TrainingInfo = Readonly<Record<string, unknown>>;

/** A model and what the file says about it. */
export interface ModelFile {
  readonly model: NaiveBayesModel;
  readonly digest: string;
  readonly training: TrainingInfo;
}

/** Thrown for a file that is not a model this shoal can read; `message` says why. */
export class ModelFileError extends Error {}

const isLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function toBase64(view: Uint32Array | Float32Array): string {
  const bytes = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  if (isLittleEndian) return bytes.toString('base64');
  const copy = Buffer.from(bytes);
  copy.swap32();
  return copy.toString('base64');
}

function fromBase64(text: unknown, field: string): Buffer {
  if (typeof text !== 'string') throw new ModelFileError(`field "${field}" must be a base64 string`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) throw new ModelFileError(`field "${field}" is not a whole number of 4-byte values`);
  const aligned = new Uint8Array(bytes.length);
  aligned.set(bytes);
  const b = Buffer.from(aligned.buffer);
  if (!isLittleEndian) b.swap32();
  return b;
}

/** The file's bytes for `model`; gzip-compressed when `gzip` is true. */
export function encodeModelFile(model: NaiveBayesModel, training: TrainingInfo, gzip: boolean): Buffer {
  checkModel(model);
  const doc = {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    kind: 'multinomial-naive-bayes',
    categories: model.categories,
    preprocessing: { ...model.termOptions, titleWeight: model.titleWeight },
    smoothing: model.smoothing,
    priors: model.priors,
    temperature: model.temperature,
    documents: model.documents,
    digest: modelDigest(model),
    training,
    features: toBase64(model.features),
    counts: toBase64(model.counts),
    weights: toBase64(model.weights),
  };
  const json = Buffer.from(`${JSON.stringify(doc)}\n`);
  return gzip ? gzipSync(json, { level: 9 }) : json;
}

function intIn(value: unknown, field: string, [min, max]: readonly [number, number]): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new ModelFileError(`"${field}" must be an integer in [${min}, ${max}], got ${JSON.stringify(value)}`);
  }
  return value as number;
}

function numberField(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ModelFileError(`"${field}" must be a number, got ${JSON.stringify(value)}`);
  return value;
}

/** Reads a model file's bytes (plain or gzip); throws {@link ModelFileError} saying what is wrong. */
export function decodeModelFile(bytes: Uint8Array): ModelFile {
  let text: string;
  try {
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  } catch (err) {
    throw new ModelFileError(`not a readable gzip file (${(err as Error).message})`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new ModelFileError(`not JSON (${(err as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || doc.format !== MODEL_FORMAT) {
    throw new ModelFileError(`not a shoal topic model (its "format" is not "${MODEL_FORMAT}")`);
  }
  if (doc.version !== MODEL_VERSION) {
    throw new ModelFileError(
      `model format version ${JSON.stringify(doc.version)}; this shoal reads version ${MODEL_VERSION} only: retrain it with \`shoal train\``,
    );
  }
  if (doc.kind !== 'multinomial-naive-bayes') throw new ModelFileError(`unknown model kind ${JSON.stringify(doc.kind)}`);
  const pre = (doc.preprocessing ?? {}) as Record<string, unknown>;
  const termOptions: TermOptions = {
    hashBits: intIn(pre.hashBits, 'preprocessing.hashBits', TERM_OPTION_BOUNDS.hashBits),
    minTermChars: intIn(pre.minTermChars, 'preprocessing.minTermChars', TERM_OPTION_BOUNDS.minTermChars),
    maxTermChars: intIn(pre.maxTermChars, 'preprocessing.maxTermChars', TERM_OPTION_BOUNDS.maxTermChars),
  };
  if (!Array.isArray(doc.categories) || !Array.isArray(doc.documents))
    throw new ModelFileError('"categories" and "documents" must be arrays');
  if (doc.priors !== Priors.uniform && doc.priors !== Priors.documents)
    throw new ModelFileError(`"priors" must be "uniform" or "documents"`);
  const features = fromBase64(doc.features, 'features');
  const counts = fromBase64(doc.counts, 'counts');
  const weights = fromBase64(doc.weights, 'weights');
  const model: NaiveBayesModel = {
    categories: doc.categories as string[],
    termOptions,
    titleWeight: numberField(pre.titleWeight, 'preprocessing.titleWeight'),
    smoothing: numberField(doc.smoothing, 'smoothing'),
    priors: doc.priors,
    temperature: numberField(doc.temperature, 'temperature'),
    documents: (doc.documents as unknown[]).map((d, i) => numberField(d, `documents[${i}]`)),
    features: new Uint32Array(features.buffer, features.byteOffset, features.length / 4),
    counts: new Float32Array(counts.buffer, counts.byteOffset, counts.length / 4),
    weights: new Float32Array(weights.buffer, weights.byteOffset, weights.length / 4),
  };
  try {
    checkModel(model);
  } catch (err) {
    if (err instanceof ModelShapeError) throw new ModelFileError(err.message);
    throw err;
  }
  const digest = modelDigest(model);
  if (doc.digest !== digest)
    throw new ModelFileError(`its content does not match its digest (a damaged or edited file): ${String(doc.digest)} != ${digest}`);
  const training = doc.training !== null && typeof doc.training === 'object' ? (doc.training as TrainingInfo) : {};
  return { model, digest, training };
}
