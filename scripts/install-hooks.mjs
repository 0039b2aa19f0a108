// Points git at .githooks/ (the commit-msg check) when the package is a git checkout of shoal itself;
// run by `npm install` (the `prepare` script). Anywhere else (an installed dependency, no git) it
// does nothing, and it never fails the install.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
try {
  const top = execFileSync('git', ['rev-parse', '--show-toplevel'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  if (existsSync(join(root, '.githooks')) && realpathSync(top) === realpathSync(root)) {
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root, stdio: 'ignore' });
  }
} catch {
  // Not a git checkout, or no git: nothing to install.
}
