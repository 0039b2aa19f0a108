/**
 * Reading one record back from a WARC file by its offset, as the crawl log and the CDXJ index name it:
 * for crash recovery (the links of a page fetched after the last checkpoint) and for readers of a
 * crawl's content (the simulator's page texts). Each record is its own gzip member (WARC/1.1 Annex D),
 * so its offset is all a reader needs; its compressed length, when known (the index has it), saves
 * reading more than the member.
 */
import { fstatSync } from 'node:fs';
import { readAt } from '../tail-repair.js';
import { readGzipMember } from './gzip-members.js';
import { parseWarcHead, type ParsedWarcHead } from './warc-record.js';

/** A record read back: its header and its block (for a response, the HTTP message as received). */
export interface StoredRecord {
  readonly head: ParsedWarcHead;
  readonly block: Buffer;
}

/** The first read when the member's length is not known, bytes; doubled until the member is whole. */
const FIRST_READ_BYTES = 64 * 1024;

/**
 * The record whose gzip member starts at `offset` of the open file `fd`; null when no whole, valid
 * member and WARC header are there (a torn or foreign tail). `length`, when known, is the member's
 * compressed length. Reads what it needs with pread; throws only for I/O errors.
 */
export function readRecordAt(fd: number, offset: number, length?: number): StoredRecord | null {
  const fileBytes = fstatSync(fd).size;
  let want = length ?? FIRST_READ_BYTES;
  for (;;) {
    const n = Math.min(want, fileBytes - offset);
    if (n <= 0) return null;
    const member = readGzipMember(readAt(fd, offset, n));
    if (member.kind === 'invalid') return null;
    if (member.kind === 'ok') return recordOf(member.data);
    if (n >= fileBytes - offset) return null; // the member runs past the end of the file
    want = n * 2;
  }
}

function recordOf(data: Buffer): StoredRecord | null {
  const head = parseWarcHead(data);
  if (head === null) return null;
  const blockLength = Number(head.fields.get('content-length') ?? Number.NaN);
  const blockEnd = Number.isSafeInteger(blockLength) ? Math.min(data.length, head.headerLength + blockLength) : data.length;
  return { head, block: data.subarray(head.headerLength, blockEnd) };
}
