/**
 * `shoal train` and `shoal classify` as a user runs them: in process (runCli) for most runs, and the
 * installed command (bin/shoal.js over dist/, `npm run build`) for the shipped model and a refused
 * model file. Training from each kind of source (JSONL, a folder per label, a crawl directory with a
 * labels file, a test web truth export), cross-validation, classifying files, URLs and crawl
 * directories, evaluation against labels, and the errors a user meets. Every input is generated
 * here into a scratch directory: the corpus from the test web's vocabularies, the crawl from a test
 * web on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runProgram, type CliRun, runInProcess } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/scratch.js';
import { topicCorpus } from '../helpers/topic-corpus.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const { root: dir } = scratchDirs('shoal-topic-cli-');

const run = (args: readonly string[]) => runInProcess(args);

function shoal(args: readonly string[]): Promise<CliRun> {
  return runProgram(bin, args);
}

interface TrainJson {
  source: string;
  sourceKind: string;
  documents: number;
  perLabel: Record<string, number>;
  folds?: number;
  evaluation?: {
    pairs: number;
    right: number;
    accuracy: number;
    labels: string[];
    confusion: number[][];
    perCategory: { category: string; support: number; predicted: number }[];
  };
  model: { path: string; digest: string; features: number } | null;
}

async function trainJson(args: readonly string[]): Promise<TrainJson> {
  const r = await run(['train', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as TrainJson;
}

interface ClassifyLine {
  target: string;
  category: string | null;
  probability: number | null;
  reason: string;
}

const jsonLines = (text: string): ClassifyLine[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ClassifyLine);

const CATEGORIES = ['ARTS', 'COMPUTERS', 'HEALTH', 'SPORTS'];
/** The training corpus, and documents of the same vocabularies the model never saw. */
const corpus = topicCorpus({ categories: CATEGORIES, perCategory: 12, words: 120, seed: 7 });
const unseen = topicCorpus({ categories: CATEGORIES, perCategory: 2, words: 150, topicShare: 0.4, seed: 1234 });

const jsonlPath = join(dir, 'corpus.jsonl');
const modelGz = join(dir, 'corpus.model.json.gz');
const modelPlain = join(dir, 'corpus.model.json');

/** Several sentences about computing, well over 60 words. */
const COMPUTING_TEXT = `The new laptop ships with a faster processor, sixteen gigabytes of memory and a solid state drive,
so compiling large software projects takes far less time than before. Programmers can install Linux next to Windows,
run a database server locally, and debug their code with an integrated development environment. The operating system
kernel schedules threads across every core, while the compiler optimizes loops and the linker builds the final
executable. Network drivers, firmware updates and a secure boot loader keep the computer reliable. Developers write
scripts in Python and JavaScript, store source code in a version control repository, and deploy web applications to
cloud servers through an automated build pipeline.`;

/** Several sentences about sports, well over 60 words. */
const SPORTS_TEXT = `Baseball is a sport played between two teams of nine players. The pitcher throws the ball toward
home plate, and the batter swings the bat to hit it into the field. A batter who hits the ball and runs around all
four bases scores a run; a home run clears the outfield fence. Each team bats for nine innings, and the team with more
runs wins the game. The catcher crouches behind the plate, the shortstop guards the infield, and the umpire calls balls
and strikes. In football, the quarterback throws passes, the linebacker tackles runners, and a touchdown is worth six
points. Tennis players serve and volley with a racket, golfers putt on the green, and hockey players shoot the puck
past the goalie. Athletes train for the championship season in the league.`;

/** German prose, well over 50 terms. */
const GERMAN_TEXT = `Die Stadt plant für den kommenden Sommer ein großes Fest auf dem Marktplatz. Viele Vereine werden sich
dort vorstellen, und es gibt Musik, Essen und Spiele für die ganze Familie. Der Bürgermeister sagte, dass die
Vorbereitungen schon seit Monaten laufen und dass man mit mehreren tausend Besuchern rechnet. Die Straßen in der
Innenstadt werden an diesem Wochenende für den Verkehr gesperrt, damit die Gäste sicher feiern können. Außerdem fahren
Busse und Bahnen häufiger als sonst. Wer helfen möchte, kann sich bei der Gemeinde melden. Die Organisatoren hoffen auf
gutes Wetter und eine fröhliche Stimmung bei allen Gästen, die aus der ganzen Region kommen werden.`;

