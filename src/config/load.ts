/**
 * Configuration loading: defaults < preset < file (YAML or JSON) < environment < flags, validated
 * by one zod schema per command. Every problem is reported with the dotted path of its field.
 * This is the only module that reads `process.env` (callers pass it in explicitly).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { listFields } from './describe.js';

/** A plain JSON-like object tree (a partial configuration). */
export type ConfigTree = { [key: string]: unknown };

/** Where the layers of a configuration come from; later layers win. */
export interface ConfigSources {
  /** A preset (a partial config) applied over the defaults. */
  readonly preset?: ConfigTree;
  /** Path of a YAML or JSON file. */
  readonly file?: string;
  /** Environment variables (pass `process.env`); only names starting with `envPrefix` are read. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Prefix of environment variable names, e.g. `SHOAL_WEB_`. */
  readonly envPrefix?: string;
  /** Values from command-line flags, already shaped as a partial config tree. */
  readonly flags?: ConfigTree;
}

function isTree(v: unknown): v is ConfigTree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge of plain objects; arrays and scalars of `over` replace those of `base`. */
export function mergeTrees(base: ConfigTree, over: ConfigTree): ConfigTree {
  const out: ConfigTree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const prev = out[k];
    out[k] = isTree(prev) && isTree(v) ? mergeTrees(prev, v) : v;
  }
  return out;
}

/** Sets `value` at a dotted path, creating objects on the way. */
export function setPath(tree: ConfigTree, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!isTree(next)) node[key] = {};
    node = node[key] as ConfigTree;
  }
  node[keys[keys.length - 1] as string] = value;
}

/**
 * Applies `--set PATH=VALUE` flags to `tree` (values parsed as YAML scalars); a flag without `=`
 * is a problem at `--set[i]`.
 */
export function applySets(tree: ConfigTree, sets: readonly string[], problems: ConfigIssue[]): void {
  for (const [i, s] of sets.entries()) {
    const eq = s.indexOf('=');
    if (eq <= 0) problems.push({ path: `--set[${i}]`, message: `expected PATH=VALUE, got ${JSON.stringify(s)}` });
    else setPath(tree, s.slice(0, eq), parseScalar(s.slice(eq + 1)));
  }
}

/** Parses a scalar written on a command line or in an environment variable (YAML rules). */
export function parseScalar(raw: string): unknown {
  try {
    return parseYaml(raw) ?? raw;
  } catch {
    return raw;
  }
}

/** Reads a YAML or JSON configuration file; unreadable or malformed files are a ConfigError. */
export function readConfigFile(path: string): ConfigTree {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '', message: `cannot read config file ${path}: ${(err as Error).message}` }], {
      cause: err,
      code: 'CONFIG_FILE_UNREADABLE',
    });
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError([{ path: '', message: `cannot parse ${path}: ${(err as Error).message}` }], {
      cause: err,
      code: 'CONFIG_FILE_UNREADABLE',
    });
  }
  if (doc === null || doc === undefined) return {};
  if (!isTree(doc)) {
    throw new ConfigError(
      [{ path: '', message: `${path} must hold a mapping of options, not ${Array.isArray(doc) ? 'a list' : typeof doc}` }],
      {
        code: 'CONFIG_FILE_UNREADABLE',
      },
    );
  }
  return doc;
}

/** The environment layer: `PREFIX_SERVER_PORT=8080` sets `server.port` for each documented field. */
export function envTree(schema: z.ZodType, env: Readonly<Record<string, string | undefined>>, prefix: string): ConfigTree {
  const tree: ConfigTree = {};
  for (const field of listFields(schema)) {
    const raw = env[envName(prefix, field.path)];
    if (raw !== undefined) setPath(tree, field.path, parseScalar(raw));
  }
  return tree;
}

/** The environment variable that sets a field: prefix + the path in UPPER_SNAKE_CASE. */
export function envName(prefix: string, path: string): string {
  return (
    prefix +
    path
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/\./g, '_')
      .toUpperCase()
  );
}

/** Turns zod issues into path-labelled config issues. */
export function toIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.flatMap((i) => {
    const path = i.path.map(String);
    // One issue per unknown key, at the key's own path: a typo is then found where it was made.
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => ({
        path: [...path, k].join('.'),
        message: 'unknown option (check the spelling; `shoal config --defaults` lists every option)',
      }));
    }
    return [{ path: path.join('.'), message: i.message }];
  });
}

/** Validates a config tree against a schema, throwing a ConfigError that lists every bad field. */
export function validateConfig<S extends z.ZodType>(schema: S, tree: unknown): z.output<S> {
  const res = schema.safeParse(tree);
  if (!res.success) throw new ConfigError(toIssues(res.error));
  return res.data;
}

/** Loads a configuration from all its layers and validates it. */
export function loadConfig<S extends z.ZodType>(schema: S, sources: ConfigSources = {}): z.output<S> {
  let tree: ConfigTree = sources.preset ?? {};
  if (sources.file !== undefined) tree = mergeTrees(tree, readConfigFile(sources.file));
  if (sources.env !== undefined && sources.envPrefix !== undefined) {
    tree = mergeTrees(tree, envTree(schema, sources.env, sources.envPrefix));
  }
  if (sources.flags !== undefined) tree = mergeTrees(tree, sources.flags);
  return validateConfig(schema, tree);
}
