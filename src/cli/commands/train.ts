/**
 * `shoal train --from SOURCE --out MODEL`: trains the topic classifier (multinomial Naive Bayes,
 * src/classify/) on labelled documents (src/training/training-sources.ts says which sources) and
 * writes one model file (gzip when MODEL ends in .gz). `--evaluate` first measures the training with
 * k-fold cross-validation and prints accuracy, per-category precision/recall/F1 and the confusion
 * matrix (a table, or JSON with `--json`).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, ShoalError } from '../../core/errors.js';
import { encodeModelFile } from '../../classify/model-file.js';
import { NaiveBayesClassifier, Priors } from '../../classify/naive-bayes.js';
import { DEFAULT_TRAINING_OPTIONS, trainNaiveBayes, TrainingError, type TrainingOptions } from '../../classify/naive-bayes-trainer.js';
import { crossValidate } from '../../training/cross-validation.js';
import { formatAccuracy } from '../../training/accuracy-table.js';
import { readTrainingSource } from '../../training/training-sources.js';
import { shoalVersion } from '../../node/version.js';
import type { CliIo } from '../cli-io.js';

interface TrainFlags {
  from: string;
  labels?: string;
  label?: string;
  out?: string;
  evaluate?: boolean;
  folds: string;
  titleWeight?: string;
  maxFeatures?: string;
  minCount?: string;
  priors?: string;
  json?: boolean;
}

function numberFlag(value: string | undefined, flag: string, min: number, isInteger: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || (isInteger && !Number.isInteger(n))) {
    throw new ConfigError(
      [{ path: flag, message: `must be ${isInteger ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(value)}` }],
      { code: 'USAGE' },
    );
  }
  return n;
}

function trainingOptionsOf(opts: TrainFlags): Partial<TrainingOptions> {
  if (opts.priors !== undefined && opts.priors !== Priors.uniform && opts.priors !== Priors.documents) {
    throw new ConfigError([{ path: '--priors', message: `must be uniform or documents, got ${JSON.stringify(opts.priors)}` }], {
      code: 'USAGE',
    });
  }
  const o: Partial<Record<keyof TrainingOptions, unknown>> = {
    titleWeight: numberFlag(opts.titleWeight, '--title-weight', 0, false),
    maxFeatures: numberFlag(opts.maxFeatures, '--max-features', 1, true),
    minCount: numberFlag(opts.minCount, '--min-count', 1, false),
    priors: opts.priors,
  };
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<TrainingOptions>;
}

export function registerTrainCommand(program: Command, io: CliIo): void {
  program
    .command('train')
    .description('train the topic classifier on labelled documents and write a model file (SPEC §4.2)')
    .requiredOption(
      '--from <source>',
      'a JSONL file of {label, text|html}, a folder per label, a crawl directory (with --labels), or a test web truth export',
    )
    .option('--labels <file>', 'for a crawl directory: URL<TAB>LABEL lines (or JSONL {url, label})')
    .option('--label <what>', 'for a test web’s truth export: label pages by topic (default) or by city ("Name, ST", or none)')
    .option('--out <model>', 'the model file to write (.gz: compressed)')
    .option('--evaluate', 'measure the training by k-fold cross-validation first')
    .option('--folds <k>', 'folds of --evaluate', '5')
    .option('--title-weight <w>', `weight of a title term against a body term (default ${DEFAULT_TRAINING_OPTIONS.titleWeight})`)
    .option('--max-features <n>', `terms the model keeps at most, the most frequent (default ${DEFAULT_TRAINING_OPTIONS.maxFeatures})`)
    .option('--min-count <n>', `terms seen fewer times are dropped (default ${DEFAULT_TRAINING_OPTIONS.minCount})`)
    .option('--priors <p>', 'class priors: uniform (default) or documents (the share of training documents)')
    .option('--json', 'print JSON instead of tables')
    .action(async (opts: TrainFlags) => {
      if (opts.out === undefined && opts.evaluate !== true) {
        throw new ConfigError([{ path: '--out', message: 'give --out MODEL to write a model, or --evaluate to measure training only' }], {
          code: 'USAGE',
        });
      }
      const options = trainingOptionsOf(opts);
      const folds = numberFlag(opts.folds, '--folds', 2, true) as number;
      const truthLabel = opts.label ?? 'topic';
      if (truthLabel !== 'topic' && truthLabel !== 'city')
        throw new ConfigError([{ path: '--label', message: `topic or city, got ${truthLabel}` }]);
      const { kind, documents } = await readTrainingSource(opts.from, {
        ...(opts.labels === undefined ? {} : { labels: opts.labels }),
        truthLabel,
      });
      try {
        const counts = new Map<string, number>();
        for (const d of documents) counts.set(d.label, (counts.get(d.label) ?? 0) + 1);
        const summary = {
          source: opts.from,
          sourceKind: kind,
          documents: documents.length,
          perLabel: Object.fromEntries([...counts].sort()),
        };
        const evaluation = opts.evaluate === true ? crossValidate(documents, folds, options) : null;
        let model: { path: string; digest: string; features: number; temperature: number } | null = null;
        if (opts.out !== undefined) {
          const trained = trainNaiveBayes(documents, options);
          const digest = new NaiveBayesClassifier(trained).digest;
          const training = {
            ...summary,
            shoal: shoalVersion(),
            ...(evaluation === null ? {} : { crossValidatedAccuracy: evaluation.accuracy, folds }),
          };
          try {
            writeFileSync(opts.out, encodeModelFile(trained, training, opts.out.endsWith('.gz')));
          } catch (err) {
            throw new ShoalError('IO', `cannot write ${opts.out}: ${(err as Error).message}`, { cause: err });
          }
          model = { path: opts.out, digest, features: trained.features.length, temperature: trained.temperature };
        }
        if (opts.json === true) {
          io.out(`${JSON.stringify({ ...summary, ...(evaluation === null ? {} : { folds, evaluation }), model }, null, 2)}\n`);
          return;
        }
        io.out(`shoal train: ${documents.length} documents from ${opts.from} (${kind}), ${counts.size} labels\n`);
        if (evaluation !== null) io.out(`\n${folds}-fold cross-validation: ${formatAccuracy(evaluation)}`);
        if (model !== null) {
          io.out(
            `\nwrote ${model.path}: ${model.features} terms, temperature ${model.temperature.toFixed(2)}, digest ${model.digest.slice(0, 16)}\n`,
          );
        }
      } catch (err) {
        if (err instanceof TrainingError)
          throw new ConfigError([{ path: '--from', message: `${opts.from}: ${err.message}` }], { cause: err });
        throw err;
      }
    });
}
