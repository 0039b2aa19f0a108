/**
 * The `shoal` command line: one thin file per command under commands/. Exit codes: 0 done,
 * 1 failure, 2 bad configuration or usage (every problem listed with its path), 130 interrupted.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError, ShoalError, isConfigProblem } from '../core/errors.js';
import type { CliIo } from './cli-io.js';
import { exitWith, processIo } from './process-io.js';
import { shoalVersion } from '../node/version.js';

export type { CliIo, StopCause } from './cli-io.js';

/** Registers one command on the program; `setCode` receives its exit code when the command sets one. */
type Register = (program: Command, io: CliIo, setCode: (code: number) => void) => void;

/**
 * The commands, each loaded when it is run: a command's modules (NATS for `node`, the dashboard
 * server, the simulator, the trainer...) cost memory and start-up time the others do not need, and
 * a crawl's memory is measured. Help and an unknown command load them all.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  crawl: async () => (await import('./commands/crawl.js')).registerCrawlCommand,
  web: async () => (await import('./commands/web.js')).registerWebCommand,
  config: async () => (await import('./commands/config.js')).registerConfigCommand,
  eval: async () => (await import('./commands/eval.js')).registerEvalCommand,
  node: async () => (await import('./commands/node.js')).registerNodeCommand,
  simulate: async () => (await import('./commands/simulate.js')).registerSimulateCommand,
  report: async () => (await import('./commands/report.js')).registerReportCommand,
  dashboard: async () => (await import('./commands/dashboard.js')).registerDashboardCommand,
  train: async () => (await import('./commands/train.js')).registerTrainCommand,
  classify: async () => (await import('./commands/classify.js')).registerClassifyCommand,
};

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
  const setCode = (c: number): void => {
    code = c;
  };
  const first = argv[0];
  const named = first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  for (const load of named === undefined ? Object.values(COMMANDS) : [named]) (await load())(program, io, setCode);
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
