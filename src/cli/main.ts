/**
 * The `shoal` command line: one thin file per command under commands/. Exit codes: 0 done,
 * 1 failure, 2 bad configuration or usage (every problem listed with its path), 130 interrupted.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError, ShoalError, isConfigProblem } from '../core/errors.js';
import { registerConfigCommand } from './commands/config.js';
import { registerCrawlCommand } from './commands/crawl.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerNodeCommand } from './commands/node.js';
import { registerReportCommand } from './commands/report.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerWebCommand } from './commands/web.js';

/** Where a command writes; tests pass their own. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves when the user asks to stop (Ctrl-C / SIGTERM). */
  readonly interrupted: Promise<void>;
  /** Whether `err` writes to a terminal (progress lines are then rewritten in place). Default false. */
  readonly isErrTty?: boolean;
  /** Node's flags (`process.execArgv`): crawls say when the shoal command's process settings are missing. Absent: not checked. */
  readonly nodeFlags?: readonly string[];
}

function defaultIo(): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    env: process.env,
    isErrTty: process.stderr.isTTY === true,
    nodeFlags: process.execArgv,
    interrupted: new Promise((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
  };
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let code = 0;
  const program = new Command('shoal')
    .description('shoal: a collaborative web crawler that measures itself')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError()
    .enablePositionalOptions();
  registerCrawlCommand(program, io, (c) => { code = c; });
  registerWebCommand(program, io, (c) => { code = c; });
  registerConfigCommand(program, io);
  registerEvalCommand(program, io);
  registerNodeCommand(program, io, (c) => { code = c; });
  registerSimulateCommand(program, io, (c) => { code = c; });
  registerReportCommand(program, io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    if (err instanceof ConfigError || isConfigProblem(err)) {
      io.err(`shoal: ${(err as Error).message}\n`);
      return 2;
    }
    if (err instanceof ShoalError) {
      io.err(`shoal: ${err.code}: ${err.message}\n`);
      return 1;
    }
    io.err(`shoal: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
