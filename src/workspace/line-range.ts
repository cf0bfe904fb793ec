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

/**
 * Where line `line` (1 for the first) of the open file of `size` bytes starts, found a
 * block at a time (until `signal` aborts); throws, saying how many lines it has, when it
 * has fewer.
 */
export async function lineStart(
  handle: FileHandle,
  size: number,
  line: number,
  what: string,
  signal?: AbortSignal,
): Promise<number> {
  if (line === 1) return 0;
  const block = Buffer.alloc(Math.min(LINE_SEARCH_BLOCK, Math.max(size, 1)));
  let at = 0;
  let newlines = 0;
  let last = -1;
  for (;;) {
    // A long search stops with its call.
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(block, 0, block.length, at);
    if (bytesRead === 0) break;
    const read = block.subarray(0, bytesRead);
    for (let i = read.indexOf(NEWLINE); i !== -1; i = read.indexOf(NEWLINE, i + 1)) {
      if (++newlines === line - 1) {
        const start = at + i + 1;
        // After the file's last newline there is no line.
        if (start < size) return start;
        throw pastEnd(what, line, newlines);
      }
    }
    last = read[bytesRead - 1] ?? last;
    at += bytesRead;
  }
  throw pastEnd(what, line, newlines + (at > 0 && last !== NEWLINE ? 1 : 0));
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
): Promise<ReadResult> {
  const read = await readUpTo(handle, want, offset);
  const cut = offset + read.length < size;
  if (lines === undefined && fromLine === 1) {
    return { content: read, size, truncated: cut, fromLine, offset };
  }
  const { content, shortened } = wholeLines(read, lines, cut);
  return { content, size, truncated: cut || shortened, fromLine, offset };
}
