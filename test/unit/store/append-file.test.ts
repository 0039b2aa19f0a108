import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { AppendFile, type AppendFileOptions } from '../../../src/store/append-file.js';
import { isJsonObjectLine } from '../../../src/store/json-lines.js';
import { readLines } from '../../../src/store/read-lines.js';
import { scratchDirs, killWhileRunning } from '../../helpers/scratch.js';

// The every-offset tests repair (truncate and fsync) hundreds of files: cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-append-');
let files = 0;
/** A path in a new, empty directory. */
function fresh(base = root): string {
  const dir = join(base, `f${++files}`);
  mkdirSync(dir);
  return join(dir, 'data');
}

async function opened(options: AppendFileOptions): Promise<AppendFile> {
  const f = new AppendFile(options);
  await f.start();
  return f;
}

async function lines(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const l of readLines(path)) out.push(l.text);
  return out;
}

/** Records of uneven sizes, some non-ASCII, one larger than the 64-byte test buffer. */
const RECORDS = ['{"i":0}', '{"i":1,"s":"é"}', '{"i":2,"s":"日本語テキスト"}', `{"i":3,"s":"${'x'.repeat(100)}"}`, '{"i":4}'];

describe('AppendFile', () => {
  it('writes records through a small buffer, reports sizes, and reads complete lines back', async () => {
    const path = fresh();
    const f = await opened({ path, framing: { kind: 'lines' }, bufferBytes: 64 });
    let expected = 0;
    for (const r of RECORDS) {
      f.append(`${r}\n`);
      expected += Buffer.byteLength(r) + 1;
      assert.equal(f.size, expected);
    }
    f.append(Buffer.from('{"i":5}\n'));
    await f.flush();
    assert.equal(f.unsyncedBytes, 0);
    assert.equal(readFileSync(path).length, expected + 8);
    await Promise.all([f.close(), f.close()]);
    await f.close();
    assert.deepEqual(await lines(path), [...RECORDS, '{"i":5}']);
    assert.throws(() => f.append('x\n'), /AppendFile\.append\(\): .* is closed/);
    await assert.rejects(f.flush(), /is closed/);
  });

  it('refuses calls before start() and a second start()', async () => {
    const f = new AppendFile({ path: fresh(), framing: { kind: 'lines' } });
    assert.throws(() => f.append('x\n'), /is not started; call and await start\(\) first/);
    await f.start();
    await assert.rejects(f.start(), /already started/);
    await f.close();
  });

  it('refuses appends once close() has been called, and still writes what came before', async () => {
    const path = fresh();
    const f = await opened({ path, framing: { kind: 'lines' } });
    f.append('a\n');
    const closing = f.close();
    assert.throws(() => f.append('b\n'), /is closed/);
    await closing;
    assert.deepEqual(await lines(path), ['a']);
  });

  it('keeps only complete, valid lines when a file is torn at any byte offset', async () => {
    const whole = Buffer.from(RECORDS.map((r) => `${r}\n`).join(''));
    const ends: number[] = [];
    let end = 0;
    for (const r of RECORDS) ends.push((end += Buffer.byteLength(r) + 1));
    for (let cut = 0; cut <= whole.length; cut++) {
      const path = fresh(ramRoot);
      writeFileSync(path, whole.subarray(0, cut));
      const f = await opened({ path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine });
      const survivors = ends.filter((e) => e <= cut).length;
      const kept = survivors === 0 ? 0 : (ends[survivors - 1] as number);
      assert.equal(f.size, kept, `cut at ${cut}`);
      f.append('{"after":true}\n'); // appends go after the repaired end
      await f.close();
      assert.deepEqual(await lines(path), [...RECORDS.slice(0, survivors), '{"after":true}'], `cut at ${cut}`);
    }
  });

  it('cuts from the first line the validator rejects, such as zeros a power loss left', async () => {
    const path = fresh();
    const good = RECORDS.map((r) => `${r}\n`).join('');
    const damage = '\0\0\0\0{"torn"\n{"i":9}\n';
    writeFileSync(path, good + damage);
    const f = new AppendFile({ path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine });
    assert.deepEqual(await f.start(), { isNew: false, keptBytes: Buffer.byteLength(good), droppedBytes: Buffer.byteLength(damage) });
    await f.close();
    assert.deepEqual(await lines(path), RECORDS);
  });

  it('validates only the last repairScanBytes, starting at a line boundary', async () => {
    const path = fresh();
    const body = `not json\n${RECORDS.map((r) => `${r}\n`).join('')}`;
    writeFileSync(path, body);
    const windowed = new AppendFile({ path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine, repairScanBytes: 30 });
    assert.equal((await windowed.start()).droppedBytes, 0, 'the bad first line lies before the scanned window');
    await windowed.close();
    const whole = new AppendFile({ path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine, repairScanBytes: Infinity });
    assert.deepEqual(await whole.start(), { isNew: false, keptBytes: 0, droppedBytes: Buffer.byteLength(body) });
    await whole.close();
  });

  it('fixed-size records with a header: torn header restarted, partial record cut, rejected record cut', async () => {
    const header = Buffer.from('HDR1');
    const records = [1, 2, 3].map((i) => Buffer.from([i, i, i, 0xaa]));
    const whole = Buffer.concat([header, ...records]);
    const isValidRecord = (r: Buffer): boolean => r[3] === 0xaa;
    for (let cut = 0; cut <= whole.length; cut++) {
      const path = fresh(ramRoot);
      writeFileSync(path, whole.subarray(0, cut));
      const f = await opened({ path, framing: { kind: 'fixed', recordBytes: 4 }, header, isValidRecord });
      const expected = cut < 4 ? 4 : 4 + Math.floor((cut - 4) / 4) * 4;
      assert.equal(f.size, expected, `cut at ${cut}`);
      await f.close();
      assert.ok(readFileSync(path).equals(whole.subarray(0, expected)), `cut at ${cut}`);
    }
    const path = fresh();
    writeFileSync(path, Buffer.concat([header, records[0] as Buffer, Buffer.alloc(4), records[1] as Buffer]));
    const f = await opened({ path, framing: { kind: 'fixed', recordBytes: 4 }, header, isValidRecord });
    assert.equal(f.size, 8, 'cut at the zeroed record, and the valid one after it goes too');
    await f.close();
  });

  it('refuses a file that does not start with the header, and leaves it as it was', async () => {
    const path = fresh();
    writeFileSync(path, 'something else entirely\n');
    const f = new AppendFile({ path, framing: { kind: 'lines' }, header: Buffer.from('id\turl\n') });
    await assert.rejects(
      f.start(),
      (err: unknown) => err instanceof ShoalError && err.code === 'IO' && /expected header/.test(err.message),
    );
    assert.equal(readFileSync(path, 'utf8'), 'something else entirely\n');
    await f.close();
  });

  it('writes a dependency out before the file that depends on it, whatever the buffer sizes', async () => {
    const a = await opened({ path: fresh(), framing: { kind: 'lines' }, bufferBytes: 64 });
    const b = await opened({ path: fresh(), framing: { kind: 'lines' }, bufferBytes: 16, dependsOn: [a] });
    for (let i = 0; i < 200; i++) {
      a.append(`a${i}\n`);
      b.append(`b${i}\n`);
      const onDiskB = (await lines(b.path)).length;
      const onDiskA = (await lines(a.path)).length;
      assert.ok(onDiskA >= onDiskB, `step ${i}: ${onDiskB} b lines on disk but only ${onDiskA} a lines`);
    }
    await b.flush();
    assert.equal(a.unsyncedBytes, 0, 'flushing b flushed a');
    await b.close();
    await a.close();
  });

  it('after SIGKILL in the middle of appending, opens, repairs and reads back a prefix of what was written', async () => {
    const path = fresh();
    const moduleUrl = new URL('../../../src/store/append-file.js', import.meta.url).href;
    const child = `
      const [moduleUrl, path] = process.argv.slice(1);
      const { AppendFile } = await import(moduleUrl);
      const f = new AppendFile({ path, framing: { kind: 'lines' }, bufferBytes: 1000 });
      await f.start();
      for (let i = 0; ; i++) {
        f.append(JSON.stringify({ i, pad: 'x'.repeat(i % 37) }) + '\\n');
        if (i % 500 === 499) {
          await f.flush();
          process.stdout.write((i + 1) + '\\n');
        }
      }
    `;
    const { flushed } = await killWhileRunning(child, [moduleUrl, path], 3000);
    const f = new AppendFile({ path, framing: { kind: 'lines' }, isValidRecord: isJsonObjectLine });
    await f.start();
    await f.close();
    const got = await lines(path);
    assert.ok(got.length >= flushed, `${got.length} lines survive, ${flushed} were flushed`);
    got.forEach((line, i) => assert.equal(line, JSON.stringify({ i, pad: 'x'.repeat(i % 37) })));
  });
});
