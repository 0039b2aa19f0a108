/**
 * Structured logs of a node: one JSON object per line (`time`, `level`, `node`, `event`, fields).
 * Logs are for people and alerting; what the crawl did, fetch by fetch, is data and goes to the
 * crawl log and the `shoal:crawl:fetch` channel instead.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

/** Severity of a log line. */
export const LogLevel = { debug: 'debug', info: 'info', warn: 'warn', error: 'error' } as const;
export type LogLevel = (typeof LogLevel)[keyof typeof LogLevel];

/** Fields of one log line: JSON values only. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined | readonly string[]>>;

/** Where a component writes its log lines. */
export interface Log {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Writes nothing. */
export const silentLog: Log = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/** Options of {@link JsonLog}. */
export interface JsonLogOptions {
  /** Written as `node` on every line. */
  readonly node: string;
  /** Lines below this level are dropped. Default `info`. */
  readonly level?: LogLevel;
  /** Wall clock for `time`. Default `Date.now`. */
  readonly now?: () => number;
}

/** JSON-lines log appended to a file (created with its folder). `close()` is idempotent. */
export class JsonLog implements Log {
  private readonly out: WriteStream;
  private readonly min: number;
  private readonly now: () => number;
  private closing: Promise<void> | null = null;

  constructor(
    path: string,
    private readonly options: JsonLogOptions,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.out = createWriteStream(path, { flags: 'a' });
    // A failing log disk must not crash the crawl; the WARC writer reports I/O failures itself.
    this.out.on('error', () => {});
    this.min = RANK[options.level ?? LogLevel.info];
    this.now = options.now ?? Date.now;
  }

  debug(event: string, fields?: LogFields): void {
    this.write(LogLevel.debug, event, fields);
  }

  info(event: string, fields?: LogFields): void {
    this.write(LogLevel.info, event, fields);
  }

  warn(event: string, fields?: LogFields): void {
    this.write(LogLevel.warn, event, fields);
  }

  error(event: string, fields?: LogFields): void {
    this.write(LogLevel.error, event, fields);
  }

  close(): Promise<void> {
    this.closing ??= new Promise((resolve) => this.out.end(() => resolve()));
    return this.closing;
  }

  private write(level: LogLevel, event: string, fields: LogFields | undefined): void {
    if (RANK[level] < this.min || this.closing !== null) return;
    const line = { time: new Date(this.now()).toISOString(), level, node: this.options.node, event, ...fields };
    this.out.write(`${JSON.stringify(line)}\n`);
  }
}
