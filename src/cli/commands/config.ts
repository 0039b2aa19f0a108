/** `shoal config --defaults [--command web]`: every option with its default, unit and meaning. */
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { defaultsYaml } from '../../config/describe.js';
import { webConfigSchema } from '../../web/config.js';
import type { CliIo } from '../main.js';

const SCHEMAS = { web: webConfigSchema } as const;

export function registerConfigCommand(program: Command, io: CliIo): void {
  program.command('config')
    .description('print configuration defaults')
    .option('--defaults', 'print every option with its default, unit and meaning (commented YAML)')
    .option('--command <name>', `the command whose options to print (${Object.keys(SCHEMAS).join(', ')})`, 'web')
    .action((opts: { defaults?: boolean; command: string }) => {
      const schema = SCHEMAS[opts.command as keyof typeof SCHEMAS];
      if (schema === undefined) {
        throw new ConfigError([{ path: '--command', message: `unknown command ${opts.command}; one of ${Object.keys(SCHEMAS).join(', ')}` }], { code: 'USAGE' });
      }
      if (opts.defaults !== true) {
        throw new ConfigError([{ path: '--defaults', message: 'say --defaults to print the defaults' }], { code: 'USAGE' });
      }
      io.out(`# shoal ${opts.command}: every option at its default\n${defaultsYaml(schema, schema.parse({}))}`);
    });
}
