/**
 * Reading from a line far into a large file: where lines start is remembered (a log read a
 * page at a time is not searched from its start each time), and a file that changed is
 * read as it is now.
 */
import { mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { closeSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRoot } from '../../src/workspace/file-root';
import { LineMarks, lineStart } from '../../src/workspace/line-range';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'line-marks-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Lines of varied lengths, about 12 MB in all: line n is `n` and a run of letters. */
function numberedLines(count: number, salt = 0): string[] {
  return Array.from({ length: count }, (_, i) => `${i + 1} ${'x'.repeat((i * 7 + salt) % 90)}`);
}

/** A handle whose reads are counted, in bytes. */
function counted(handle: FileHandle): { handle: FileHandle; bytes: () => number } {
  let bytes = 0;
  const read = handle.read.bind(handle) as (
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
  ) => Promise<{ bytesRead: number; buffer: Buffer }>;
  const wrapped = new Proxy(handle, {
    get(target, property, receiver) {
      if (property !== 'read') return Reflect.get(target, property, receiver) as unknown;
      return async (buffer: Buffer, offset: number, length: number, position: number) => {
        const result = await read(buffer, offset, length, position);
        bytes += result.bytesRead;
        return result;
      };
    },
  });
  return { handle: wrapped, bytes: () => bytes };
}

describe('reading from a line', () => {
  it('gives the right lines paging on, back and past marks, through FileRoot', async () => {
    const lines = numberedLines(250_000);
    writeFileSync(join(root, 'app.log'), `${lines.join('\n')}\n`);
    const files = new FileRoot(root);
    const page = async (fromLine: number, count: number) =>
      (await files.read('app.log', { fromLine, lines: count })).content.toString();
    const expected = (fromLine: number, count: number) =>
      `${lines.slice(fromLine - 1, fromLine - 1 + count).join('\n')}\n`;
    for (let from = 200_001; from < 200_100; from += 33) {
      expect(await page(from, 33)).toBe(expected(from, 33));
    }
    // Back before what was read, between the marks left on the way, and to the end.
    for (const from of [150_000, 1, 2, 123_457, 199_999, 249_999]) {
      expect(await page(from, 2)).toBe(expected(from, 2));
    }
    await expect(files.read('app.log', { fromLine: 250_001 })).rejects.toThrow(
      'line 250001 is past its end: the file has 250000 lines',
    );
  });

  it('reads a file that changed as it is now, in place or replaced', async () => {
    const path = join(root, 'app.log');
    writeFileSync(path, `${numberedLines(100_000).join('\n')}\n`);
    const files = new FileRoot(root);
    await files.read('app.log', { fromLine: 90_000, lines: 1 });
    // Rewritten in place (the same file, lines of other lengths), then longer.
    const changed = numberedLines(100_000, 5);
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, `${changed.join('\n')}\n`, 0);
    closeSync(descriptor);
    const now = readFileSync(path, 'utf8').split('\n');
    expect((await files.read('app.log', { fromLine: 90_000, lines: 1 })).content.toString()).toBe(
      `${now[89_999]}\n`,
    );
    await files.write('app.log', 'one\ntwo\n');
    await expect(files.read('app.log', { fromLine: 90_000 })).rejects.toThrow(
      'the file has 2 lines',
    );
  });

  it('searches on from the nearest mark, and from the start when a mark is not after a newline', async () => {
    const lines = numberedLines(250_000);
    const path = join(root, 'app.log');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const offsetOf = (line: number) => lines.slice(0, line - 1).join('\n').length + 1;
    const opened = await open(path, 'r');
    try {
      const info = await opened.stat();
      const marks = new LineMarks().of(info);
      const first = counted(opened);
      expect(await lineStart(first.handle, info.size, 200_000, 'app.log', marks)).toBe(
        offsetOf(200_000),
      );
      expect(first.bytes()).toBeGreaterThanOrEqual(offsetOf(200_000));
      // On from it: a block's read, not the file's.
      const next = counted(opened);
      expect(await lineStart(next.handle, info.size, 200_050, 'app.log', marks)).toBe(
        offsetOf(200_050),
      );
      expect(next.bytes()).toBeLessThanOrEqual(64 * 1024 + 1);
      // Back to a line between marks left every 4 MiB on the way: less than the file's start.
      const back = counted(opened);
      expect(await lineStart(back.handle, info.size, 120_000, 'app.log', marks)).toBe(
        offsetOf(120_000),
      );
      expect(back.bytes()).toBeLessThan(offsetOf(120_000) / 2);
      // A mark that no longer falls after a newline is not believed.
      marks.clear();
      marks.set(150_000, offsetOf(150_000) + 3);
      const wrong = counted(opened);
      expect(await lineStart(wrong.handle, info.size, 150_010, 'app.log', marks)).toBe(
        offsetOf(150_010),
      );
      expect(wrong.bytes()).toBeGreaterThanOrEqual(offsetOf(150_010));
    } finally {
      await opened.close();
    }
  });
});
