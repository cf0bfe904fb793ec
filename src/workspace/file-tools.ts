import { resolve } from 'node:path';
import {
  Annotations,
  Param,
  Replay,
  refuseUnknownArguments,
  type Session,
  Tool,
  type ToolContext,
} from 'agenttool';
import { atLines, replaceText } from './file-edit';
import { utf8Text } from './utf8-text';
import { FileRoot } from './file-root';
import { shortPath } from './short-path';

/** How much `read_file` returns when the call does not say. */
export const DEFAULT_READ_BYTES = 256 * 1024;

/**
 * The most `read_file` reads in one call (4 MiB): a larger `max_bytes` is refused, so
 * that one call can never hold a huge file in memory.
 */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

const PATH_DESCRIPTION =
  'Path of the file: relative to the workspace root (the folder the shell starts in, whatever `cd` did since), or absolute under it, as `pwd` or `realpath` print it in the shell; paths that lead outside the root are refused';

export class ReadFileArgs {
  @Param(PATH_DESCRIPTION)
  path!: string;

  @Param(
    `Stop after this many bytes (default ${DEFAULT_READ_BYTES}, at most ${MAX_READ_BYTES}, i.e. 4 MiB)`,
    { optional: true, type: 'integer' },
  )
  max_bytes?: number;

  @Param('The line to start at, 1 for the first (default 1): for a part of a long file', {
    optional: true,
    type: 'integer',
  })
  offset?: number;

  @Param('How many lines to read from there (default: up to max_bytes)', {
    optional: true,
    type: 'integer',
  })
  limit?: number;
}

export class WriteFileArgs {
  @Param(PATH_DESCRIPTION)
  path!: string;

  @Param('The complete new content of the file (UTF-8 text)')
  content!: string;
}

export class AppendFileArgs {
  @Param(PATH_DESCRIPTION)
  path!: string;

  @Param('The text to add at the end of the file (UTF-8)')
  content!: string;
}

export class EditFileArgs {
  @Param(PATH_DESCRIPTION)
  path!: string;

  @Param(
    'The exact text to replace, as the file holds it (whitespace and indentation included): it must occur once, unless replace_all is set',
  )
  old_text!: string;

  @Param('The text to put in its place')
  new_text!: string;

  @Param('Replace every occurrence of old_text (default false: it must occur exactly once)', {
    optional: true,
  })
  replace_all?: boolean;
}

/** Reads a file inside the root. Reading twice changes nothing, so a re-run is safe. */
@Tool({
  name: 'read_file',
  description:
    "Read a text file in the workspace. Paths are relative to the workspace root, not to the shell's current directory; absolute paths inside the workspace work too.",
  args: ReadFileArgs,
})
@Annotations({ title: 'Read a file', readOnly: true })
@Replay('safe')
export class ReadFileTool {
  constructor(private readonly files: FileRoot) {}

