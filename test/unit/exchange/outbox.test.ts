import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { Outbox, SEQ_RESERVATION, type OutboxEntry } from '../../../src/exchange/outbox.js';
import { killWhileRunning, scratchDirs } from '../../helpers/scratch.js';

// The every-offset test repairs (truncates and fsyncs) a copy per byte: cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-outbox-');
let dirs = 0;
function fresh(base = root): string {
  return join(base, `o${++dirs}`);
}

/** The bytes of entry `seq`: uneven lengths, every byte value. */
function payload(seq: number): Uint8Array {
  const b = Buffer.alloc(1 + ((seq * 37) % 90));
  for (let i = 0; i < b.length; i++) b[i] = (seq + i * 31) & 0xff;
  return new Uint8Array(b);
}

function entry(seq: number): OutboxEntry {
  return { seq, to: seq % 5, bytes: payload(seq) };
}

async function opened(dir: string, segmentBytes?: number): Promise<{ outbox: Outbox; entries: readonly OutboxEntry[] }> {
  const outbox = new Outbox({ dir, segmentBytes });
  const entries = await outbox.open();
  return { outbox, entries };
}

/** Takes `n` seqs and appends an entry for each. */
function appendSome(outbox: Outbox, n: number): number[] {
  return Array.from({ length: n }, () => {
    const seq = outbox.takeSeq();
    outbox.append(entry(seq));
    return seq;
  });
}

function segments(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.outbox'))
    .sort();
}

