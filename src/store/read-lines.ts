/**
 * Reading the line files of the crawl directory (JSON lines, TSV) while they may still grow.
 */
import { open } from 'node:fs/promises';

const NEWLINE = 0x0a;
const READ_CHUNK_BYTES = 1024 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);

/** One complete line of a file, as {@link readLines} yields it. */
export interface FileLine {
  /** The line without its `\n`, decoded as UTF-8. */
  readonly text: string;
  /** 1-based line number. */
  readonly lineNumber: number;
  /** Offset of the line's first byte in the file. */
  readonly offset: number;
}

/**
 * The complete lines of a file, in order, read in 1 MiB chunks. Bytes after the last `\n` are not
 * yielded: they are a record still being written, or torn by a crash and cut on the next `start()`.
 * With `from`, reading starts at that byte offset (the start of a line); line numbers then count
 * from there.
 */
export async function* readLines(path: string, from = 0): AsyncGenerator<FileLine> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let pending = EMPTY;
    let pendingOffset = from;
    let position = from;
    let lineNumber = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      const buf = pending.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, from)) {
        yield { text: buf.toString('utf8', from, nl), lineNumber: ++lineNumber, offset: pendingOffset + from };
        from = nl + 1;
      }
      pendingOffset += from;
      // Copied: the chunk buffer is reused by the next read.
      pending = Buffer.from(buf.subarray(from));
    }
  } finally {
    await handle.close();
  }
}
