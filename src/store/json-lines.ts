/**
 * JSON-lines stores (`*.jsonl`): one JSON object per line, written through an {@link AppendFile},
 * validated field by field on the way in and on the way out. The crawl log and the page metadata
 * are both this, with their own fields.
 *
 * Why validate on the way in as well: `JSON.stringify` turns `NaN` into `null` and drops
 * `undefined`, so a record the reader would refuse could otherwise be written without a word. A
 * record that fails is a bug in the caller (`RangeError`), not an I/O condition.
 *
 * Why the repair on open checks only "is a JSON object" and not the fields: what the repair rejects
 * is deleted, and a line written by a later version of shoal (a new outcome kind, say) must not be
 * destroyed by an older one. The reader, which deletes nothing, checks every field and ignores
 * fields it does not know.
 */
import { ShoalError } from '../core/errors.js';
import { AppendFile, type AppendFileOptions, type AppendRepairReport } from './append-file.js';
import { readLines } from './read-lines.js';

/** A check of one field's value, and what it expects (for error messages). */
export interface FieldCheck {
  readonly test: (value: unknown) => boolean;
  /** What a valid value is, e.g. `a non-negative integer`. */
  readonly expects: string;
  /**
   * For a field added after the store's first release: the value it reads as in a line written
   * before it existed (see {@link addedLater}). Writers must still give it.
   */
  readonly absentAs?: unknown;
}

/** Checks for every field of a record type: the compiler makes sure none is forgotten. */
export type RecordShape<T> = { readonly [K in keyof T]-?: FieldCheck };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const HEX16 = /^[0-9a-f]{16}$/;

/** Field checks shared by the JSON-lines stores. */
export const Checks = {
  string: { test: (v) => typeof v === 'string', expects: 'a string' },
  nonEmptyString: { test: (v) => typeof v === 'string' && v.length > 0, expects: 'a non-empty string' },
  boolean: { test: (v) => typeof v === 'boolean', expects: 'true or false' },
  count: { test: (v) => Number.isSafeInteger(v) && (v as number) >= 0, expects: 'a non-negative integer' },
  ms: { test: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expects: 'a non-negative finite number of milliseconds' },
  isoTime: {
    test: (v) => typeof v === 'string' && ISO_TIME.test(v) && !Number.isNaN(Date.parse(v)),
    expects: 'an ISO 8601 UTC time (YYYY-MM-DDThh:mm:ss[.fff]Z)',
  },
  hex16: { test: (v) => typeof v === 'string' && HEX16.test(v), expects: '16 lowercase hex digits' },
} as const satisfies Record<string, FieldCheck>;

/** The same check, also accepting `null`. */
export function nullable(check: FieldCheck): FieldCheck {
  return { test: (v) => v === null || check.test(v), expects: `${check.expects} or null` };
}

/**
 * The same check, for a field that lines written by an earlier shoal lack: read back, such a line
 * gets `absentAs` (null by default), so that a crawl directory made before the field existed still
 * resumes and reports. Appending still requires the field.
 */
export function addedLater(check: FieldCheck, absentAs: unknown = null): FieldCheck {
  return { ...check, absentAs };
}

/** A probability: a number in [0, 1]. */
export const probabilityCheck: FieldCheck = { test: (v) => typeof v === 'number' && v >= 0 && v <= 1, expects: 'a number in [0, 1]' };

/** A check that accepts one of `values`. */
export function oneOf(values: readonly string[]): FieldCheck {
  const set = new Set(values);
  return { test: (v) => typeof v === 'string' && set.has(v), expects: `one of ${values.join(', ')}` };
}

/** A check of a nested object by its own shape. */
export function object<T>(shape: RecordShape<T>): FieldCheck {
  return { test: (v) => problemOf(v, shape) === null, expects: `an object {${Object.keys(shape).join(', ')}}` };
}

/** The 64-bit SimHash as these stores write it: 16 lowercase hex digits. */
export function simhashHex(simhash: bigint): string {
  return BigInt.asUintN(64, simhash).toString(16).padStart(16, '0');
}

