/**
 * The `shoal` command line: one thin file per command under commands/. Exit codes: 0 done,
 * 1 failure, 2 bad configuration or usage (every problem listed with its path), 130 interrupted.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError, ShoalError, isConfigProblem } from '../core/errors.js';
import { registerConfigCommand } from './commands/config.js';
import { registerCrawlCommand } from './commands/crawl.js';
import { registerDashboardCommand } from './commands/dashboard.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerNodeCommand } from './commands/node.js';
import { registerReportCommand } from './commands/report.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerClassifyCommand } from './commands/classify.js';
import { registerTrainCommand } from './commands/train.js';
import { registerWebCommand } from './commands/web.js';
import type { CliIo } from './cli-io.js';
import { exitWith, processIo } from './process-io.js';
import { shoalVersion } from '../node/version.js';

export type { CliIo, StopCause } from './cli-io.js';

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let code = 0;
  const program = new Command('shoal')
    .description('shoal: a collaborative web crawler that measures itself')
    .version(shoalVersion(), '-V, --version', 'print the version of shoal')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError()
    .enablePositionalOptions();
  registerCrawlCommand(program, io, (c) => {
    code = c;
  });
  registerWebCommand(program, io, (c) => {
    code = c;
  });
  registerConfigCommand(program, io);
  registerEvalCommand(program, io);
  registerNodeCommand(program, io, (c) => {
    code = c;
  });
  registerSimulateCommand(program, io, (c) => {
    code = c;
  });
  registerReportCommand(program, io);
  registerDashboardCommand(program, io, (c) => {
    code = c;
  });
  registerTrainCommand(program, io);
  registerClassifyCommand(program, io);
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

/**
 * The `shoal` program (bin/shoal.js): runs the CLI on the process's own streams and signals, and
 * exits with its code, even if something was left holding the event loop (see process-io.ts).
 */
export async function main(argv: readonly string[]): Promise<void> {
  exitWith(await runCli(argv, processIo()));
}
