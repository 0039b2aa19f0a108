/** What a command of the `shoal` command line writes to and listens to; tests pass their own. */

/** Why a command is asked to stop before it is done. */
export type StopCause =
  /** SIGINT (Ctrl-C) or SIGTERM. */
  | 'signal'
  /** The reader of stdout or stderr went away (a closed pipe). */
  | 'output-closed';

/** Where a command writes, and what tells it to stop. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves when the command should stop (Ctrl-C, SIGTERM, a closed output), with the cause when known. */
  readonly interrupted: Promise<StopCause | void>;
  /** Whether `err` writes to a terminal (progress lines are then rewritten in place). Default false. */
  readonly isErrTty?: boolean;
  /** The terminal's width in columns, when `err` writes to a terminal (a progress line is fitted to it). */
  readonly errColumns?: () => number | undefined;
  /** Node's flags (`process.execArgv`): crawls say when the shoal command's process settings are missing. Absent: not checked. */
  readonly nodeFlags?: readonly string[];
}
