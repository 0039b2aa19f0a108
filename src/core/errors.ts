/**
 * shoal's exceptions. Expected Web behaviour is data (outcome unions); exceptions are for bugs,
 * infrastructure and bad configuration, grouped by what the caller should do about them.
 *
 * Every exception carries a stable `code` from {@link ERROR_CODES}; docs/errors.md lists them.
 */

/** What the caller should do when it meets the error. */
export const ErrorAction = {
  /** Fix the configuration or the command line; the CLI exits with code 2. */
  fixConfig: 'fix-config',
  /** Transient infrastructure trouble: retrying later may succeed. */
  retry: 'retry',
  /** The component cannot go on; stop cleanly and keep what is on disk. */
  stop: 'stop',
} as const;
export type ErrorAction = (typeof ErrorAction)[keyof typeof ErrorAction];

/** The catalogue: code -> what it means and what to do. */
export const ERROR_CODES = {
  CONFIG_INVALID: { action: ErrorAction.fixConfig, meaning: 'a configuration value is missing, of the wrong type or out of range' },
  CONFIG_FILE_UNREADABLE: { action: ErrorAction.fixConfig, meaning: 'the configuration file cannot be read or parsed' },
  USAGE: { action: ErrorAction.fixConfig, meaning: 'the command line is malformed (unknown flag, missing argument)' },
  PORT_UNAVAILABLE: { action: ErrorAction.retry, meaning: 'a listening socket could not be bound on the requested address and port' },
  GRAPH_FORMAT: {
    action: ErrorAction.stop,
    meaning:
      'a graph for the simulator (TSV edge list, crawl link graph) is missing, unreadable or malformed; the message names the file and line',
  },
  TRUTH_FORMAT: { action: ErrorAction.stop, meaning: 'a ground-truth directory is incomplete, of an unknown version or corrupt' },
  REPLAY_ROOT: {
    action: ErrorAction.fixConfig,
    meaning:
      'a replay folder does not exist or is not a directory, or a WARC file to serve cannot be read as WARC or holds a host already served',
  },
  CRAWL_DIR_LOCKED: {
    action: ErrorAction.fixConfig,
    meaning:
      'another live process is crawling into the same crawl directory: stop it, or choose another --out (a lock of a process that died is released by the kernel)',
  },
  IO: { action: ErrorAction.stop, meaning: 'a file could not be written or read' },
  FRONTIER_CORRUPT: {
    action: ErrorAction.stop,
    meaning: "the persistent frontier found a damaged record before the last segment's tail (a torn tail is repaired, other damage is not)",
  },
  EXCHANGE_MESSAGE_INVALID: {
    action: ErrorAction.stop,
    meaning: 'a message between nodes could not be decoded (the exchange counts it and drops it)',
  },
  EXCHANGE_UNAVAILABLE: {
    action: ErrorAction.retry,
    meaning: 'the message broker (NATS JetStream) cannot be reached or refused an operation',
  },
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** One problem found in a configuration: where it is and what is wrong. */
export interface ConfigIssue {
  /** Dotted path of the field, e.g. `server.port`; empty for the whole document. */
  readonly path: string;
  readonly message: string;
}

/** Base class of every shoal exception. */
export class ShoalError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShoalError';
    this.code = code;
  }
  get action(): ErrorAction {
    return ERROR_CODES[this.code].action;
  }
}

/** A configuration that cannot be used; lists every problem with its path. */
export class ConfigError extends ShoalError {
  readonly issues: readonly ConfigIssue[];
  constructor(
    issues: readonly ConfigIssue[],
    options?: { cause?: unknown; code?: 'CONFIG_INVALID' | 'CONFIG_FILE_UNREADABLE' | 'USAGE' | 'REPLAY_ROOT' },
  ) {
    const lines = issues.map((i) => `  - ${i.path === '' ? '(root)' : i.path}: ${i.message}`);
    super(options?.code ?? 'CONFIG_INVALID', `invalid configuration:\n${lines.join('\n')}`, options);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** True if `err` is a shoal exception whose fix is the configuration (CLI exit code 2). */
export function isConfigProblem(err: unknown): err is ShoalError {
  return err instanceof ShoalError && err.action === ErrorAction.fixConfig;
}
