/**
 * Starts a worker thread on a module of this package. From the compiled build the entry is the
 * `.js` file beside the caller; under tsx (sources run directly) it is the `.ts` file, which a worker
 * thread cannot load by itself on Node 20, so the worker registers tsx's loader first.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * @param callerUrl `import.meta.url` of the module that starts the worker.
 * @param entry the entry's path relative to the caller, without extension (`./analysis-worker`).
 */
export function startWorker(callerUrl: string, entry: string, options: WorkerOptions): Worker {
  const isSource = callerUrl.endsWith('.ts');
  const url = new URL(`${entry}${isSource ? '.ts' : '.js'}`, callerUrl);
  if (!isSource) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => m.register()).then(() => import(${JSON.stringify(url.href)}))`;
  return new Worker(code, { ...options, eval: true });
}