function assertEntries(got: readonly OutboxEntry[], seqs: readonly number[]): void {
  assert.deepStrictEqual(
    got.map((e) => e.seq),
    seqs,
  );
  for (const e of got) assert.deepStrictEqual(e, entry(e.seq), `entry ${e.seq} is intact`);
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('Outbox', () => {
  it('returns what was appended and synced, in order and intact, after a restart; seqs go on', async () => {
    const dir = fresh();
    const { outbox, entries } = await opened(dir);
    assert.deepStrictEqual(entries, []);
    assert.deepStrictEqual(appendSome(outbox, 20), range(1, 20));
    assert.equal(outbox.unconfirmed, 20);
    await outbox.sync();
    await outbox.close();
    await outbox.close();
    const again = await opened(dir);
    assertEntries(again.entries, range(1, 20));
    assert.equal(again.outbox.unconfirmed, 20);
    assert.equal(again.outbox.takeSeq(), 21);
    await again.outbox.close();
  });

  it('rotates by size, deletes a segment once confirmed and no longer written, and re-sends whole segments', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir, 300);
    appendSome(outbox, 24);
    await outbox.sync();
    const names = segments(dir);
    assert.ok(names.length >= 4, `${names.length} segments`);
    assert.equal(names[0], '0000000000000001.outbox');
    const firsts = names.map((n) => Number(n.slice(0, 16)));
    const second = firsts[1] as number;
    for (const f of names) assert.ok(statSync(join(dir, f)).size <= 300 + 20 + 90, `${f} stays near segmentBytes`);
    // Confirm all of the first segment, and one entry of the second.
    for (let s = 1; s <= second; s++) outbox.confirm(s);
    outbox.confirm(second); // a duplicate
    outbox.confirm(9999); // unknown
    assert.equal(outbox.unconfirmed, 24 - second);
    await outbox.sync();
    assert.deepStrictEqual(segments(dir), names.slice(1));
    // The current segment stays while it is written, even when all of it is confirmed.
    const last = firsts[firsts.length - 1] as number;
    for (let s = last; s <= 24; s++) outbox.confirm(s);
    await outbox.sync();
    assert.ok(segments(dir).includes(names[names.length - 1] as string));
    await outbox.close();
    // Closing deleted the confirmed current segment; the partly confirmed second one comes back whole.
    const again = await opened(dir, 300);
    assertEntries(again.entries, range(second, last - 1));
    assert.equal(again.outbox.takeSeq(), 25);
    await again.outbox.close();
  });

  it('keeps takeSeq increasing across restarts even after every segment was deleted', async () => {
    const dir = fresh();
    for (const round of [0, 1, 2]) {
      const { outbox, entries } = await opened(dir, 200);
      assert.deepStrictEqual(entries, []);
      const seqs = appendSome(outbox, 10);
      assert.deepStrictEqual(seqs, range(round * 10 + 1, round * 10 + 10));
      await outbox.sync();
      for (const s of seqs) outbox.confirm(s);
      assert.equal(outbox.unconfirmed, 0);
      await outbox.close();
      assert.deepStrictEqual(segments(dir), []);
    }
  });

  it('after a crash (no close), never hands out a seq again, even one never synced', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir);
    appendSome(outbox, 3);
    await outbox.sync();
    appendSome(outbox, 2); // taken and appended, never synced: the process "dies" here
    const again = await opened(dir);
    assertEntries(again.entries, range(1, 3));
    const next = again.outbox.takeSeq();
    assert.ok(next > 5, `seq ${next} could repeat one handed out before the crash`);
    assert.ok(next <= 1 + SEQ_RESERVATION);
    await again.outbox.close();
  });

  it('resolves overlapping syncs once what was appended before each is durable', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir, 500);
    appendSome(outbox, 10);
    const first = outbox.sync();
    appendSome(outbox, 10);
    const second = outbox.sync();
    const third = outbox.sync(); // nothing new: still waits for the earlier ones
    await third;
    const copy = fresh();
    cpSync(dir, copy, { recursive: true });
    const reread = await opened(copy);
    assertEntries(reread.entries, range(1, 20));
    await Promise.all([first, second, reread.outbox.close(), outbox.close()]);
  });

  it('refuses seqs that do not increase, and use before open or after close', async () => {
    const dir = fresh();
    const outbox = new Outbox({ dir });
    assert.throws(() => outbox.takeSeq(), /not open/);
    await outbox.open();
    outbox.append(entry(3));
    assert.throws(() => outbox.append(entry(3)), RangeError);
    assert.throws(() => outbox.append(entry(2)), RangeError);
    assert.throws(() => outbox.append({ seq: 4, to: -1, bytes: payload(4) }), RangeError);
    assert.equal(outbox.takeSeq(), 4); // an appended seq counts as taken
    await outbox.close();
    assert.throws(() => outbox.append(entry(5)), /closed/);
  });

  it('repairs a last record torn at every byte offset, and appends after it', async () => {
    const dir = fresh(ramRoot);
    const { outbox } = await opened(dir);
    appendSome(outbox, 5);
    await outbox.close();
    const [name] = segments(dir);
    assert.ok(name !== undefined);
    const size = statSync(join(dir, name)).size;
    const lastStart = size - (20 + payload(5).length);
    for (let cut = lastStart; cut < size; cut++) {
      const copy = fresh(ramRoot);
      cpSync(dir, copy, { recursive: true });
      truncateSync(join(copy, name), cut);
      const repaired = await opened(copy);
      assertEntries(repaired.entries, range(1, 4));
      assert.equal(statSync(join(copy, name)).size, lastStart, `cut at ${cut}`);
      const seq = repaired.outbox.takeSeq();
      assert.equal(seq, 6);
      repaired.outbox.append(entry(seq));
      await repaired.outbox.close();
      const reopened = await opened(copy);
      assertEntries(reopened.entries, [1, 2, 3, 4, 6]);
      await reopened.outbox.close();
    }
  });

  it('cuts the last segment at a damaged record or a zero-filled tail', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir);
    appendSome(outbox, 5);
    await outbox.close();
    const [name] = segments(dir);
    assert.ok(name !== undefined);
    const path = join(dir, name);
    const intact = readFileSync(path);
    writeFileSync(path, Buffer.concat([intact, Buffer.alloc(4096)]));
    const zeros = await opened(dir);
    assertEntries(zeros.entries, range(1, 5));
    await zeros.outbox.close();
    assert.equal(statSync(path).size, intact.length);
    const third = 2 * 20 + payload(1).length + payload(2).length; // where record 3 starts
    const damaged = Buffer.from(intact);
    damaged[third + 25] = (damaged[third + 25] ?? 0) ^ 0xff;
    writeFileSync(path, damaged);
    const cut = await opened(dir);
    assertEntries(cut.entries, [1, 2]);
    await cut.outbox.close();
    assert.equal(statSync(path).size, third);
  });

  it('reports a damaged record in an earlier segment as an IO error naming the file and offset', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir, 300);
    appendSome(outbox, 10);
    await outbox.close();
    const [first] = segments(dir);
    assert.ok(first !== undefined && segments(dir).length > 1);
    const path = join(dir, first);
    const bytes = readFileSync(path);
    const second = 20 + payload(1).length;
    bytes[second + 21] = (bytes[second + 21] ?? 0) ^ 1;
    writeFileSync(path, bytes);
    await assert.rejects(new Outbox({ dir }).open(), (err: unknown) => {
      assert.ok(err instanceof ShoalError && err.code === 'IO');
      assert.ok(err.message.includes(path), err.message);
      assert.match(err.message, new RegExp(`offset ${second}\\b`));
      return true;
    });
  });

  it('removes a segment torn at creation without reusing its seqs', async () => {
    const dir = fresh();
    const { outbox } = await opened(dir);
    appendSome(outbox, 3);
    await outbox.close();
    writeFileSync(join(dir, '0000000000000004.outbox'), Buffer.alloc(0));
    const again = await opened(dir);
    assertEntries(again.entries, range(1, 3));
    assert.equal(existsSync(join(dir, '0000000000000004.outbox')), false);
    assert.equal(again.outbox.takeSeq(), 4);
    await again.outbox.close();
  });

  it('refuses a damaged next-seq file', async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'next-seq'), 'garbage\n');
    await assert.rejects(
      new Outbox({ dir }).open(),
      (err: unknown) => err instanceof ShoalError && err.code === 'IO' && /next-seq/.test(err.message),
    );
  });

  it('after SIGKILL while appending, returns every synced entry, in order and intact', async () => {
    const dir = fresh();
    const moduleUrl = new URL('../../../src/exchange/outbox.js', import.meta.url).href;
    const child = `
      const [moduleUrl, dir] = process.argv.slice(1);
      const { Outbox } = await import(moduleUrl);
      const payload = (seq) => {
        const b = Buffer.alloc(1 + (seq * 37) % 90);
        for (let i = 0; i < b.length; i++) b[i] = (seq + i * 31) & 0xff;
        return new Uint8Array(b);
      };
      const outbox = new Outbox({ dir, segmentBytes: 16 * 1024 });
      await outbox.open();
      for (;;) {
        const seq = outbox.takeSeq();
        outbox.append({ seq, to: seq % 5, bytes: payload(seq) });
        if (seq % 50 === 0) {
          await outbox.sync();
          process.stdout.write(seq + '\\n');
        }
      }
    `;
    const { flushed } = await killWhileRunning(child, [moduleUrl, dir], 3000);
    assert.ok(segments(dir).length > 3, 'segments rotated');
    const { outbox, entries } = await opened(dir);
    assert.ok(entries.length >= flushed, `${entries.length} entries survive, ${flushed} were synced`);
    assertEntries(entries, range(1, entries.length));
    assert.ok(outbox.takeSeq() > entries.length);
    await outbox.close();
  });
});