  async execute(args: ReadFileArgs, ctx: ToolContext): Promise<string> {
    refuseUnknownArguments(ctx.call, 'read_file', READ_ARGUMENTS);
    const maxBytes = args.max_bytes ?? DEFAULT_READ_BYTES;
    if (maxBytes < 0) throw new Error(`max_bytes must not be negative, got ${maxBytes}`);
    if (maxBytes > MAX_READ_BYTES) {
      throw new Error(
        `max_bytes must be at most ${MAX_READ_BYTES} (4 MiB), got ${maxBytes}: read_file reads no more than that in one call`,
      );
    }
    if (args.offset !== undefined && args.offset < 1) {
      throw new Error(`offset must be a line number, 1 or more, got ${args.offset}`);
    }
    if (args.limit !== undefined && args.limit < 1) {
      throw new Error(`limit must be a number of lines, 1 or more, got ${args.limit}`);
    }
    const { content, size, truncated, offset } = await this.files.read(args.path, {
      maxBytes,
      fromLine: args.offset,
      lines: args.limit,
      signal: ctx.signal,
      whenAnswersRead: answersReadOf(ctx.session),
    });
    const text = utf8Text(content, truncated, args.path, size, offset);
    const ranged = args.offset !== undefined || args.limit !== undefined;
    if (!truncated && !(ranged && offset > 0)) return text;
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    const shown = Buffer.byteLength(text);
    if (ranged) {
      const first = args.offset ?? 1;
      const count = lineCount(text);
      const last = first + count - 1;
      const range =
        count === 0
          ? `nothing from line ${first}`
          : count === 1
            ? `line ${first}`
            : `lines ${first}-${last}`;
      // A line longer than max_bytes is shown cut (the content ends inside it); whether
      // another line follows it is not known.
      const cutLine = truncated && text !== '' && !text.endsWith('\n');
      const next = !truncated
        ? '; the file ends there'
        : count === 0
          ? `; max_bytes ${maxBytes} holds none of it: read with a larger max_bytes`
          : cutLine
            ? `; line ${last} goes on past ${longLine(maxBytes, last)}`
            : `; more follows: read on with offset ${last + 1}`;
      return `${text}${separator}[showed ${range} (${shown} of ${size} bytes)${next}]`;
    }
    const more =
      maxBytes < MAX_READ_BYTES
        ? 'read with a larger max_bytes for more'
        : `read_file reads at most ${MAX_READ_BYTES} bytes`;
    // The next line to start at is the first not shown whole; none when the first is cut.
    const whole = text.split('\n').length - 1;
    if (whole === 0 && maxBytes >= MAX_READ_BYTES) {
      // No larger max_bytes would show more of this line.
      return `${text}${separator}[truncated: showed ${shown} of ${size} bytes; line 1 goes on past ${longLine(maxBytes, 1)}]`;
    }
    const later = whole === 0 ? '' : `, or from line ${whole + 1} on with offset ${whole + 1}`;
    return `${text}${separator}[truncated: showed ${shown} of ${size} bytes; ${more}${later}]`;
  }
}

/**
 * What to do about line `line`, cut at `maxBytes`: read it with a larger `max_bytes`, or,
 * past the most read_file reads (a minified bundle, a one-line JSON), with the shell.
 */
function longLine(maxBytes: number, line: number): string {
  if (maxBytes < MAX_READ_BYTES) return 'max_bytes: read it with a larger max_bytes';
  return `the ${MAX_READ_BYTES} bytes read_file reads at most: look at the rest of it with the shell (for example \`sed -n ${line}p FILE | cut -b ${MAX_READ_BYTES + 1}- | head -c 100000\`), or read on from the next line, if any, with offset ${line + 1}`;
}

/** The whole lines of `text`, and one more for a last line without its newline. */
function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return text === '' || text.endsWith('\n') ? count : count + 1;
}

const READ_ARGUMENTS = ['path', 'max_bytes', 'offset', 'limit'] as const;
const WRITE_ARGUMENTS = ['path', 'content'] as const;
const EDIT_ARGUMENTS = ['path', 'old_text', 'new_text', 'replace_all'] as const;

/**
 * Refuses content with a NUL character: the file tools write text, and `read_file` would
 * refuse the file it made (a NUL is no character of text; binary files are the shell's).
 */
function refuseNul(content: string): void {
  const at = content.indexOf('\0');
  if (at === -1) return;
  throw new Error(
    `content has a NUL character at index ${at}: the file tools write text, which has none; write a binary file with the shell (for example \`base64 -d\` or \`printf\`)`,
  );
}

/** The session's `whenAnswersRead`, called on it, where it has one. */
function answersReadOf(
  session: Session | undefined,
): ((signal?: AbortSignal) => Promise<void> | undefined) | undefined {
  const wait = session?.whenAnswersRead;
  return wait === undefined ? undefined : (signal) => wait.call(session, signal);
}

/**
 * Replaces a file inside the root with the given content (atomically). Writing the same
 * content again leaves the same file, so a re-run is safe.
 */
