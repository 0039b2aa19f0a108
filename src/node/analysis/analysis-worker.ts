/**
 * The entry of an analysis worker thread (see page-analyzer.ts): answers each page it is sent with
 * {@link analyzePage} (packed into a buffer it transfers: packed-analysis.ts), each sitemap with its
 * parse (as JSON), each batch of WARC records with their gzip members, or with the message of the
 * exception that stopped it. Tasks arrive in arrays (those of one turn of the crawl thread); answers
 * go back in arrays too, as soon as the oldest waiting one is 1.5 ms old or this thread's turn ends.
 * Says `ready` once its modules are loaded, so that the pool can tell a worker that cannot start from
 * one that died later.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { analyzePage } from '../../parse/page-analysis.js';
import { MessageBatch } from './message-batch.js';
import { packAnalysis } from './packed-analysis.js';
import { labelerOf, readSitemap, type AnalysisReply, type AnalysisRequest, type AnalysisWorkerData } from './page-analyzer.js';
import { gzipMember } from '../../store/warc/gzip-members.js';
import { releaseMemory } from '../../core/release-memory.js';

const port = parentPort;
if (port === null) throw new Error('analysis-worker.ts runs as a worker thread');
const { options, topic } = workerData as AnalysisWorkerData;
const labeler = labelerOf(topic);

/** One gzip member per record of `data`, one after the other. */
function gzipped(request: Extract<AnalysisRequest, { kind: 'gzip' }>): Extract<AnalysisReply, { kind: 'gzipped' }> {
  const all = Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength);
  const pieces: Buffer[] = [];
  const lengths: number[] = [];
  let from = 0;
  for (const [i, length] of request.lengths.entries()) {
    const storedFrom = request.stored[2 * i] ?? 0;
    const storedTo = request.stored[2 * i + 1] ?? 0;
    const stored = storedTo > storedFrom ? { from: storedFrom, to: storedTo } : null;
    const member = gzipMember([all.subarray(from, from + length)], request.level, stored);
    from += length;
    pieces.push(...member.pieces);
    lengths.push(member.length);
  }
  let total = 0;
  for (const p of pieces) total += p.length;
  // Not Buffer.concat: a small result would come from Node's shared pool, which cannot be transferred.
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const p of pieces) at += p.copy(out, at);
  // The records are this thread's (moved here), and the members copied: their memory can go now.
  releaseMemory(request.data);
  return { id: request.id, kind: 'gzipped', data: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), lengths };
}

/** A sitemap's answer (the parser is asynchronous: it feeds the document in chunks). */
async function sitemapReply(request: Extract<AnalysisRequest, { kind: 'sitemap' }>): Promise<AnalysisReply> {
  try {
    const parsed = await readSitemap({ url: request.url, body: request.body, maxUrls: request.maxUrls }, options.normalize);
    releaseMemory(request.body);
    return { id: request.id, kind: 'sitemap', json: JSON.stringify(parsed) };
  } catch (err) {
    return { id: request.id, kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Replies go back together when they are ready within this much of each other: fewer messages to
 * wake the crawl thread when pages come in bursts, while a page's answer is never held behind more
 * than about two pages' work.
 */
const MAX_REPLY_WAIT_MS = 1.5;
const replies = new MessageBatch<AnalysisReply>((batch, buffers) => port.postMessage(batch, buffers), MAX_REPLY_WAIT_MS);
const reply = (r: AnalysisReply, buffer?: ArrayBuffer): void => replies.push(r, buffer);

function answer(request: AnalysisRequest): void {
  if (request.kind === 'sitemap') {
    void sitemapReply(request).then((r) => reply(r));
    return;
  }
  try {
    if (request.kind === 'gzip') {
      const r = gzipped(request);
      reply(r, r.data.buffer as ArrayBuffer);
      return;
    }
    const packed = packAnalysis(analyzePage(request, options, labeler));
    // The body is this thread's (moved here), and the analysis holds none of it.
    releaseMemory(request.body);
    reply({ id: request.id, kind: 'analysis', packed }, packed);
  } catch (err) {
    reply({ id: request.id, kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

// Tasks come in arrays: those the crawl thread gave this worker in one turn of its event loop.
port.on('message', (requests: AnalysisRequest[]) => {
  for (const request of requests) answer(request);
});
port.postMessage({ kind: 'ready' });
