/**
 * The entry of an analysis worker thread (see page-analyzer.ts): answers each page it is sent with
 * {@link analyzePage} or with the message of the exception that stopped it. Says `ready` once its
 * modules are loaded, so that the pool can tell a worker that cannot start from one that died later.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { analyzePage } from './page-analysis.js';
import type { AnalysisReply, AnalysisRequest, AnalysisWorkerData } from './page-analyzer.js';

const port = parentPort;
if (port === null) throw new Error('analysis-worker.ts runs as a worker thread');
const { options } = workerData as AnalysisWorkerData;

port.on('message', (request: AnalysisRequest) => {
  let reply: AnalysisReply;
  try {
    reply = { id: request.id, kind: 'ok', analysis: analyzePage(request, options) };
  } catch (err) {
    reply = { id: request.id, kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
port.postMessage({ kind: 'ready' });
