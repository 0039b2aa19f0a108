// `npm run demo`: serves the `demo` test web (200 hosts, 20,199 pages) on loopback and crawls it
// collaboratively: 4 shoal nodes on 2 worker threads, split by topic (each page goes to the node of
// the category the shipped classifier gives it), 5,000 pages. It prints the dashboard's address as
// the crawl starts (open it in a browser to watch; nothing is opened for you), shows the progress
// line fitted to the terminal, ends with the collaboration table against the web's ground truth
// (coverage, overlap, communication overhead, topic locality), then writes the crawl's report and
// prints its path. About 40 s on two cores.
//
// The crawl is the `shoal` command itself (bin/shoal.js, run as a program, so with its process
// settings: see docs/memory.md), in a child process; the web is served from this one. The crawl goes
// to .shoal/demo-crawl (emptied first, so that every run crawls from scratch); the web's ground
// truth to .shoal/demo-truth. Ctrl-C stops the crawl cleanly (it reaches the child through the
// terminal), closes the web and writes no report. SHOAL_DEMO_MAX_PAGES changes the budget (the
// test of the demo crawls fewer pages).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from '../dist/cli/main.js';
import { WEB_PRESETS } from '../dist/web/presets.js';
import { startTestWeb } from '../dist/web/start.js';

const out = '.shoal/demo-crawl';
const maxPages = process.env.SHOAL_DEMO_MAX_PAGES ?? '5000';
const truth = '.shoal/demo-truth';
const shoal = fileURLToPath(new URL('../bin/shoal.js', import.meta.url));
let code = await runCli(['web', 'export', '--preset', 'demo', '--out', truth]);
if (code === 0) {
  const web = await startTestWeb(WEB_PRESETS.demo);
  process.stderr.write(`demo web: ${web.model.hosts.length} hosts, ${web.model.pageCount} pages on port ${web.port}\n`);
  rmSync(out, { recursive: true, force: true });
  let isInterrupted = false;
  process.on('SIGINT', () => {
    isInterrupted = true;
  });
  try {
    const args = [
      'crawl',
      ...['--nodes', '4', '--workers', '2', '--partition', 'topic'],
      ...['--seeds-file', web.seedsFile, '--out', out, '--allow-loopback', '--min-delay-ms', '50', '--max-pages', maxPages],
      ...['--dashboard', '--set', `cluster.truthDir=${truth}`],
    ];
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
  if (code === 0 && !isInterrupted) code = await runCli(['report', out, '--truth', truth]);
}
process.exitCode = code;
