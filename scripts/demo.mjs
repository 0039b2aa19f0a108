// `npm run demo`: serves the `demo` test web (200 hosts, 20,199 pages) on loopback and crawls it with
// one shoal node for 5,000 pages, showing live progress and the summary (without --max-pages the
// polite crawl of every page takes about ten minutes: the largest hosts set the pace). The crawl goes
// to .shoal/demo-crawl (emptied first, so that every run crawls from scratch); the web's ground
// truth to .shoal/demo-truth, for comparing the crawl with what was there to find.
import { rmSync } from 'node:fs';
import { runCli } from '../dist/cli/main.js';
import { WEB_PRESETS } from '../dist/web/presets.js';
import { startTestWeb } from '../dist/web/start.js';

const out = '.shoal/demo-crawl';
let code = await runCli(['web', 'export', '--preset', 'demo', '--out', '.shoal/demo-truth']);
if (code === 0) {
  const web = await startTestWeb(WEB_PRESETS.demo);
  process.stderr.write(`demo web: ${web.model.hosts.length} hosts, ${web.model.pageCount} pages on port ${web.port}\n`);
  rmSync(out, { recursive: true, force: true });
  // The crawler reaches the synthetic host names through the hosts file the web wrote.
  process.env.SHOAL_CRAWL_NETWORK_HOSTS_FILE = web.hostsFile;
  process.env.SHOAL_CRAWL_NETWORK_IS_SYSTEM_DNS_ALLOWED = 'false';
  try {
    code = await runCli(['crawl', '--seeds-file', web.seedsFile, '--out', out, '--allow-loopback', '--min-delay-ms', '50', '--max-pages', '5000']);
  } finally {
    await web.close();
  }
}
process.exitCode = code;
