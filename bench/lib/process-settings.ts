/**
 * The benchmarks measure a crawler that runs under the shoal command's process settings
 * (src/node/process-settings.ts: two V8 flags and a malloc setting that `bin/shoal.js` starts node
 * with), since that is how users' crawls run. `--untuned` runs it under Node's defaults instead, to
 * see what the settings change; such a run is labelled in the output.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { SHOAL_NODE_FLAGS, SHOAL_PROCESS_ENV, processSettings } from '../../src/node/process-settings.js';

/** The node flags and environment of a crawler child process: the shoal command's, unless untuned. */
export function crawlerProcess(isUntuned: boolean, extraFlags: readonly string[] = []): { execArgv: string[]; env: NodeJS.ProcessEnv } {
  if (isUntuned) return { execArgv: [...extraFlags], env: process.env };
  return { execArgv: [...SHOAL_NODE_FLAGS, ...extraFlags], env: { ...SHOAL_PROCESS_ENV, ...process.env } };
}

/**
 * For a benchmark whose crawler runs in its own process: unless this process already runs under the
 * shoal command's settings (or `isUntuned`), runs this same script again under them, with the same
 * node flags and arguments, and resolves to its exit code; resolves to null when this process is the
 * one to measure.
 */
export async function rerunUnderProcessSettings(script: string, isUntuned: boolean): Promise<number | null> {
  if (isUntuned || processSettings(process.execArgv, process.env).isInEffect) return null;
  const { execArgv, env } = crawlerProcess(false, process.execArgv);
  const child = spawn(process.execPath, [...execArgv, script, ...process.argv.slice(2)], { env, stdio: 'inherit' });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return code ?? (signal === null ? 1 : 128);
}

/**
 * The environment of a process that is not the crawler (the test web's server) in a benchmark that
 * runs under the shoal command's settings: without the variables they set, so that the server runs
 * under the same settings in every run.
 */
export function nonCrawlerEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => SHOAL_PROCESS_ENV[k] !== v));
}

/** How a benchmark's header names the crawler's process settings. */
export function processSettingsLabel(isUntuned: boolean): string {
  if (isUntuned) return "Node defaults (--untuned: NOT the shoal command's settings)";
  return `the shoal command's: ${SHOAL_NODE_FLAGS.join(' ')} ${Object.entries(SHOAL_PROCESS_ENV)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
}
