import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { type ReadOptions, type ReadResult, readUpTo } from './file-operations';

// A read of lines (FileRoot.read's fromLine and lines): where a line starts, found a
// block at a time, and a read cut at whole lines.

/** The line range of `options`, checked: from line 1, with no limit, by default. */
export function lineRange(options: ReadOptions): { fromLine: number; lines: number | undefined } {
  const { fromLine = 1, lines } = options;
  if (!Number.isSafeInteger(fromLine) || fromLine < 1) {
    throw new Error(`fromLine must be a positive integer, got ${fromLine}`);
  }
  if (lines !== undefined && (!Number.isSafeInteger(lines) || lines < 1)) {
    throw new Error(`lines must be a positive integer, got ${lines}`);
  }
  return { fromLine, lines };
}

/** The size of the blocks a read looks for its first line in. */
const LINE_SEARCH_BLOCK = 64 * 1024;

/** How far apart, in bytes, a search for a line leaves marks of where lines start. */
const MARK_EVERY = 4 * 1024 * 1024;
/** The most marks kept for one file (with MARK_EVERY, 2 GiB of it), and files marked. */
const MARKS_PER_FILE = 512;
const FILES_MARKED = 32;

/**
 * Where lines start in files read lately, so that reading on from a line far into a
 * large file (a log read a page at a time) does not search it from its start each
 * time. A file's marks are dropped when its size or times change; a mark is used only
 * when the byte before it is still a newline.
 */
export class LineMarks {
  readonly #files = new Map<
    string,
    { readonly version: string; readonly marks: Map<number, number> }
  >();

  /** The marks of the open file `info` describes, made empty when it changed. */
  of(info: Stats): Map<number, number> {
    const key = `${info.dev}:${info.ino}`;
    const version = `${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
    let entry = this.#files.get(key);
    // Taken out and put back: the file read longest ago is the first to go.
    this.#files.delete(key);
    if (entry?.version !== version) entry = { version, marks: new Map() };
    this.#files.set(key, entry);
    if (this.#files.size > FILES_MARKED)
      this.#files.delete(this.#files.keys().next().value as string);
    return entry.marks;
  }
}

/** Notes that line `line` starts at byte `offset`, within the marks' bound. */
export function mark(marks: Map<number, number>, line: number, offset: number): void {
  if (line <= 1 || marks.has(line)) return;
  marks.set(line, offset);
  if (marks.size > MARKS_PER_FILE) marks.delete(marks.keys().next().value as number);
}

/**
 * Where line `line` (1 for the first) of the open file of `size` bytes starts, found a
 * block at a time (until `signal` aborts) from the nearest mark before it, leaving marks
 * as it goes; throws, saying how many lines it has, when it has fewer. A NUL byte on the
 * way throws `notText(its offset)` where given: a binary file (a disk image, a core dump)
 * is not searched to its end for lines it does not have.
 */
export async function lineStart(
  handle: FileHandle,
  size: number,
  line: number,
  what: string,
  marks: Map<number, number>,
  signal?: AbortSignal,
  notText?: (offset: number) => Error,
): Promise<number> {
  if (line === 1) return 0;
  let at = 0;
  let newlines = 0;
  for (const [marked, offset] of marks) {
    if (marked <= line && marked - 1 > newlines && offset <= size) {
      at = offset;
      newlines = marked - 1;
    }
  }
  if (at > 0 && !(await newlineBefore(handle, at))) {
    // The file changed under its marks without a change of size or times: start over.
    marks.clear();
    at = 0;
    newlines = 0;
  }
  if (newlines === line - 1) {
    if (at < size) return at;
    throw pastEnd(what, line, newlines);
  }
  const block = Buffer.alloc(Math.min(LINE_SEARCH_BLOCK, Math.max(size - at, 1)));
  let last = at > 0 ? NEWLINE : -1;
  let nextMark = at + MARK_EVERY;
  for (;;) {
    // A long search stops with its call.
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(block, 0, block.length, at);
    if (bytesRead === 0) break;
    const read = block.subarray(0, bytesRead);
    const nul = notText === undefined ? -1 : read.indexOf(0);
    if (nul !== -1) throw notText!(at + nul);
    for (let i = read.indexOf(NEWLINE); i !== -1; i = read.indexOf(NEWLINE, i + 1)) {
      const start = at + i + 1;
      if (++newlines === line - 1) {
        // After the file's last newline there is no line.
        if (start < size) {
          mark(marks, line, start);
          return start;
        }
        throw pastEnd(what, line, newlines);
      }
      if (start >= nextMark) {
        mark(marks, newlines + 1, start);
        nextMark = start + MARK_EVERY;
      }
    }
    last = read[bytesRead - 1] ?? last;
    at += bytesRead;
  }
  throw pastEnd(what, line, newlines + (at > 0 && last !== NEWLINE ? 1 : 0));
}

async function newlineBefore(handle: FileHandle, offset: number): Promise<boolean> {
  const byte = Buffer.alloc(1);
  const { bytesRead } = await handle.read(byte, 0, 1, offset - 1);
  return bytesRead === 1 && byte[0] === NEWLINE;
}

function pastEnd(what: string, line: number, count: number): Error {
  return new Error(
    `${what}: line ${line} is past its end: the file has ${count} line${count === 1 ? '' : 's'}`,
  );
}

const NEWLINE = 0x0a;

/**
 * `content` (read from the start of a line) cut after its `lines`-th line, or, when it
 * was cut short by its byte limit (`cut`), after its last whole line if it has one.
 */
export function wholeLines(
  content: Buffer,
  lines: number | undefined,
  cut: boolean,
): { readonly content: Buffer; readonly shortened: boolean } {
  if (lines !== undefined) {
    let end = -1;
    for (let n = 0; n < lines; n++) {
      end = content.indexOf(NEWLINE, end + 1);
      if (end === -1) break;
    }
    if (end !== -1 && end + 1 < content.length) {
      return { content: content.subarray(0, end + 1), shortened: true };
    }
  }
  if (!cut) return { content, shortened: false };
  const last = content.lastIndexOf(NEWLINE);
  return last === -1
    ? { content, shortened: false }
    : { content: content.subarray(0, last + 1), shortened: true };
}

/**
 * `want` bytes of the open file of `size` bytes from `offset`, the start of line
 * `fromLine`, cut after `lines` lines or at the last whole line a byte limit allows
 * (a plain read from the start, with no line limit, is cut where the bytes end).
 */
export async function readLines(
  handle: FileHandle,
  size: number,
  offset: number,
  want: number,
  { fromLine, lines }: { fromLine: number; lines: number | undefined },
  marks: Map<number, number>,
): Promise<ReadResult> {
  const read = await readUpTo(handle, want, offset);
  const cut = offset + read.length < size;
  if (lines === undefined && fromLine === 1) {
    return { content: read, size, truncated: cut, fromLine, offset };
  }
  const { content, shortened } = wholeLines(read, lines, cut);
  const end = offset + content.length;
  // Where a read on from here starts (the next page of a log).
  if (end < size && content[content.length - 1] === NEWLINE) {
    mark(marks, fromLine + countNewlines(content), end);
  }
  return { content, size, truncated: cut || shortened, fromLine, offset };
}

function countNewlines(content: Buffer): number {
  let count = 0;
  for (let i = content.indexOf(NEWLINE); i !== -1; i = content.indexOf(NEWLINE, i + 1)) count++;
  return count;
}
