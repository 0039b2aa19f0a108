/**
 * Preload for finding where the crawl thread allocates: `node --import ./bench/lib/alloc-profile.mjs
 * --import tsx bench/crawl.bench.ts` samples every JavaScript allocation of the main thread (one
 * sample per 4 KiB), including the objects already collected, which a heap snapshot or `node
 * --heap-prof` leave out, and writes the profile to $SHOAL_ALLOC_PROFILE (default
 * `alloc.heapprofile`) when the process exits. Open it in Chrome DevTools (Memory tab, Load) or sum
 * `selfSize` per call frame from its JSON. The test web's child process (`--serve-web`) and worker
 * threads are not sampled. ArrayBuffer contents are not JavaScript heap and are not counted.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

if (isMainThread && !process.argv.includes('--serve-web')) {
  const out = process.env.SHOAL_ALLOC_PROFILE ?? 'alloc.heapprofile';
  const session = new Session();
  session.connect();
  session.post(
    'HeapProfiler.startSampling',
    {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    },
    (err) => {
      if (err) console.error(`alloc-profile: cannot start sampling: ${err.message}`);
    },
  );
  process.on('exit', () => {
    // A session in the same thread answers synchronously, so this runs before the process ends.
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) console.error(`alloc-profile: ${err.message}`);
      else {
        writeFileSync(out, JSON.stringify(result.profile));
        console.error(`alloc-profile: wrote ${out}`);
      }
    });
  });
}
