// The Crawlee peer of the peers bench: a CheerioCrawler that follows every link on the seed's host.
// The bench copies this file into the scratch folder where Crawlee is installed (so that `crawlee`
// resolves there) and runs `node crawlee-crawl.mjs SEED COUNTS_FILE` in a temporary directory, with
// CRAWLEE_STORAGE_DIR pointing into it: Crawlee keeps its request queue there, as it does by default.
//
// 8 requests in flight from the start (minConcurrency too: the autoscaled pool would otherwise start
// at 1 and take a while to grow), no delay, Crawlee's default retries. Crawlee reads no robots.txt.
import { writeFileSync } from 'node:fs';
import { CheerioCrawler } from 'crawlee';

const [seed, countsFile] = process.argv.slice(2);
let pages = 0;
let other = 0;
const crawler = new CheerioCrawler({
  minConcurrency: 8,
  maxConcurrency: 8,
  async requestHandler({ response, contentType, enqueueLinks }) {
    const isOk = response.statusCode >= 200 && response.statusCode < 300;
    if (isOk && contentType.type === 'text/html') pages++;
    else if (isOk) other++;
    await enqueueLinks({ strategy: 'same-hostname' });
  },
});
const stats = await crawler.run([seed]);
writeFileSync(
  countsFile,
  JSON.stringify({
    pages,
    other,
    requests: stats.requestsTotal,
    requestsFinished: stats.requestsFinished,
    requestsFailed: stats.requestsFailed,
  }),
);