/** Each shape's fields as a list, made once: a record is checked on every append and every read. */
const fieldLists = new WeakMap<object, ReadonlyArray<readonly [string, FieldCheck]>>();

function fieldsOf<T>(shape: RecordShape<T>): ReadonlyArray<readonly [string, FieldCheck]> {
  let fields = fieldLists.get(shape);
  if (fields === undefined) {
    fields = Object.entries(shape) as Array<[string, FieldCheck]>;
    fieldLists.set(shape, fields);
  }
  return fields;
}

/** What is wrong with `value` as a record of `shape` (the first problem), or null. Unknown fields are allowed. */
export function problemOf<T>(value: unknown, shape: RecordShape<T>): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  for (const [field, check] of fieldsOf(shape)) {
    if (!(field in record)) return `field "${field}" is missing`;
    if (!check.test(record[field])) return `field "${field}" is ${JSON.stringify(record[field])}, expected ${check.expects}`;
  }
  return null;
}

/** Gives a record read back the fields added after it was written ({@link addedLater}). */
function fillAbsent<T>(value: unknown, shape: RecordShape<T>): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  for (const [field, check] of fieldsOf(shape)) {
    if (check.absentAs !== undefined && !(field in record)) record[field] = check.absentAs;
  }
}

/** The repair test of every JSON-lines store: the line is a JSON object (see the file comment). */
export function isJsonObjectLine(line: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(line.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false; // not JSON: the line is torn or damaged, which is what the caller asks
  }
}

/** Buffer and sync options of a JSON-lines store (see {@link AppendFileOptions}). */
export type JsonLinesFileOptions = Pick<AppendFileOptions, 'bufferBytes' | 'syncEveryBytes' | 'repairScanBytes' | 'dependsOn'>;

/** A JSON-lines file of records of type T: validated, serialized in a fixed field order, appended. */
export class JsonLinesWriter<T extends object> {
  private readonly file: AppendFile;

  /**
   * @param name what the records are, for error messages (`crawl log entry`).
   * @param shape the field checks; their order is the order fields are written in.
   */
  constructor(
    path: string,
    private readonly name: string,
    private readonly shape: RecordShape<T>,
    options: JsonLinesFileOptions = {},
  ) {
    this.file = new AppendFile({ ...options, path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine });
  }

  /** The underlying file (for `dependsOn` of another store). */
  get appendFile(): AppendFile {
    return this.file;
  }

  /** Creates the file, or cuts a torn last line of an existing one. */
  start(): Promise<AppendRepairReport> {
    return this.file.start();
  }

  /**
   * Appends one record. Fields not in the shape are not written.
   *
   * @throws RangeError when a field does not pass its check (nothing is written).
   */
  append(record: T): void {
    const problem = problemOf(record, this.shape);
    if (problem !== null) throw new RangeError(`invalid ${this.name}: ${problem}`);
    const out: Record<string, unknown> = {};
    for (const [field] of fieldsOf(this.shape)) out[field] = (record as Record<string, unknown>)[field];
    this.file.append(`${JSON.stringify(out)}\n`);
  }

  /** Makes every record appended so far durable. */
  flush(): Promise<void> {
    return this.file.flush();
  }

  /** Flushes and closes; idempotent. */
  close(): Promise<void> {
    return this.file.close();
  }
}

/**
 * The records of a JSON-lines file, each checked against `shape`. A trailing line without `\n` is
 * skipped (being written, or torn: the writer's `start()` cuts it).
 *
 * @throws ShoalError `IO` naming the file and line when a complete line is not valid JSON or fails
 *   a check: damage a crash cannot cause by itself.
 */
export async function* readJsonLines<T>(path: string, name: string, shape: RecordShape<T>): AsyncGenerator<T> {
  for await (const line of readLines(path)) {
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (err) {
      throw new ShoalError('IO', `${path}:${line.lineNumber}: not valid JSON`, { cause: err });
    }
    fillAbsent(value, shape);
    const problem = problemOf(value, shape);
    if (problem !== null) throw new ShoalError('IO', `${path}:${line.lineNumber}: invalid ${name}: ${problem}`);
    yield value as T;
  }
}