const wordCount = (t: string): number => t.split(/\s+/).filter((w) => w !== '').length;

const escapeHtml = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function htmlPage(title: string, text: string, script = ''): string {
  return (
    `<!doctype html><html lang="en"><head><title>${escapeHtml(title)}</title>${script === '' ? '' : `<script>${script}</script>`}</head>` +
    `<body><p>${escapeHtml(text)}</p>${script === '' ? '' : `<script>var s = "${script}";</script>`}</body></html>`
  );
}

before(() => {
  writeFileSync(jsonlPath, corpus.map((d) => JSON.stringify({ label: d.label, title: d.title, text: d.text })).join('\n') + '\n');
});

describe('shoal train', () => {
  it('trains from a JSONL file: the model is written gzip or plain by its name, with the same digest every time', async () => {
    const gz = await trainJson(['--from', jsonlPath, '--out', modelGz]);
    assert.equal(gz.sourceKind, 'jsonl');
    assert.equal(gz.documents, corpus.length);
    assert.deepEqual(gz.perLabel, Object.fromEntries(CATEGORIES.map((c) => [c, 12])));
    assert.match(gz.model?.digest ?? '', /^[0-9a-f]{64}$/);
    assert.ok((gz.model?.features ?? 0) > 100, 'the model keeps the corpus vocabulary');
    const gzBytes = readFileSync(modelGz);
    assert.deepEqual([gzBytes[0], gzBytes[1]], [0x1f, 0x8b], 'a .gz model is gzip-compressed');
    const fromGz = JSON.parse(gunzipSync(gzBytes).toString('utf8')) as {
      format: string;
      version: number;
      digest: string;
      categories: string[];
    };
    assert.deepEqual(
      [fromGz.format, fromGz.version, fromGz.digest, fromGz.categories],
      ['shoal-topic-model', 1, gz.model?.digest, CATEGORIES],
    );

    const plain = await trainJson(['--from', jsonlPath, '--out', modelPlain]);
    const doc = JSON.parse(readFileSync(modelPlain, 'utf8')) as { format: string; digest: string };
    assert.equal(doc.format, 'shoal-topic-model', 'a model named without .gz is plain JSON');
    assert.equal(plain.model?.digest, gz.model?.digest, 'the same input trains the same model');
    assert.equal(doc.digest, gz.model?.digest);

    const text = await run(['train', '--from', jsonlPath, '--out', join(dir, 'again.json')]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, new RegExp(`^shoal train: ${corpus.length} documents from .*corpus\\.jsonl \\(jsonl\\), 4 labels$`, 'm'));
    assert.match(
      text.out,
      new RegExp(`^wrote .*again\\.json: \\d+ terms, temperature [\\d.]+, digest ${gz.model?.digest.slice(0, 16)}$`, 'm'),
    );
  });

  it('trains from a folder per label: HTML titles count, scripts do not, as the same documents in JSONL', async () => {
    const folders = join(dir, 'folders');
    const noScripts = join(dir, 'folders-no-scripts');
    const asJsonl: string[] = [];
    const docs = corpus.slice(0, 16);
    // The folder source reads labels in name order and files in name order within a label.
    const byLabel = CATEGORIES.map((label) => docs.filter((d) => d.label === label));
    for (const [l, label] of CATEGORIES.entries()) {
      for (const sub of [folders, noScripts]) mkdirSync(join(sub, label), { recursive: true });
      for (const [i, d] of (byLabel[l] ?? []).entries()) {
        if (i % 2 === 0) {
          // Script text is words of another topic: counted, it would change the model.
          const script = corpus
            .filter((o) => o.label !== label)
            .slice(0, 3)
            .map((o) => o.text)
            .join(' ');
          writeFileSync(join(folders, label, `doc-${i}.html`), htmlPage(d.title, d.text, script));
          writeFileSync(join(noScripts, label, `doc-${i}.html`), htmlPage(d.title, d.text));
          asJsonl.push(JSON.stringify({ label, title: d.title, text: d.text }));
        } else {
          for (const sub of [folders, noScripts]) writeFileSync(join(sub, label, `doc-${i}.txt`), d.text);
          asJsonl.push(JSON.stringify({ label, text: d.text }));
        }
      }
    }
    writeFileSync(join(folders, '.hidden-notes'), 'not a label');
    mkdirSync(join(folders, '.cache'));
    writeFileSync(join(folders, '.cache', 'x.txt'), corpus[0]?.text ?? '');
    const sameJsonl = join(dir, 'folders.jsonl');
    writeFileSync(sameJsonl, `${asJsonl.join('\n')}\n`);

    const fromFolders = await trainJson(['--from', folders, '--out', join(dir, 'folders.model.json.gz')]);
    assert.equal(fromFolders.sourceKind, 'folders');
    assert.equal(fromFolders.documents, 16);
    assert.deepEqual(fromFolders.perLabel, Object.fromEntries(CATEGORIES.map((c) => [c, 4])), 'hidden folders are no label');
    const fromNoScripts = await trainJson(['--from', noScripts, '--out', join(dir, 'no-scripts.model.json')]);
    assert.equal(fromFolders.model?.digest, fromNoScripts.model?.digest, 'script text is not part of a document');
    const fromJsonl = await trainJson(['--from', sameJsonl, '--out', join(dir, 'folders-jsonl.model.json')]);
    assert.equal(fromFolders.model?.digest, fromJsonl.model?.digest, 'an HTML file is its <title> and visible text');
    const untitled = join(dir, 'untitled.jsonl');
    writeFileSync(untitled, `${asJsonl.map((l) => JSON.stringify({ ...(JSON.parse(l) as object), title: '' })).join('\n')}\n`);
    const fromUntitled = await trainJson(['--from', untitled, '--out', join(dir, 'untitled.model.json')]);
    assert.notEqual(fromFolders.model?.digest, fromUntitled.model?.digest, 'titles count');
  });

  it('trains from a truth export of the tiny test web: every content page, labelled with its true topic', async () => {
    const truth = join(dir, 'truth');
    const exported = await run(['web', 'export', '--preset', 'tiny', '--out', truth]);
    assert.equal(exported.code, 0, exported.err);
    const t = await trainJson(['--from', truth, '--out', join(dir, 'truth.model.json.gz')]);
    assert.equal(t.sourceKind, 'truth');
    // pages.tsv: a row per page, the kinds that answer 200 with a body are the documents.
    const [head, ...rows] = readFileSync(join(truth, 'pages.tsv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const kind = head?.indexOf('kind') ?? -1;
    const topic = head?.indexOf('topic') ?? -1;
    const expected: Record<string, number> = {};
    for (const r of rows) {
      if (!['ok', 'unavailable', 'reset', 'oversized', 'nearDuplicate'].includes(r[kind] as string)) continue;
      expected[r[topic] as string] = (expected[r[topic] as string] ?? 0) + 1;
    }
    assert.deepEqual(t.perLabel, Object.fromEntries(Object.entries(expected).sort(([a], [b]) => (a < b ? -1 : 1))));
    assert.equal(
      t.documents,
      Object.values(expected).reduce((a, b) => a + b, 0),
    );
    assert.ok(t.documents > 500 && t.documents < 600, `${t.documents} of 600 pages serve content`);
    const again = await trainJson(['--from', truth, '--out', join(dir, 'truth-again.model.json')]);
    assert.equal(again.model?.digest, t.model?.digest);
  });

  it('--evaluate --folds 3 prints accuracy, a table per category and the confusion matrix', async () => {
    const r = await run(['train', '--from', jsonlPath, '--evaluate', '--folds', '3']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^3-fold cross-validation: accuracy \d+\.\d% \(\d+ of 48\), macro F1 \d+\.\d%$/m);
    assert.match(r.out, /^category +support +predicted +precision +recall +F1$/m);
    for (const c of CATEGORIES) assert.match(r.out, new RegExp(`^${c} +12 +\\d+ +`, 'm'), `a row for ${c}`);
    assert.match(r.out, /^confusion matrix \(rows: true label, columns: predicted\)\ntrue \\ predicted +ARTS +COMP +HEAL +SPOR$/m);
    assert.doesNotMatch(r.out, /^wrote /m, 'without --out no model is written');

    const j = await trainJson(['--from', jsonlPath, '--evaluate', '--folds', '3']);
    const e = j.evaluation;
    assert.ok(e !== undefined);
    assert.equal(j.folds, 3);
    assert.equal(j.model, null);
    assert.ok(e.accuracy >= 0 && e.accuracy <= 1);
    assert.ok(e.accuracy > 0.8, `documents of distinct vocabularies are told apart: ${e.accuracy}`);
    assert.equal(e.pairs, corpus.length);
    assert.deepEqual(e.labels, CATEGORIES);
    let diagonal = 0;
    for (const [t, row] of e.confusion.entries()) {
      const support: number | undefined = e.perCategory.find((c) => c.category === e.labels[t])?.support;
      assert.equal(
        row.reduce((a, b) => a + b, 0),
        support,
        `row ${e.labels[t]} sums to its support`,
      );
      diagonal += row[t] ?? 0;
    }
    assert.equal(diagonal, e.right);
    assert.equal(e.accuracy, e.right / e.pairs);
  });

  it('with --evaluate and --out, writes the model and records the cross-validated accuracy in it', async () => {
    const out = join(dir, 'evaluated.model.json');
    const j = await trainJson(['--from', jsonlPath, '--evaluate', '--folds', '3', '--out', out]);
    const training = (JSON.parse(readFileSync(out, 'utf8')) as { training: { crossValidatedAccuracy: number; folds: number } }).training;
    assert.deepEqual([training.crossValidatedAccuracy, training.folds], [j.evaluation?.accuracy, 3]);
  });
});

describe('shoal train from a crawl and shoal classify of a crawl', () => {
  let web: TestWeb;
  const crawl = join(dir, 'crawl');
  /** URL → true topic of every page of the test web. */
  const truth = new Map<string, string>();
  let archived: string[] = [];

  before(async () => {
    web = await startTestWeb({ hosts: 12, pages: 600, seeds: 3, server: { addressCount: 4 }, traps: { hostRate: 0 } });
    for (let g = 0; g < web.model.pageCount; g++)
      truth.set(web.model.url(g, web.port), web.model.categories[web.model.pageTopic[g] as number] as string);
    const r = await run([
      'crawl',
      ...web.seeds.flatMap((s) => ['--seed', s]),
      ...[...web.hostsMap].flatMap(([h, ip]) => ['--resolve', `${h}=${ip}`]),
      '--allow-loopback',
      '--out',
      crawl,
      '--min-delay-ms',
      '0',
      '--concurrency',
      '8',
      '--max-pages',
      '60',
    ]);
    assert.equal(r.code, 0, r.err);
    const pages = readFileSync(join(crawl, 'pages.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { url: string });
    archived = [...new Set(pages.map((p) => p.url))];
    assert.ok(archived.length > 30, `the crawl archived ${archived.length} pages`);
  });
  after(async () => {
    await web?.close();
  });

  it('trains on the archived pages the labels file names, and only those', async () => {
    // Every page of the test web is labelled but every third archived one; pages not archived have no content.
    const skipped = new Set(archived.filter((_, i) => i % 3 === 2));
    const labels = join(dir, 'crawl-labels.tsv');
    const lines = ['# URL<TAB>LABEL'];
    for (const [url, label] of truth) if (!skipped.has(url)) lines.push(`${url}\t${label}`);
    writeFileSync(labels, `${lines.join('\n')}\n`);
    const expected: Record<string, number> = {};
    for (const url of archived) {
      if (skipped.has(url)) continue;
      const label = truth.get(url);
      assert.ok(label !== undefined, `${url} is a page of the test web`);
      expected[label] = (expected[label] ?? 0) + 1;
    }
    assert.ok(Object.keys(expected).length >= 2, 'the crawl met at least two topics');
    const t = await trainJson(['--from', crawl, '--labels', labels, '--out', join(dir, 'crawl.model.json.gz')]);
    assert.equal(t.sourceKind, 'crawl');
    assert.deepEqual(t.perLabel, Object.fromEntries(Object.entries(expected).sort(([a], [b]) => (a < b ? -1 : 1))));
    assert.equal(t.documents, archived.length - skipped.size);
  });

  it('refuses a crawl directory without --labels rather than reading its files as label folders', async () => {
    const r = await run(['train', '--from', crawl, '--evaluate']);
    assert.equal(r.code, 2, r.out);
    assert.ok(r.err.includes(`- --labels: ${crawl} is a crawl directory: training on its pages needs a labels file`), r.err);
    assert.equal(r.out, '');
  });

  it('classifies a crawl directory: one line per archived HTML page', async () => {
    const r = await run(['classify', '--model', modelGz, '--json', crawl]);
    assert.equal(r.code, 0, r.err);
    const lines = jsonLines(r.out);
    assert.deepEqual(lines.map((l) => l.target).sort(), [...archived].sort());
    for (const l of lines) {
      assert.ok(['classifier', 'language', 'unclassifiable'].includes(l.reason), l.reason);
      if (l.reason === 'classifier')
        assert.ok(CATEGORIES.includes(l.category as string) && (l.probability as number) > 0 && (l.probability as number) <= 1);
    }
    const text = await run(['classify', '--model', modelGz, crawl]);
    assert.equal(text.out.trim().split('\n').length, archived.length);
  });
});

describe('shoal classify', () => {
  const files = join(dir, 'classify');
  let server: Server;
  let base = '';

  before(async () => {
    mkdirSync(files, { recursive: true });
    server = createServer((req, res) => {
      const d = req.url === '/sports.html' ? unseen.find((x) => x.label === 'SPORTS') : unseen.find((x) => x.label === 'HEALTH');
      if (req.url === '/sports.html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(htmlPage(d?.title ?? '', d?.text ?? ''));
      } else if (req.url === '/health.txt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(d?.text);
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (!existsSync(modelGz)) assert.equal((await run(['train', '--from', jsonlPath, '--out', modelGz])).code, 0);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('classifies HTML and text files: category, probability and reason per line', async () => {
    const arts = unseen.find((d) => d.label === 'ARTS');
    const computers = unseen.find((d) => d.label === 'COMPUTERS');
    const html = join(files, 'arts.html');
    const txt = join(files, 'computers.txt');
    writeFileSync(html, htmlPage(arts?.title ?? '', arts?.text ?? ''));
    writeFileSync(txt, computers?.text ?? '');
    const r = await run(['classify', '--model', modelGz, html, txt]);
    assert.equal(r.code, 0, r.err);
    const lines = r.out
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines.map((l) => [l[0], l[2], l[3]]),
      [
        ['ARTS', 'classifier', html],
        ['COMPUTERS', 'classifier', txt],
      ],
    );
    for (const l of lines) assert.match(l[1] as string, /^(0\.\d{3}|1\.000)$/);
  });

  it('says unclassifiable for a short text and WORLD (reason language) for a German one', async () => {
    const short = join(files, 'short.txt');
    writeFileSync(short, (unseen[0]?.text ?? '').split(' ').slice(0, 30).join(' '));
    const german = join(files, 'german.txt');
    assert.ok(wordCount(GERMAN_TEXT) > 80);
    writeFileSync(german, GERMAN_TEXT);
    const r = await run(['classify', '--model', modelGz, '--json', short, german]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(jsonLines(r.out), [
      { target: short, category: null, probability: null, reason: 'unclassifiable' },
      { target: german, category: 'WORLD', probability: null, reason: 'language' },
    ]);
    const text = await run(['classify', '--model', modelGz, short]);
    assert.equal(text.out, `-\t-\tunclassifiable\t${short}\n`);
  });

  it('fetches and classifies http URLs (HTML and plain text)', async () => {
    const r = await run(['classify', '--model', modelGz, '--json', `${base}/sports.html`, `${base}/health.txt`]);
    assert.equal(r.code, 0, r.err);
    const lines = jsonLines(r.out);
    assert.deepEqual(
      lines.map((l) => [l.target, l.category, l.reason]),
      [
        [`${base}/sports.html`, 'SPORTS', 'classifier'],
        [`${base}/health.txt`, 'HEALTH', 'classifier'],
      ],
    );
    assert.ok(lines.every((l) => typeof l.probability === 'number' && l.probability > 0.25 && l.probability <= 1));
  });

  it('refuses a URL that does not answer 2xx rather than classifying its error page', async () => {
    const r = await run(['classify', '--model', modelGz, `${base}/missing.html`]);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`cannot fetch ${base}/missing\\.html: HTTP 404`));
    assert.equal(r.out, '');
  });

  it('--evaluate --labels scores the predictions against the labels, as counted by hand', async () => {
    const names: string[] = [];
    for (const [i, d] of unseen.slice(0, 4).entries()) {
      const f = join(files, `eval-${i}.txt`);
      writeFileSync(f, d.text);
      names.push(f);
    }
    const short = join(files, 'eval-short.txt');
    writeFileSync(short, 'too short to classify');
    const unlabelled = join(files, 'eval-unlabelled.txt');
    writeFileSync(unlabelled, unseen[5]?.text ?? '');
    const predicted = jsonLines((await run(['classify', '--model', modelGz, '--json', ...names, short])).out);
    assert.deepEqual(
      predicted.map((p) => p.category),
      [...unseen.slice(0, 4).map((d) => d.label), null],
      'the model knows these documents',
    );
    // The first three labelled truly, the fourth wrongly (ARTS), the short one SPORTS: 3 of 5 right.
    const labels = join(files, 'eval-labels.tsv');
    const truths = [...unseen.slice(0, 3).map((d) => d.label), 'ARTS', 'SPORTS'];
    assert.notEqual(unseen[3]?.label, 'ARTS');
    writeFileSync(labels, [...names, short].map((n, i) => `${n}\t${truths[i]}`).join('\n') + '\n');
    const args = ['classify', '--model', modelGz, '--evaluate', '--labels', labels, ...names, short, unlabelled];
    const j = await run([...args, '--json']);
    assert.equal(j.code, 0, j.err);
    const e = JSON.parse(j.out) as {
      documents: number;
      unlabelled: number;
      digest: string;
      evaluation: { pairs: number; right: number; accuracy: number; labels: string[]; confusion: number[][] };
    };
    assert.deepEqual([e.documents, e.unlabelled, e.evaluation.pairs, e.evaluation.right, e.evaluation.accuracy], [5, 1, 5, 3, 3 / 5]);
    const L = e.evaluation.labels.length;
    const cell = (t: string, p: string | null): number =>
      e.evaluation.confusion[e.evaluation.labels.indexOf(t)]?.[p === null ? L : e.evaluation.labels.indexOf(p)] ?? -1;
    assert.equal(cell('ARTS', unseen[3]?.label as string), 1, 'the wrong label is counted at (ARTS, predicted)');
    assert.equal(cell('SPORTS', null), 1, 'the unclassifiable document is counted in the none column');
    const table = await run(args);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^shoal classify: 5 labelled documents \(1 without a label skipped\)\naccuracy 60\.0% \(3 of 5\)/);
    assert.match(table.out, /^true \\ predicted .* none$/m);
  });
});

describe('shoal train and classify: errors', () => {
  it('--model naming a missing file, a non-model JSON or a model of version 2: exit 2, the file named on stderr', async () => {
    const missing = join(dir, 'no-such-model.json.gz');
    const notModel = join(dir, 'not-a-model.json');
    writeFileSync(notModel, '{"hello": "world"}\n');
    const v2 = join(dir, 'model-v2.json');
    const doc = JSON.parse(readFileSync(modelPlain, 'utf8')) as Record<string, unknown>;
    writeFileSync(v2, JSON.stringify({ ...doc, version: 2 }));
    const target = join(dir, 'target.txt');
    writeFileSync(target, SPORTS_TEXT);
    const cases: [string, RegExp][] = [
      [missing, /cannot read .*no-such-model\.json\.gz: ENOENT/],
      [notModel, /not a shoal topic model/],
      [v2, /version 2; this shoal reads version 1/],
    ];
    for (const [model, message] of cases) {
      const r = await run(['classify', '--model', model, target]);
      assert.equal(r.code, 2, `${model}: ${r.err}`);
      assert.ok(r.err.includes(model), `stderr names ${model}: ${r.err}`);
      assert.match(r.err, message);
      assert.equal(r.out, '');
    }
    const installed = await shoal(['classify', '--model', v2, target]);
    assert.equal(installed.code, 2, installed.stderr);
    assert.match(installed.stderr, new RegExp(`${v2.replace(/[.\\/]/g, '\\$&')}: model format version 2; this shoal reads version 1`));
  });

  it('train with one label only exits 2 and says so', async () => {
    const one = join(dir, 'one-label.jsonl');
    writeFileSync(
      one,
      corpus
        .filter((d) => d.label === 'ARTS')
        .map((d) => JSON.stringify({ label: d.label, text: d.text }))
        .join('\n'),
    );
    for (const extra of [
      ['--out', join(dir, 'one.model.json')],
      ['--evaluate', '--folds', '3'],
    ]) {
      const r = await run(['train', '--from', one, ...extra]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /at least two (labels|categories)/);
      assert.ok(r.err.includes(one), r.err);
    }
    assert.ok(!existsSync(join(dir, 'one.model.json')));
  });

  it('a JSONL file with a bad line is refused, naming the file and line', async () => {
    const bad = join(dir, 'bad.jsonl');
    const good = corpus.slice(0, 4).map((d) => JSON.stringify({ label: d.label, text: d.text }));
    writeFileSync(bad, [good[0], good[1], '', '{"label": "ARTS", "text": "unterminated', good[2]].join('\n'));
    const r = await run(['train', '--from', bad, '--out', join(dir, 'bad.model.json')]);
    assert.equal(r.code, 1, r.err);
    assert.ok(r.err.includes(`${bad}:4: not JSON`), r.err);
    const noText = join(dir, 'no-text.jsonl');
    writeFileSync(noText, `${good[0]}\n{"label": "ARTS", "body": "x"}\n`);
    const r2 = await run(['train', '--from', noText, '--out', join(dir, 'bad.model.json')]);
    assert.ok(r2.err.includes(`${noText}:2: needs a string "text" or "html"`), r2.err);
    assert.ok(!existsSync(join(dir, 'bad.model.json')), 'no model from part of the input');
  });

  it('train without --out and --evaluate is a usage error', async () => {
    const r = await run(['train', '--from', jsonlPath]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--out: give --out MODEL to write a model, or --evaluate to measure training only/);
    const noFrom = await run(['train', '--out', join(dir, 'x.json')]);
    assert.equal(noFrom.code, 2);
    assert.match(noFrom.err, /--from/);
    const evalNoLabels = await run(['classify', '--model', modelGz, '--evaluate', jsonlPath]);
    assert.equal(evalNoLabels.code, 2);
    assert.match(evalNoLabels.err, /--evaluate needs --labels/);
  });
});

describe('shoal classify with the shipped model (the installed command)', () => {
  it('labels an English computing text COMPUTERS and a sports text SPORTS', { timeout: 30_000 }, async () => {
    assert.ok(
      existsSync(fileURLToPath(new URL('../../dist/cli/commands/classify.js', import.meta.url))),
      'dist/ is built (`npm run build`)',
    );
    assert.ok(wordCount(COMPUTING_TEXT) >= 60 && wordCount(SPORTS_TEXT) >= 60);
    const computing = join(dir, 'computing.txt');
    const sports = join(dir, 'sports.html');
    writeFileSync(computing, COMPUTING_TEXT);
    writeFileSync(sports, htmlPage('Baseball and other sports', SPORTS_TEXT));
    const r = await shoal(['classify', '--json', computing, sports]);
    assert.equal(r.code, 0, r.stderr);
    const lines = jsonLines(r.stdout);
    assert.deepEqual(
      lines.map((l) => [l.target, l.category, l.reason]),
      [
        [computing, 'COMPUTERS', 'classifier'],
        [sports, 'SPORTS', 'classifier'],
      ],
    );
    assert.ok(
      lines.every((l) => (l.probability as number) > 0.5),
      r.stdout,
    );
  });
});
