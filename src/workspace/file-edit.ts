import { promises as fsPromises } from 'node:fs';
import { type ReadOptions, type ReadResult, type WriteOptions } from './file-operations';
import { utf8Text } from './utf8-text';
import { PathTurns } from './path-turns';
import { quotePath } from './short-path';

/** The largest file an edit reads and rewrites (4 MiB, as `read_file` reads at most). */
export const MAX_EDIT_BYTES = 4 * 1024 * 1024;

/** A file's text after an edit, and the lines (1-based) where the old text began. */
export interface Edited {
  readonly text: string;
  readonly lines: readonly number[];
}

/**
 * `text` (the file `path`'s) with `oldText` replaced by `newText`: its one occurrence,
 * or every one with `replaceAll`. Refuses, saying what to do instead, an empty
 * `oldText`, one the same as `newText`, one not found, one found more than once
 * without `replaceAll`, and an edit that would make the file longer than
 * {@link MAX_EDIT_BYTES} bytes. In a file whose lines all end in CRLF, a text given
 * with LF alone (as models write it) is matched, and written, with CRLF. Occurrences never overlap;
 * the replacement is taken literally (no `$` patterns).
 */
export function replaceText(
  path: string,
  text: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): Edited {
  if (oldText === '') {
    throw new Error(
      'old_text must not be empty: give the text to replace (to write a whole file, use write_file)',
    );
  }
  if (oldText === newText) {
    throw new Error('old_text and new_text are the same: the edit would change nothing');
  }
  // A file whose lines all end in CRLF keeps them so: the new text's bare LFs (as models
  // write them) become CRLF, and an old text given with bare LFs is matched so too.
  const crlfFile = text.includes('\r\n') && !/(?<!\r)\n/.test(text);
  const crlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');
  let from = oldText;
  const to = crlfFile ? crlf(newText) : newText;
  let at = occurrences(text, from);
  if (at.length === 0 && crlfFile && /(?<!\r)\n/.test(oldText)) {
    from = crlf(oldText);
    at = occurrences(text, from);
  }
  if (at.length === 0) {
    throw new Error(
      `old_text was not found in ${quotePath(path)}: it must match the file exactly, whitespace and indentation included; read the file again for its current text`,
    );
  }
  const lines = lineNumbers(text, at);
  if (at.length > 1 && !replaceAll) {
    throw new Error(
      `old_text occurs ${at.length} times in ${quotePath(path)} (${atLines(lines)}): give more of the text around the one to change so that it occurs once, or set replace_all to replace every one`,
    );
  }
  // Bounded before it is made: `replace_all` of a short text by a long one could
  // otherwise make a string of hundreds of megabytes from a file of four.
  // Counted in the bytes the file will hold, as the file's own bound is.
  const bytes =
    Buffer.byteLength(text) + at.length * (Buffer.byteLength(to) - Buffer.byteLength(from));
  if (bytes > MAX_EDIT_BYTES) {
    throw new Error(
      `the edit would make ${quotePath(path)} ${bytes} bytes long, more than an edit makes (${MAX_EDIT_BYTES}, 4 MiB): change it with the shell (sed, a script) instead`,
    );
  }
  const parts: string[] = [];
  let last = 0;
  for (const index of at) {
    parts.push(text.slice(last, index), to);
    last = index + from.length;
  }
  parts.push(text.slice(last));
  return { text: parts.join(''), lines };
}

/** Where `needle` begins in `text`, each occurrence after the one before it ends. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    found.push(i);
  }
  return found;
}

/** The 1-based line of each of `indexes` (ascending) in `text`. */
function lineNumbers(text: string, indexes: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const index of indexes) {
    for (
      let i = text.indexOf('\n', scanned);
      i !== -1 && i < index;
      i = text.indexOf('\n', i + 1)
    ) {
      line++;
      scanned = i + 1;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * `at line 4`, `at lines 4 and 9`, `at lines 4, 9 and 20`, each line once (several
 * occurrences may share one); past ten, the first ten and how many more.
 */
export function atLines(lines: readonly number[]): string {
  const unique = [...new Set(lines)];
  const shown = unique.slice(0, 10).map(String);
  if (unique.length > 10) return `at lines ${shown.join(', ')} and ${unique.length - 10} more`;
  if (shown.length === 1) return `at line ${shown[0]!}`;
  return `at lines ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
}

/** What of a root an edit uses (`FileRoot`'s, which holds the edits). */
interface EditedRoot {
  resolve(path: string): Promise<string>;
  read(path: string, options: ReadOptions): Promise<ReadResult>;
  write(path: string, data: string, options: WriteOptions): Promise<number>;
}

/** What an edit's text change makes: the new text, and what the edit returns besides. */
export type TextChange<T> = (text: string) => { readonly text: string; readonly result: T };

/**
 * The edits of one root's files: each reads its file whole, has `change` make the new
 * text, and replaces the file (see `FileRoot.update`). The edits of one file (by its real
 * path, whatever path led there) take turns.
 */
export class FileEdits {
  readonly #turns = new PathTurns();

  async update<T>(
    root: EditedRoot,
    path: string,
    change: TextChange<T>,
    options: WriteOptions,
  ): Promise<T> {
    const real = await root.resolve(path);
    return this.#turns.take(real, options.signal, () =>
      editOnce(root, path, real, change, options),
    );
  }
}

/** One edit, its turn come: refused when the file changed while it was read. */
async function editOnce<T>(
  root: EditedRoot,
  path: string,
  real: string,
  change: TextChange<T>,
  options: WriteOptions,
): Promise<T> {
  options.signal?.throwIfAborted();
  const identity = async (): Promise<string | undefined> => {
    const info = await fsPromises.lstat(real, { bigint: true }).catch(() => undefined);
    return info === undefined ? undefined : `${info.ino}:${info.size}:${info.mtimeNs}`;
  };
  const read = await identity();
  const { content, size, truncated } = await root.read(path, {
    maxBytes: MAX_EDIT_BYTES,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (truncated) {
    throw new Error(
      `cannot edit ${quotePath(path)}: it holds ${size} bytes, more than an edit takes (${MAX_EDIT_BYTES}, 4 MiB): change it with the shell (sed, a script) instead`,
    );
  }
  const changed = change(utf8Text(content, false, path, size, 0));
  if ((await identity()) !== read) {
    throw new Error(
      `cannot edit ${quotePath(path)}: it changed while the edit read it (the shell, or another program, wrote it): read it again and edit what it holds now`,
    );
  }
  await root.write(path, changed.text, options);
  return changed.result;
}
