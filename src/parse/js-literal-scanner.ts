/**
 * A scanner of JavaScript object literals, as eld's data files write them (see
 * language-table.ts, which reads those files as text instead of importing them). Errors are
 * ShoalError `IO` naming the file and the byte.
 */
import { ShoalError } from '../core/errors.js';

export const QUOTE = 0x27;
export const DOUBLE_QUOTE = 0x22;
export const BACKSLASH = 0x5c;
/** The one-character escapes of JS strings (`\b \f \n \r \t \v \' \" \\ \/`): byte after the backslash -> code unit. */
const SIMPLE_ESCAPES: Readonly<Record<number, number>> = {
  0x62: 8,
  0x66: 12,
  0x6e: 10,
  0x72: 13,
  0x74: 9,
  0x76: 11,
  [QUOTE]: QUOTE,
  [DOUBLE_QUOTE]: DOUBLE_QUOTE,
  [BACKSLASH]: BACKSLASH,
  0x2f: 0x2f,
};

export const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;

/**
 * A scanner of the JavaScript literals eld's data files use: objects (quoted, identifier and
 * integer keys, trailing commas), arrays, strings (escapes `\' \" \\ \/ \b \f \n \r \t \v \0 \xHH
 * \uHHHH`; any other is an error, not a guess), numbers, `true`/`false`/`null`, white space and
 * comments. Keys are decoded into `lastKey` (code units, or code points above U+FFFF) without
 * building strings.
 */
export class LiteralScanner {
  pos = 0;
  /** The last key (or string) read, `lastKeyLength` entries long. */
  readonly lastKey: number[] = [];
  lastKeyLength = 0;

