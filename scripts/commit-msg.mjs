#!/usr/bin/env node
// Checks a commit message against the project's rule (docs/development.md, "Commits"): a subject of
// at most 72 characters in the imperative, then a blank line, then the body. Run by
// .githooks/commit-msg (`npm install` points git at that folder); `node scripts/commit-msg.mjs FILE`
// checks a message file, `--range A..B` every commit of a range (for review).
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAX_SUBJECT = 72;

// Subjects that describe instead of command: "Added x", "Fixes y", "Adding z".
const DESCRIBING = [
  'added',
  'adds',
  'adding',
  'fixed',
  'fixes',
  'fixing',
  'updated',
  'updates',
  'updating',
  'removed',
  'removes',
  'removing',
  'changed',
  'changes',
  'changing',
  'moved',
  'moves',
  'moving',
  'renamed',
  'renames',
  'renaming',
  'made',
  'makes',
  'making',
  'implemented',
  'implements',
  'implementing',
  'refactored',
  'refactors',
  'refactoring',
  'improved',
  'improves',
  'improving',
  'created',
  'creates',
  'creating',
];
const NOT_IMPERATIVE = new RegExp(`^(${DESCRIBING.join('|')})\\b`, 'i');

/** The problems of one commit message (empty: fine). Comment lines (`#`) are ignored, as git does. */
export function problemsOf(message) {
  const lines = message.split('\n').filter((l) => !l.startsWith('#'));
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const subject = lines[0] ?? '';
  const problems = [];
  if (subject.trim() === '') return ['the subject line is empty'];
  if (/^(fixup|squash|amend)! /.test(subject) || /^Merge /.test(subject) || /^Revert "/.test(subject)) return [];
  if ([...subject].length > MAX_SUBJECT) problems.push(`the subject has ${[...subject].length} characters; at most ${MAX_SUBJECT}`);
  if (/\.\s*$/.test(subject)) problems.push('the subject ends with a full stop');
  if (NOT_IMPERATIVE.test(subject)) problems.push(`the subject should be imperative ("Add", "Fix", not "${subject.split(/\s/, 1)[0]}")`);
  if (lines.length > 1 && lines[1].trim() !== '') problems.push('the second line must be blank (subject, blank line, body)');
  return problems;
}

function main(argv) {
  const messages = [];
  if (argv[0] === '--range') {
    const range = argv[1];
    if (range === undefined) throw new Error('usage: commit-msg.mjs --range A..B');
    const hashes = execFileSync('git', ['rev-list', '--no-merges', range], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const h of hashes)
      messages.push({ name: h.slice(0, 7), text: execFileSync('git', ['log', '-1', '--format=%B', h], { encoding: 'utf8' }) });
  } else if (argv[0] !== undefined) {
    messages.push({ name: argv[0], text: readFileSync(argv[0], 'utf8') });
  } else {
    throw new Error('usage: commit-msg.mjs FILE | --range A..B');
  }
  let bad = 0;
  for (const m of messages) {
    const problems = problemsOf(m.text);
    if (problems.length === 0) continue;
    bad++;
    process.stderr.write(`${m.name}: ${m.text.split('\n', 1)[0]}\n${problems.map((p) => `  - ${p}\n`).join('')}`);
  }
  return bad === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`commit-msg: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  }
}
