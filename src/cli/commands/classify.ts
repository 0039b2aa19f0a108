/**
 * `shoal classify [--model M] TARGET...`: the topic of documents as a crawl would give it (the X4
 * pipeline of src/classify/topic-labeler.ts: fewer than 50 terms unclassifiable, other languages
 * WORLD, else the classifier), with its probability and reason. A TARGET is an HTML or text file, an
 * http(s) URL (fetched once; an answer other than 2xx is an error), or a crawl directory (every HTML
 * page it archived).
 * `--evaluate --labels L` compares the topics with the labels of L (URL or file path <TAB> LABEL)
 * and prints accuracy, per-category precision/recall/F1 and the confusion matrix.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ShoalError } from '../../core/errors.js';
import { loadTopicModel } from '../../classify/model-loader.js';
import { TopicLabeler, type TopicLabel } from '../../classify/topic-labeler.js';
import { classifierAccuracy } from '../../eval/classifier-accuracy.js';
import { parseHtml } from '../../parse/html-page.js';
import { normalizeUrl } from '../../url/normalize.js';
import { detectLanguage } from '../../parse/language.js';
import { crawlConfigSchema } from '../../config/crawl-config.js';
import { topicLabelerOptionsOf } from '../../node/build-node.js';
import { INDEX_FILE } from '../../store/warc/warc-writer.js';
import { formatAccuracy } from '../../training/accuracy-table.js';
import { isCrawlDirectory, readArchivedPages, readLabelsFile } from '../../training/training-sources.js';
import type { CliIo } from '../cli-io.js';

interface ClassifyFlags {
  model?: string;
  evaluate?: boolean;
  labels?: string;
  json?: boolean;
}

/** A document to label, named as the user named it (a path, a URL, or a URL inside a crawl). */
interface Item {
  readonly name: string;
  readonly title: string;
  readonly text: string;
  readonly declaredLang?: string;
}

function itemOfHtml(name: string, html: string, url: string): Item {
  const page = parseHtml(html, url);
  return { name, title: page.title, text: page.visibleText, ...(page.lang === '' ? {} : { declaredLang: page.lang }) };
}

async function itemsOfUrl(url: string): Promise<Item[]> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new ShoalError('IO', `cannot fetch ${url}: ${(err as Error).message}`, { cause: err });
  }
  if (!res.ok) {
    // An error page's text is the server's, not the document's: its topic would be a wrong answer.
    await res.body?.cancel();
    throw new ShoalError('IO', `cannot fetch ${url}: HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`);
  }
  const body = await res.text();
  const isHtml = (res.headers.get('content-type') ?? 'text/html').includes('html');
  return [isHtml ? itemOfHtml(url, body, res.url || url) : { name: url, title: '', text: body }];
}

async function itemsOfCrawl(dir: string): Promise<Item[]> {
  if (!isCrawlDirectory(dir)) {
    throw new ConfigError(
      [
        {
          path: 'TARGET',
          message: `${dir} is a directory but not a crawl directory (no warc/${INDEX_FILE}); give files, URLs or a crawl directory`,
        },
      ],
      { code: 'USAGE' },
    );
  }
  return (await readArchivedPages(dir, null)).map((p) => ({ name: p.url, title: p.title, text: p.text }));
}

async function itemsOf(target: string): Promise<Item[]> {
  if (/^https?:\/\//i.test(target)) return itemsOfUrl(target);
  if (!existsSync(target))
    throw new ConfigError([{ path: 'TARGET', message: `${target}: no such file, directory or http(s) URL` }], { code: 'USAGE' });
  if (statSync(target).isDirectory()) return itemsOfCrawl(target);
  const text = readFileSync(target, 'utf8');
  const ext = extname(target).toLowerCase();
  return [
    ext === '.html' || ext === '.htm' || /^\s*<(!doctype|html)/i.test(text)
      ? itemOfHtml(target, text, `file://${resolve(target)}`)
      : { name: target, title: '', text },
  ];
}

export function registerClassifyCommand(program: Command, io: CliIo): void {
  program
    .command('classify')
    .description('give documents a topic as a crawl would: category, probability, reason (SPEC §4.2)')
    .argument('<targets...>', 'HTML or text files, http(s) URLs, or crawl directories')
    .option('--model <file>', 'a model written by shoal train (default: the model shipped with shoal)')
    .option('--evaluate', 'compare with --labels: accuracy, precision/recall/F1 per category, confusion matrix')
    .option('--labels <file>', 'URL or file path <TAB> LABEL lines (or JSONL {url, label})')
    .option('--json', 'print JSON lines (with --evaluate, one JSON document)')
    .action(async (targets: string[], opts: ClassifyFlags) => {
      if (opts.evaluate === true && opts.labels === undefined) {
        throw new ConfigError([{ path: '--labels', message: '--evaluate needs --labels FILE (the true label of each document)' }], {
          code: 'USAGE',
        });
      }
      const loaded = loadTopicModel(opts.model ?? null);
      const labeler = new TopicLabeler(loaded.classifier, topicLabelerOptionsOf(crawlConfigSchema.shape.topic.parse({})));
      const results: { name: string; label: TopicLabel }[] = [];
      for (const target of targets) {
        for (const item of await itemsOf(target)) {
          const language = detectLanguage(item.text, item.declaredLang).code;
          results.push({ name: item.name, label: labeler.label({ title: item.title, text: item.text, language }) });
        }
      }
      if (opts.evaluate === true) {
        const labels = readLabelsFile(opts.labels as string);
        const keyOf = (name: string): string => {
          const n = /^https?:\/\//i.test(name) ? normalizeUrl(name) : null;
          return n?.kind === 'ok' ? n.url : name;
        };
        const scored = results.filter((r) => labels.has(keyOf(r.name)));
        if (scored.length === 0)
          throw new ConfigError([{ path: '--labels', message: `none of the ${results.length} documents is named in ${opts.labels}` }], {
            code: 'USAGE',
          });
        const accuracy = classifierAccuracy(
          scored.map((r) => labels.get(keyOf(r.name)) as string),
          scored.map((r) => r.label.category),
          labeler.labels,
        );
        const unlabelled = results.length - scored.length;
        const report = { model: loaded.path, digest: loaded.digest, documents: scored.length, unlabelled, evaluation: accuracy };
        if (opts.json === true) io.out(`${JSON.stringify(report, null, 2)}\n`);
        else
          io.out(
            `shoal classify: ${scored.length} labelled documents (${unlabelled} without a label skipped)\n${formatAccuracy(accuracy)}`,
          );
        return;
      }
      for (const r of results) {
        const l = r.label;
        if (opts.json === true)
          io.out(`${JSON.stringify({ target: r.name, category: l.category, probability: l.probability, reason: l.reason })}\n`);
        else io.out(`${l.category ?? '-'}\t${l.probability === null ? '-' : l.probability.toFixed(3)}\t${l.reason}\t${r.name}\n`);
      }
    });
}