  constructor(
    readonly bytes: Buffer,
    private readonly path: string,
  ) {
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) this.pos = 3;
  }

  error(message: string): ShoalError {
    return new ShoalError('IO', `eld's language data ${this.path} at byte ${this.pos}: ${message}`);
  }

  /** Moves past the first occurrence of an ASCII `marker`. */
  seek(marker: string): void {
    const at = this.bytes.indexOf(marker, this.pos, 'latin1');
    if (at < 0) throw this.error(`no '${marker}'`);
    this.pos = at + marker.length;
  }

  expect(byte: number): void {
    this.skipSpace();
    if (this.bytes[this.pos] !== byte) throw this.error(`expected '${String.fromCharCode(byte)}'`);
    this.pos++;
  }

  /** The next byte after white space and comments. */
  peek(): number | undefined {
    this.skipSpace();
    return this.bytes[this.pos];
  }

  /** Moves past a `,` (after white space) and says whether there was one. */
  skipComma(): boolean {
    if (this.peek() !== 0x2c /* , */) return false;
    this.pos++;
    return true;
  }

  /** Reads `{key: value, ...}`: for each key, `onKey` must read the value. */
  readObject(onKey: (key: string) => void): void {
    this.readList(0x7b /* { */, 0x7d /* } */, () => {
      this.readKey();
      this.expect(0x3a /* : */);
      onKey(this.lastKeyString());
    });
  }

  /** Reads `open`, items separated by commas (a trailing one allowed), then `close`. */
  readList(open: number, close: number, readItem: () => void): void {
    this.expect(open);
    while (this.peek() !== close) {
      readItem();
      if (!this.skipComma()) break;
    }
    this.expect(close);
  }

  /** The last key as an array index (a canonical non-negative integer). */
  keyAsIndex(): number {
    let value = 0;
    const n = this.lastKeyLength;
    for (let i = 0; i < n; i++) {
      const d = (this.lastKey[i] as number) - 0x30;
      if (d < 0 || d > 9 || (i === 0 && d === 0 && n > 1)) throw this.error('expected an integer key');
      value = value * 10 + d;
    }
    if (n === 0) throw this.error('expected an integer key');
    return value;
  }

  /** A decimal number literal, as eld writes them (`176`, `0.832`). */
  readNumber(): number {
    this.skipSpace();
    const start = this.pos;
    while (/[-+.0-9eE]/.test(String.fromCharCode(this.bytes[this.pos] ?? 0x20))) this.pos++;
    const text = this.bytes.toString('latin1', start, this.pos);
    if (!/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/.test(text) || isIdentifierByte(this.bytes[this.pos])) {
      throw this.error(`unsupported number '${text}'`);
    }
    return Number(text);
  }

  /** Any literal value, as a JS value (objects without a prototype). */
  readValue(): unknown {
    this.skipSpace();
    const b = this.bytes[this.pos];
    if (b === 0x7b) {
      const obj = Object.create(null) as Record<string, unknown>;
      this.readObject((key) => {
        obj[key] = this.readValue();
      });
      return obj;
    }
    if (b === 0x5b /* [ */) {
      const items: unknown[] = [];
      this.readList(0x5b, 0x5d /* ] */, () => items.push(this.readValue()));
      return items;
    }
    if (b === QUOTE || b === DOUBLE_QUOTE) {
      this.readKey();
      return this.lastKeyString();
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (
        this.bytes.toString('latin1', this.pos, this.pos + word.length) === word &&
        !isIdentifierByte(this.bytes[this.pos + word.length])
      ) {
        this.pos += word.length;
        return value;
      }
    }
    return this.readNumber();
  }

  private lastKeyString(): string {
    return String.fromCodePoint(...this.lastKey.slice(0, this.lastKeyLength));
  }

  /** A quoted string or a bare identifier/integer key, decoded into `lastKey`. */
  readKey(): void {
    this.skipSpace();
    this.lastKeyLength = 0;
    const quote = this.bytes[this.pos];
    if (quote === QUOTE || quote === DOUBLE_QUOTE) {
      this.pos++;
      for (;;) {
        const b = this.bytes[this.pos];
        if (b === undefined || b === 0x0a || b === 0x0d) throw this.error('unterminated string');
        if (b === quote) break;
        if (b === BACKSLASH) this.readEscape();
        else this.pushKey(this.readCodePoint());
      }
      this.pos++;
      return;
    }
    while (isIdentifierByte(this.bytes[this.pos])) {
      if (this.bytes[this.pos] === BACKSLASH) throw this.error('escape in an identifier key');
      this.pushKey(this.readCodePoint());
    }
    if (this.lastKeyLength === 0) throw this.error('expected a key');
    // A bare number key is canonicalized by JS (`1e3` -> '1000'); only plain integers are taken as they are.
    if (isDigit(this.lastKey[0])) this.keyAsIndex();
  }

  private pushKey(unit: number): void {
    this.lastKey[this.lastKeyLength++] = unit;
  }

  /** One UTF-8 encoded code point. */
  private readCodePoint(): number {
    const b = this.bytes[this.pos++] as number;
    if (b < 0x80) return b;
    const extra = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
    let cp = b & (0x3f >> extra);
    for (let i = 0; i < extra; i++) cp = (cp << 6) | ((this.bytes[this.pos++] as number) & 0x3f);
    return cp;
  }

  /** A string escape (the backslash is at `pos`): the ones eld's files use and the other common ones, else an error. */
  private readEscape(): void {
    const b = this.bytes[++this.pos] as number;
    const simple = SIMPLE_ESCAPES[b];
    if (simple !== undefined) {
      this.pos++;
      this.pushKey(simple);
    } else if (b === 0x78 /* x */) {
      this.pushKey(this.readHex(this.pos + 1, this.pos + 3));
    } else if (b === 0x75 /* u */) {
      this.pushKey(this.readHex(this.pos + 1, this.pos + 5));
    } else if (b === 0x30 && !isDigit(this.bytes[this.pos + 1])) {
      this.pos++;
      this.pushKey(0);
    } else {
      throw this.error(`unsupported escape '\\${String.fromCharCode(b)}'`);
    }
  }

  /** The hex digits from byte `from` to `to` (exclusive) as a number; moves to `to`. */
  private readHex(from: number, to: number): number {
    const text = this.bytes.toString('latin1', from, to);
    if (!/^[0-9a-fA-F]+$/.test(text) || to > this.bytes.length) throw this.error(`bad hex escape '${text}'`);
    this.pos = to;
    return parseInt(text, 16);
  }

  private skipSpace(): void {
    const bytes = this.bytes;
    for (;;) {
      const b = bytes[this.pos];
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
        this.pos++;
      } else if (b === 0x2f /* / */ && bytes[this.pos + 1] === 0x2a /* * */) {
        const close = bytes.indexOf('*/', this.pos + 2, 'latin1');
        if (close < 0) throw this.error('unterminated comment');
        this.pos = close + 2;
      } else if (b === 0x2f && bytes[this.pos + 1] === 0x2f) {
        const end = bytes.indexOf(0x0a, this.pos);
        this.pos = end < 0 ? bytes.length : end + 1;
      } else {
        return;
      }
    }
  }
}

/** Bytes of a bare key or word: ASCII letters, digits, `_`, `$`, `\` and any UTF-8 byte of a non-ASCII character. */
export function isIdentifierByte(b: number | undefined): boolean {
  return (
    b !== undefined &&
    ((b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || isDigit(b) || b === 0x5f || b === 0x24 || b === BACKSLASH || b >= 0x80)
  );
}
