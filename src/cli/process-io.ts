/**
 * The `shoal` process's side of the command line: its output streams and its signals, made safe.
 *
 * - **Stopping.** The first SIGINT or SIGTERM asks the running command to stop cleanly (a crawl
 *   flushes its stores and exits 130), if the command listens (reads `interrupted`); one that does
 *   not (a short report) exits at once, as a program without handlers would. Whatever state the
 *   process is in, it is gone {@link STOP_GRACE_MS} later: a clean stop that does not finish in that
 *   time (a wedged close, a broker that does not answer) is cut short, which is safe because every
 *   crawl directory survives `kill -9`. A second signal exits at once.
 * - **Closed output.** Writing to a closed pipe (`shoal crawl ... | head -2`) fails with EPIPE. That is
 *   treated like Ctrl-C, never as a crash: later writes to that stream are dropped, and the command
 *   is asked to stop.
 * - **Exit.** Once the command has returned, the process exits with its code even if a handle was
 *   left open (a bug, reported on stderr), so that no command hangs on exit.
 */
import type { CliIo, StopCause } from './cli-io.js';

/** How long a clean stop may take after the first signal before the process exits anyway, ms. */
export const STOP_GRACE_MS = 10_000;
/** How long the process may linger after the command returned before it exits anyway, ms. */
export const EXIT_GRACE_MS = 2_000;
/** Exit code of a command stopped by a signal or a closed output (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;

/** The process's standard streams, signals and exit, as the CLI uses them. */
export function processIo(): CliIo {
  let resolveStop!: (cause: StopCause) => void;
  const interrupted = new Promise<StopCause>((resolve) => {
    resolveStop = resolve;
  });
  let signals = 0;
  let isStopping = false;
  let isListenedTo = false;
  const stop = (cause: StopCause): void => {
    if (isStopping) return;
    isStopping = true;
    resolveStop(cause);
    setTimeout(() => {
      safeWrite(
        process.stderr,
        `\nshoal: did not stop within ${STOP_GRACE_MS / 1000} s; exiting now (the crawl directory resumes as after a crash)\n`,
      );
      process.exit(INTERRUPTED_EXIT_CODE);
    }, STOP_GRACE_MS).unref();
  };
  const onSignal = (): void => {
    signals++;
    if (!isListenedTo) process.exit(INTERRUPTED_EXIT_CODE);
    if (signals > 1) {
      safeWrite(process.stderr, '\nshoal: second signal; exiting now (the crawl directory resumes as after a crash)\n');
      process.exit(INTERRUPTED_EXIT_CODE);
    }
    stop('signal');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const out = guardedStream(process.stdout, () => stop('output-closed'));
  const err = guardedStream(process.stderr, () => stop('output-closed'));
  return {
    out,
    err,
    env: process.env,
    get interrupted(): Promise<StopCause> {
      isListenedTo = true;
      return interrupted;
    },
    isErrTty: process.stderr.isTTY === true,
    errColumns: () => (process.stderr.isTTY === true ? process.stderr.columns : undefined),
    nodeFlags: process.execArgv,
  };
}

/**
 * Sets the exit code and makes sure the process ends: if something still holds the event loop
 * {@link EXIT_GRACE_MS} after the command returned, it is named on stderr and the process exits.
 */
export function exitWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => {
    safeWrite(
      process.stderr,
      `shoal: ${
        process
          .getActiveResourcesInfo()
          .filter((r) => r !== 'Timeout')
          .join(', ') || 'something'
      } still open after the command ended; exiting\n`,
    );
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}

/** A writer to `stream` that drops output once the stream failed (EPIPE), calling `onClosed` once. */
function guardedStream(stream: NodeJS.WriteStream, onClosed: () => void): (text: string) => void {
  let isClosed = false;
  stream.on('error', () => {
    // EPIPE (the reader went away) or any other failure of the terminal or pipe: output is over.
    if (isClosed) return;
    isClosed = true;
    onClosed();
  });
  return (text) => {
    if (!isClosed && !stream.destroyed) stream.write(text);
  };
}

function safeWrite(stream: NodeJS.WriteStream, text: string): void {
  try {
    if (!stream.destroyed) stream.write(text);
  } catch {
    // Nowhere left to say it.
  }
}
