/**
 * Loading a topic model file for a crawl: `cluster.model`, or the model shipped with shoal
 * (`models/topic-en.json.gz`, see models/README.md) when none is named. A file is read and checked
 * once per process and shared by every node and analysis of that process (the classifier holds no
 * per-call state); worker threads load their own copy from the same path.
 *
 * A file that cannot be read, or is not a model this shoal reads, is a configuration error at
 * `cluster.model` naming the file and the reason.
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../core/errors.js';
import { decodeModelFile, ModelFileError, type ModelFile, type TrainingInfo } from './model-file.js';
import { NaiveBayesClassifier } from './naive-bayes.js';

/** The model shipped in the package (two folders up from src/classify/ and dist/classify/). */
export const SHIPPED_MODEL_PATH = fileURLToPath(new URL('../../models/topic-en.json.gz', import.meta.url));

/** A model ready to classify, with where it came from. */
export interface LoadedModel {
  readonly path: string;
  readonly digest: string;
  readonly classifier: NaiveBayesClassifier;
  readonly training: TrainingInfo;
}

const cache = new Map<string, { readonly key: string; readonly model: LoadedModel }>();

/** The path `cluster.model` names, or the shipped model's for null. */
export function modelPathOf(configured: string | null): string {
  return configured ?? SHIPPED_MODEL_PATH;
}

/** The file of `configured` (null: the shipped one), named as messages name it. */
function fileOf(configured: string | null): { readonly path: string; readonly what: string } {
  const path = modelPathOf(configured);
  return { path, what: configured === null ? `the shipped topic model ${path}` : path };
}

function unreadable(what: string, err: unknown): ConfigError {
  return new ConfigError([{ path: 'cluster.model', message: `cannot read ${what}: ${(err as Error).message}` }], {
    cause: err,
    code: 'CONFIG_FILE_UNREADABLE',
  });
}

/** The model file's content, checked; throws a {@link ConfigError} at `cluster.model`. */
function decode(path: string, what: string): ModelFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw unreadable(what, err);
  }
  try {
    return decodeModelFile(bytes);
  } catch (err) {
    if (err instanceof ModelFileError)
      throw new ConfigError([{ path: 'cluster.model', message: `${what}: ${err.message}` }], { cause: err });
    throw err;
  }
}

/**
 * Reads and checks the model file without keeping it (a thread that only hands the path to its
 * workers); returns its digest. Throws like {@link loadTopicModel}.
 */
export function checkTopicModel(configured: string | null): string {
  const { path, what } = fileOf(configured);
  return cache.get(path)?.model.digest ?? decode(path, what).digest;
}

/** Reads and checks the model at `path` (null: the shipped one); throws a {@link ConfigError} at `cluster.model`. */
export function loadTopicModel(configured: string | null): LoadedModel {
  const { path, what } = fileOf(configured);
  let key: string;
  try {
    const st = statSync(path);
    key = `${st.size}:${st.mtimeMs}`;
  } catch (err) {
    throw unreadable(what, err);
  }
  const hit = cache.get(path);
  if (hit !== undefined && hit.key === key) return hit.model;
  const file = decode(path, what);
  const model: LoadedModel = { path, digest: file.digest, classifier: new NaiveBayesClassifier(file.model), training: file.training };
  cache.set(path, { key, model });
  return model;
}
