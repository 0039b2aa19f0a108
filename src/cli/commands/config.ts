/**
 * `shoal config --defaults [--command crawl|web]`: every option with its default, unit and meaning,
 * as commented YAML. With `--command` the output is one command's configuration, loadable with
 * `--config`; without, every command's in turn (separate YAML documents).
 */
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { defaultsYaml } from '../../config/describe.js';
import { crawlConfigSchema } from '../../config/crawl-config.js';
import { simConfigSchema } from '../../sim/sim-config.js';
import { webConfigSchema } from '../../web/config.js';
import type { CliIo } from '../cli-io.js';

const SCHEMAS = { crawl: crawlConfigSchema, web: webConfigSchema, simulate: simConfigSchema } as const;
type SchemaName = keyof typeof SCHEMAS;

function defaultsOf(name: SchemaName): string {
  const schema = SCHEMAS[name];
  return `# shoal ${name}: every option at its default\n${defaultsYaml(schema, schema.parse({}))}`;
}

export function registerConfigCommand(program: Command, io: CliIo): void {
  program
    .command('config')
    .description('print configuration defaults')
    .option('--defaults', 'print every option with its default, unit and meaning (commented YAML)')
    .option('--command <name>', `only the options of this command (${Object.keys(SCHEMAS).join(', ')}); default: all`)
    .action((opts: { defaults?: boolean; command?: string }) => {
      if (opts.command !== undefined && !(opts.command in SCHEMAS)) {
        throw new ConfigError(
          [{ path: '--command', message: `unknown command ${opts.command}; one of ${Object.keys(SCHEMAS).join(', ')}` }],
          { code: 'USAGE' },
        );
      }
      if (opts.defaults !== true) {
        throw new ConfigError([{ path: '--defaults', message: 'say --defaults to print the defaults' }], { code: 'USAGE' });
      }
      const names = opts.command === undefined ? (Object.keys(SCHEMAS) as SchemaName[]) : [opts.command as SchemaName];
      io.out(names.map(defaultsOf).join('---\n'));
    });
}
