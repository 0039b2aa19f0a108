/**
 * Waiting in tests for something to happen, never for a fixed time: a fixed sleep is either too short
 * on a busy machine (the test fails for nothing) or longer than needed everywhere else. Each wait has
 * a deadline far above what the awaited thing takes, so a test fails, naming what it waited for,
 * instead of hanging.
 */
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';

/** What is awaited, and how long at most. */
export interface WaitOptions {
  /** What the test waits for, as the error on timeout names it ("the dead member to expire"). */
  readonly what: string;
  /** Ms before giving up; default 10 000. */
  readonly timeoutMs?: number;
}

/** Options of {@link waitUntil}. */
export interface WaitUntilOptions extends WaitOptions {
  /** Ms between two checks; default 50. */
  readonly intervalMs?: number;
  /** More context for the timeout error (what a child process printed, say). */
  readonly detail?: () => string;
}

/**
 * Checks `predicate` until it holds, every `intervalMs`. An exception from `predicate` (a failed
 * assertion about a state seen on the way) ends the wait at once.
 */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, options: WaitUntilOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) {
      const detail = options.detail === undefined ? '' : `\n${options.detail()}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${detail}`);
    }
    await delay(options.intervalMs ?? 50);
  }
}

/**
 * Resolves with the first match of `re` in what `stream` (a child process's stdout or stderr) printed
 * from now on; rejects when the stream ends first or after `timeoutMs`, quoting what it printed.
 */
export function waitForLine(stream: Readable, re: RegExp, options: WaitOptions): Promise<RegExpExecArray> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}; printed:\n${text}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const match = re.exec(text);
      if (match !== null) finish(match);
    };
    const onEnd = (): void => finish(new Error(`the output ended before ${options.what}; printed:\n${text}`));
    function finish(result: RegExpExecArray | Error): void {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
  });
}