@Tool({
  name: 'write_file',
  description:
    "Write a text file in the workspace, replacing it if it exists and creating missing directories. Paths are relative to the workspace root, not to the shell's current directory; absolute paths inside the workspace work too.",
  args: WriteFileArgs,
})
@Annotations({ title: 'Write a file', destructive: true, idempotent: true })
@Replay('safe')
export class WriteFileTool {
  constructor(private readonly files: FileRoot) {}

  execute(args: WriteFileArgs, ctx: ToolContext): Promise<string> {
    return this.files.changes.track(ctx.session, this.#write(args, ctx));
  }

  async #write(args: WriteFileArgs, ctx: ToolContext): Promise<string> {
    refuseUnknownArguments(ctx.call, 'write_file', WRITE_ARGUMENTS);
    refuseNul(args.content);
    // A call interrupted before the file changes leaves it as it was.
    const bytes = await this.files.write(args.path, args.content, { signal: ctx.signal });
    return `Wrote ${byteCount(bytes)} to ${shownPath(this.files, args.path)}.`;
  }
}

/**
 * Replaces text in a file inside the root, the rest kept. A re-run after the first one
 * landed finds the old text gone (or, where the new text holds it, replaces again), so
 * its replay stays unknown (the default; there is deliberately no `@Replay`).
 */
@Tool({
  name: 'edit_file',
  description:
    "Edit a text file in the workspace: old_text, which must occur exactly once (or set replace_all), becomes new_text, and the rest of the file is kept. Read the file first: old_text must match it exactly, whitespace and indentation included. Paths are relative to the workspace root, not to the shell's current directory; absolute paths inside the workspace work too.",
  args: EditFileArgs,
})
@Annotations({ title: 'Edit a file', destructive: true, idempotent: false })
export class EditFileTool {
  constructor(private readonly files: FileRoot) {}

  execute(args: EditFileArgs, ctx: ToolContext): Promise<string> {
    return this.files.changes.track(ctx.session, this.#edit(args, ctx));
  }

  async #edit(args: EditFileArgs, ctx: ToolContext): Promise<string> {
    refuseUnknownArguments(ctx.call, 'edit_file', EDIT_ARGUMENTS);
    refuseNul(args.new_text);
    const lines = await this.files.update(
      args.path,
      (text) => {
        const edited = replaceText(
          args.path,
          text,
          args.old_text,
          args.new_text,
          args.replace_all === true,
        );
        return { text: edited.text, result: edited.lines };
      },
      { signal: ctx.signal },
    );
    const where = `${lines.length} occurrence${lines.length === 1 ? '' : 's'}, ${atLines(lines)}`;
    return `Edited ${shownPath(this.files, args.path)}: replaced ${where}.`;
  }
}

/**
 * Appends to a file inside the root. A re-run appends twice, so its replay stays
 * unknown (the default; there is deliberately no `@Replay`).
 */
@Tool({
  name: 'append_file',
  description:
    "Append text to the end of a file in the workspace, creating it if needed. Paths are relative to the workspace root, not to the shell's current directory; absolute paths inside the workspace work too.",
  args: AppendFileArgs,
})
@Annotations({ title: 'Append to a file', destructive: false, idempotent: false })
export class AppendFileTool {
  constructor(private readonly files: FileRoot) {}

  execute(args: AppendFileArgs, ctx: ToolContext): Promise<string> {
    return this.files.changes.track(ctx.session, this.#append(args, ctx));
  }

  async #append(args: AppendFileArgs, ctx: ToolContext): Promise<string> {
    refuseUnknownArguments(ctx.call, 'append_file', WRITE_ARGUMENTS);
    refuseNul(args.content);
    const bytes = await this.files.append(args.path, args.content, { signal: ctx.signal });
    return `Appended ${byteCount(bytes)} to ${shownPath(this.files, args.path)}.`;
  }
}

/**
 * Where a write went, as its answer names it: the path from the root's folder, so that
 * a model that took a relative path for the shell's (after a `cd`) sees where it went.
 */
function shownPath(files: FileRoot, path: string): string {
  return shortPath(resolve(files.root, path));
}

/** `1 byte`, `2 bytes`. */
function byteCount(bytes: number): string {
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}
