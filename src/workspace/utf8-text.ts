/**
 * What the file tools hold of text: a file is UTF-8 text or is refused, so that what a
 * model reads is what the file holds, and what it appends keeps one encoding.
 */
import { promises as fsPromises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { type Op } from './file-operations';
import { quotePath } from './short-path';

/**
 * The error for a file `read_file` will not return: not UTF-8 text (`what` says why: a
 * NUL byte, bytes that are not UTF-8), with its size and a hint to look at it with the
 * shell.
 */
export function notTextError(path: string, size: number, what: string): Error {
  return new Error(
    `the file ${quotePath(path)} is not UTF-8 text (${size} bytes, with ${what}): read_file returns text only; look at it with the shell instead (for example \`file\`, \`xxd | head\` or \`base64\`)`,
  );
}

/**
 * `content` (read from byte `start` of the file) as text, or an error saying the file is
 * not UTF-8 text: a NUL byte or bytes
 * that are not UTF-8 would reach the model as replacement characters, and a file read
 * so and written back would be changed. A byte order mark is kept, as the file has it. A
 * read cut short may end inside a character, which is left out.
 */
export function utf8Text(
  content: Buffer,
  truncated: boolean,
  path: string,
  size: number,
  start: number,
): string {
  const nul = content.indexOf(0);
  let text: string | undefined;
  if (nul === -1) {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content, {
        stream: truncated,
      });
    } catch {
      text = undefined;
    }
  }
  if (text !== undefined) return text;
  // The offset in the file, not in the part read (from a line far in).
  throw notTextError(
    path,
    size,
    nul === -1 ? 'bytes that are not UTF-8' : `a NUL byte at offset ${start + nul}`,
  );
}

/** An existing file up to this size is read whole to see that it is UTF-8 text. */
const APPEND_CHECK_BYTES = 1024 * 1024;
/** Of a larger one, this much of its end is read. */
const APPEND_TAIL_BYTES = 64 * 1024;

/**
 * Refuses to append UTF-8 to a file that is not UTF-8 text (latin-1, a binary file):
 * the file would then hold two encodings, and `read_file` refuses it whole. Reads the
 * file open as `handle` (of `size` bytes) again through its descriptor: whole up to
 * 1 MiB, else its last 64 KiB. Where that cannot be opened for reading (a file this
 * process may write but not read, no `/proc`), the file is not checked.
 */
export async function refuseNotUtf8(op: Op, handle: FileHandle, size: number): Promise<void> {
  if (size === 0) return;
  let reader: FileHandle;
  try {
    reader = await fsPromises.open(`/proc/self/fd/${handle.fd}`, 'r');
  } catch {
    return;
  }
  try {
    const whole = size <= APPEND_CHECK_BYTES;
    const length = whole ? size : APPEND_TAIL_BYTES;
    const start = size - length;
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await reader.read(buffer, 0, length, start);
    let bytes = buffer.subarray(0, bytesRead);
    let skipped = 0;
    // Read from within the file, the part may begin inside a character.
    while (!whole && skipped < 3 && (bytes[skipped]! & 0xc0) === 0x80) skipped++;
    bytes = bytes.subarray(skipped);
    const nul = bytes.indexOf(0);
    let what: string | undefined;
    if (nul !== -1) what = `a NUL byte at offset ${start + skipped + nul}`;
    else {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        // A text that is whole but for its end reads so with `stream`.
        let cut = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
        } catch {
          cut = false;
        }
        what = cut ? 'an end inside a character' : 'bytes that are not UTF-8';
      }
    }
    if (what !== undefined) {
      throw new Error(
        `cannot ${op.verb} ${quotePath(op.path)}: it is not UTF-8 text (${size} bytes, with ${what}), and append_file adds UTF-8 text only: change it with the shell instead`,
      );
    }
  } finally {
    await reader.close();
  }
}
