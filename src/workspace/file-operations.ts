import { existsSync, promises as fsPromises, realpathSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { quotePath } from './short-path';

// The parts of FileRoot's operations that need none of its state: the errors and how
// they are worded, the path arithmetic, the bytes of an append, and what a write keeps.

/** What `FileRoot.read` takes besides the path. */
export interface ReadOptions {
  /** Stop after this many bytes (default: the whole file). */
  readonly maxBytes?: number;
  /**
   * Start at this line (1 for the first; default 1): the file is read up to it first,
   * a block at a time. A line past the file's last is refused, saying how many it has.
   */
  readonly fromLine?: number | undefined;
  /**
   * Stop after this many lines (default: no limit). Where `maxBytes` comes first, the
   * content ends at the last whole line within it (unless that leaves none).
   */
  readonly lines?: number | undefined;
  /** The caller's interrupt: a read still waiting for its turn leaves the line. */
  readonly signal?: AbortSignal;
  /**
   * The calling session's `whenAnswersRead`: the read waits, holding no turn, while the
   * client is behind in reading its answers, so that a client slow to read holds back
   * its own next reads (each answer would otherwise wait in memory to be written).
   */
  readonly whenAnswersRead?: ((signal?: AbortSignal) => Promise<void> | undefined) | undefined;
}

/** What `FileRoot.read` returns. */
export interface ReadResult {
  readonly content: Buffer;
  /** The file's size in bytes; more than `content.length` when the read was cut short. */
  readonly size: number;
  /** True when the file holds more after `content`. */
  readonly truncated: boolean;
  /** The line `content` starts at (1 unless `fromLine` said otherwise). */
  readonly fromLine: number;
  /** Where `content` starts in the file, in bytes. */
  readonly offset: number;
}

/** `want` bytes of the open file from `offset`, fewer when it ends before. */
export async function readUpTo(handle: FileHandle, want: number, offset = 0): Promise<Buffer> {
  const content = Buffer.alloc(want);
  let filled = 0;
  while (filled < want) {
    const { bytesRead } = await handle.read(content, filled, want - filled, offset + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return content.subarray(0, filled);
}

/** What `FileRoot.write` and `FileRoot.append` take besides the data. */
export interface WriteOptions {
  /**
   * The caller's interrupt: aborted before the file changes (up to the rename that
   * replaces it, or the append's first byte), the call throws its reason and the file
   * is as it was; aborted after, the change stands.
   */
  readonly signal?: AbortSignal;
}

/**
 * A path that would reach outside the root: through `..`, as an absolute path elsewhere,
 * through a symbolic link, or through a directory moved while the call ran. Thrown
 * before anything outside was touched, or after what the call made there was removed.
 */
export class PathEscapeError extends Error {
  constructor(
    /** The path as it was given. */
    readonly path: string,
    /** The root it must stay in. */
    readonly root: string,
    /** Where it would have led. */
    readonly resolved: string,
    how: string,
  ) {
    super(
      `the path ${quotePath(path)} is outside the root directory ${quotePath(root)}: ${how} it leads to ${quotePath(resolved)}; give a path inside the root, relative to it or absolute under it`,
    );
    this.name = 'PathEscapeError';
  }
}

/** One operation's path, as given, and what it has followed so far. */
export interface Op {
  readonly path: string;
  readonly verb: string;
  /** Whether the operation writes (and so must leave read-only paths alone). */
  readonly writes: boolean;
  /** The root as configured, for errors. */
  readonly root: string;
  links: number;
}

/** The components of a relative path; none for "". */
export function splitPath(path: string): string[] {
  return path.split(sep).filter((part) => part !== '');
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

export function isCode(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

/**
 * A clear error for a failed file operation. The system's own message names the
 * path it was given (here a /proc path of no use to the reader, and maybe huge), so
 * only its first part is kept.
 */
export function describeFailure(op: Op, error: unknown): Error {
  const what = `cannot ${op.verb} ${quotePath(op.path)}`;
  if (error instanceof PathEscapeError) return error;
  if (isCode(error, 'ENOENT') && op.writes) {
    // The walk makes the folders on a written path's way: one gone is one removed since.
    return new Error(`${what}: a folder on its way was removed while the call ran`, {
      cause: error,
    });
  }
  if (isCode(error, 'ENOENT')) {
    // A shell's `cd` persists, so a path it printed may be relative to somewhere else.
    const where = isAbsolute(op.path)
      ? ''
      : ` under the workspace root ${quotePath(op.root)}: relative paths start there, not at the shell's working directory (give the absolute path, as \`realpath FILE\` prints it)`;
    // A name shown where it is not UTF-8 (by ls, by a listing) shows U+FFFD in its place.
    const replaced = op.path.includes('\uFFFD')
      ? '; the path holds U+FFFD (\uFFFD), which stands in for bytes that are not UTF-8 where a name was shown, and no name given here can hold those: rename the file in the shell (a glob matches it, e.g. mv lat?n.txt latin.txt)'
      : '';
    // A name made on macOS may be stored decomposed (NFD), where a model writes it
    // composed (NFC): the bytes differ, and so do the names.
    const spelled =
      op.path.normalize('NFC') !== op.path.normalize('NFD')
        ? '; the path holds letters Unicode spells two ways (é as one character, or as e and a combining accent), and the name on disk may use the other: find it in the shell with a glob (ls caf*), and rename it there to the spelling given here'
        : '';
    return new Error(`${what}: no such file${where}${replaced}${spelled}`, { cause: error });
  }
  if (isCode(error, 'EISDIR')) return new Error(`${what}: it is a directory`, { cause: error });
  if (isCode(error, 'ENXIO')) {
    // Opening a socket, or a pipe without a reader for writing, without blocking.
    return new Error(`${what}: it is not a regular file (a pipe, socket or device)`, {
      cause: error,
    });
  }
  if (isCode(error, 'EACCES', 'EPERM')) {
    return new Error(
      `${what}: permission denied: this server's user may not open it, or pass through a folder on its way`,
      { cause: error },
    );
  }
  if (isCode(error, 'EROFS')) {
    return new Error(`${what}: the file system there is read-only`, { cause: error });
  }
  if (isCode(error, 'ENOTDIR')) {
    return new Error(`${what}: a part of the path that should be a folder is a file`, {
      cause: error,
    });
  }
  if (isCode(error, 'ELOOP')) {
    return new Error(
      `${what}: a part of the path became a symbolic link while the call ran (links are followed only where the workspace can check them)`,
      { cause: error },
    );
  }
  if (isCode(error, 'ENAMETOOLONG')) {
    return new Error(`${what}: a name in it is longer than the file system allows`, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const shown = typeof code === 'string' ? (message.split(', ')[0] ?? message) : message;
  return new Error(`${what}: ${shown.slice(0, 200)}`, { cause: error });
}

/** The longest file name, in bytes, that Linux's and macOS's file systems take. */
const MAX_NAME_BYTES = 255;

/**
 * Refuses a path with a name longer than a file system takes, before the walk makes the
 * folders on its way, which the failure would otherwise leave behind.
 */
export function refuseLongName(op: Op): void {
  const long = op.path.split('/').find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
  if (long === undefined) return;
  const shown = quotePath(long.length > 40 ? `${long.slice(0, 40)}...` : long);
  throw new Error(
    `cannot ${op.verb} ${quotePath(op.path)}: the name ${shown} is ${Buffer.byteLength(long)} bytes long in UTF-8, more than a file name can be (${MAX_NAME_BYTES})`,
  );
}

/**
 * Refuses a file with more than one hard link: the path checks vouch for the name
 * inside the root, not for its other names, which may lie outside it (a hard link is
 * indistinguishable from the original, so an inside one cannot be told from an outside).
 */
export function refuseHardLinked(op: Op, links: number): void {
  if (links > 1) {
    throw new Error(
      `cannot ${op.verb} ${quotePath(op.path)}: the file has ${links - 1} other hard link${links > 2 ? 's' : ''}, which may lie outside the workspace`,
    );
  }
}

/**
 * `paths`, each with its real path beside it when that differs (links resolved): for a
 * path that does not exist yet, the real path of its nearest existing folder and the rest.
 */
export function withRealPaths(paths: readonly string[]): string[] {
  const found = new Set<string>();
  const realFolders = new Map<string, string | undefined>();
  for (const path of paths) {
    const given = resolve(path);
    found.add(given);
    // What is missing now may appear later (a key made after the start): its place is
    // where its nearest existing folder really is, as `$HOME` through a link is.
    let existing = given;
    const missing: string[] = [];
    while (!existsSync(existing) && dirname(existing) !== existing) {
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
    let real = realFolders.get(existing);
    if (!realFolders.has(existing)) {
      try {
        real = realpathSync(existing);
      } catch {
        real = undefined; // gone meanwhile: its path as given
      }
      realFolders.set(existing, real);
    }
    if (real !== undefined) found.add(join(real, ...missing));
  }
  return [...found];
}

/** The longest start of `name` that is at most `maxBytes` bytes of UTF-8, whole characters. */
export function utf8Prefix(name: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of name) {
    bytes += Buffer.byteLength(char, 'utf8');
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return name.slice(0, end);
}

/**
 * Appends `bytes` through `handle` (opened with O_APPEND on a file of `sizeBefore`
 * bytes). On a failure part way (a full disk), what it appended is taken back when the
 * file is still as it left it (no one appended meanwhile); otherwise the error says how
 * much went in, so that a retry does not append it twice.
 */
export async function appendAll(
  op: Op,
  handle: FileHandle,
  bytes: Uint8Array,
  sizeBefore: number,
): Promise<void> {
  let written = 0;
  try {
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
  } catch (error) {
    const failure = describeFailure(op, error);
    if (written === 0) throw failure;
    const size = await handle
      .stat()
      .then((info) => info.size)
      .catch(() => undefined);
    const undone =
      size === sizeBefore + written &&
      (await handle.truncate(sizeBefore).then(
        () => true,
        () => false,
      ));
    if (undone) throw failure;
    throw new Error(
      `${failure.message}; ${written} of its ${bytes.length} bytes were appended before that`,
      { cause: error },
    );
  }
}

/** Removes `path` when it is still the file `handle` holds, and empty; else leaves it. */
export async function removeIfSameAndEmpty(handle: FileHandle, path: string): Promise<void> {
  try {
    const held = await handle.stat();
    const there = await fsPromises.lstat(path);
    if (held.size === 0 && there.ino === held.ino && there.dev === held.dev) {
      await fsPromises.unlink(path);
    }
  } catch {
    // gone, or replaced: nothing of this call's to take back
  }
}

/**
 * Gives the new file the replaced one's permissions exactly (creation took away the
 * umask's bits) and, where this process may (as root, or a group it is in), its owner
 * and group: a file it may not give away becomes its own, as an editor's save does.
 */
export async function keepOwnerAndMode(
  handle: FileHandle,
  keep: { readonly mode: number; readonly uid: number; readonly gid: number },
): Promise<void> {
  const made = await handle.stat();
  if (made.uid !== keep.uid || made.gid !== keep.gid) {
    await handle.chown(keep.uid, keep.gid).catch(async (error: unknown) => {
      if (!isCode(error, 'EPERM')) throw error;
      // Not the owner's: the group alone, when it is one of ours.
      if (made.gid !== keep.gid) await handle.chown(-1, keep.gid).catch(() => undefined);
    });
  }
  // After chown, which clears the set-ID bits (none are kept anyway).
  if ((made.mode & 0o7777) !== keep.mode) await handle.chmod(keep.mode);
}

/**
 * `data` as the bytes to write: text in UTF-8, refused when it holds a lone surrogate
 * (half of a pair, which UTF-8 cannot carry: it would be written as U+FFFD, and the file
 * would not hold what was sent).
 */
export function utf8Of(op: Op, data: string | Uint8Array): Uint8Array {
  if (typeof data !== 'string') return data;
  const lone = /\p{Cs}/u.exec(data);
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new Error(
      `cannot ${op.verb} ${quotePath(op.path)}: the content holds a lone surrogate (U+${unit}, at character ${lone.index}), half of a pair that is not text and that UTF-8 cannot carry; send the character whole`,
    );
  }
  return Buffer.from(data, 'utf8');
}
