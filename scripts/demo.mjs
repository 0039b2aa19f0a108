// `npm run demo`: serves the `demo` test web (200 hosts, 20,199 pages) on loopback and crawls it with
// one shoal node for 5,000 pages, showing live progress and the summary (without --max-pages the
// polite crawl of every page takes about ten minutes: the largest hosts set the pace). The crawl is
// the `shoal` command itself (bin/shoal.js, run as a program, so with its process settings: see
// docs/memory.md), in a child process; the web is served from this one. The crawl goes to
// .shoal/demo-crawl (emptied first, so that every run crawls from scratch); the web's ground truth
// to .shoal/demo-truth, for comparing the crawl with what was there to find.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from '../dist/cli/main.js';
import { WEB_PRESETS } from '../dist/web/presets.js';
import { startTestWeb } from '../dist/web/start.js';

const out = '.shoal/demo-crawl';
const shoal = fileURLToPath(new URL('../bin/shoal.js', import.meta.url));
let code = await runCli(['web', 'export', '--preset', 'demo', '--out', '.shoal/demo-truth']);
if (code === 0) {
  const web = await startTestWeb(WEB_PRESETS.demo);
  process.stderr.write(`demo web: ${web.model.hosts.length} hosts, ${web.model.pageCount} pages on port ${web.port}\n`);
  rmSync(out, { recursive: true, force: true });
  // Ctrl-C reaches the crawl too (same terminal): it stops cleanly, then this process closes the web.
  process.on('SIGINT', () => {});
  try {
    const args = ['crawl', '--seeds-file', web.seedsFile, '--out', out, '--allow-loopback', '--min-delay-ms', '50', '--max-pages', '5000'];
    // Without a POSIX shell (Windows) the command's first line cannot run: node runs it, without the settings.
    const [file, argv] = process.platform === 'win32' ? [process.execPath, [shoal, ...args]] : [shoal, args];
    const crawl = spawn(file, argv, {
      stdio: 'inherit',
      // The crawler reaches the synthetic host names through the hosts file the web wrote.
      env: { ...process.env, SHOAL_CRAWL_NETWORK_HOSTS_FILE: web.hostsFile, SHOAL_CRAWL_NETWORK_IS_SYSTEM_DNS_ALLOWED: 'false' },
    });
    const [exitCode, signal] = await once(crawl, 'exit');
    code = exitCode ?? (signal === 'SIGINT' ? 130 : 1);
  } finally {
    await web.close();
  }
}
process.exitCode = code;
