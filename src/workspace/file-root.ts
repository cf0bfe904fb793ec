import { constants as fsConstants, realpathSync, statSync, promises as fsPromises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { protectedFolderProblem, type SandboxOptions } from 'agenttool/shell';
import {
  appendAll,
  describeFailure,
  isCode,
  type Op,
  type ReadOptions,
  type ReadResult,
  refuseHardLinked,
  utf8Of,
  type WriteOptions,
} from './file-operations';
import { ConfinedWalk } from './confined-walk';
import { FolderMaking } from './made-folders';
import { LineMarks, lineRange, lineStart, readLines } from './line-range';
import { READ_BYTES_AT_ONCE, readTurn } from './read-budget';
import { FileEdits } from './file-edit';
import { FileChanges } from './file-changes';
import { PathTurns } from './path-turns';
import { hiddenName } from './hidden-links';
import { walkLimits } from './walk-limits';
import { quotePath } from './short-path';
import { notTextError, refuseNotUtf8 } from './utf8-text';
import { refuseUnwritable, replaceFile } from './in-folder';
import { openFinal } from './open-final';

export {
  PathEscapeError,
  type ReadOptions,
  type ReadResult,
  type WriteOptions,
} from './file-operations';
export { READ_BYTES_AT_ONCE } from './read-budget';

const { O_RDONLY, O_WRONLY, O_APPEND, O_NONBLOCK } = fsConstants;

/** How a {@link FileRoot} is set up. */
export interface FileRootOptions {
  /**
   * The sandbox options of the shell that works beside these files (see
   * `agenttool/shell`), whose limits the files keep although no sandbox holds them: what
   * a command may not read (the credentials of `CREDENTIAL_PATHS` under `$HOME`, and
   * `denyRead`) is neither read nor written, and what stays read-only in a writable
   * folder (the code this server runs; shell and tool configuration files, editor and
   * agent folders, a repository's `.git` file, hooks and config: see
   * `writeProtection`) is not written. The defaults' when not given.
   */
  readonly sandbox?: SandboxOptions;
}

export { MAX_PATH_LENGTH } from './confined-walk';

/**
 * File access confined to one root directory. Every path is refused, before anything
 * is opened, created or changed, when it would land outside: `..` that climbs out, an
 * absolute path elsewhere, or a symbolic link (in any component, dangling or not) that
 * points out.
 *
 * The path is walked from the root one component at a time, each directory opened with
 * `O_NOFOLLOW` and the next one opened inside it (through `/proc/self/fd`, Linux's
 * openat for Node), so a directory swapped for a link while a call runs cannot lead it
 * out. Links are read and followed by hand and checked like the path itself. Where the
 * opened directory and file really are is checked again before the data goes in; what
 * the call created outside (a directory moved out of the root meanwhile) is removed
 * through the handle it was made with. Without `/proc` (not Linux), the walk opens
 * each component by its path, which a swap between two steps can still redirect.
 *
 * Inside the root, it keeps the limits of the sandboxed shell that works beside it (see
 * {@link FileRootOptions.sandbox}): where a path leads, links followed, is checked
 * against them before anything is opened or created on its way.
 *
 * Its reads, writes, appends and edits of one path (as given, made absolute) take turns
 * in the order they were called; one whose `signal` aborts while it waits leaves the line.
 */
export class FileRoot {
  /** The root as configured, made absolute. */
  readonly root: string;
  /** The root with its own symbolic links resolved. */
  readonly realRoot: string;
  /** What the workspace keeps from its tools, as real paths (see `walkLimits`). */
  private readonly denyRead: readonly string[];
  /** The edits under way, one file's in turn. */
  readonly #edits = new FileEdits();
  /** The calls on each path, in turn: a model's parallel calls on a file land as sent. */
  /**
   * The changes (writes, appends, edits) its file tools have under way, by the session
   * that sent them: what the workspace's shell commands wait for.
   */
  readonly changes = new FileChanges();
  readonly #calls = new PathTurns();
  /** What an edit, its turn come, reads and writes with (not queued again). */
  readonly #inTurn = {
    resolve: (path: string) => this.resolve(path),
    read: (path: string, options: ReadOptions) => this.#read(path, options),
    write: (path: string, data: string, options: WriteOptions) => this.#write(path, data, options),
  };
  /** The walk of paths from the root, and the limits it keeps. */
  private readonly walker: ConfinedWalk;
  /** The writes and appends under way, and the folders each made on its way. */
  readonly #making: FolderMaking;
  /** Where lines start in files read lately (a read from a line far in). */
  private readonly lineMarks = new LineMarks();

  /**
   * File access confined to `root`, which must be an existing directory (checked now).
   * Throws a `TypeError` naming the setting when `options.sandbox` is malformed.
   */
  constructor(root: string, options: FileRootOptions = {}) {
    if (typeof root !== 'string' || root === '') {
      throw new Error('the root directory is empty; configure an existing directory');
    }
    this.root = resolve(root);
    try {
      this.realRoot = realpathSync(this.root);
    } catch (error) {
      throw new Error(
        `the root directory ${quotePath(this.root)} does not exist; create it or configure another`,
        { cause: error },
      );
    }
    if (!statSync(this.realRoot).isDirectory()) {
      throw new Error(`the root ${quotePath(this.root)} is not a directory`);
    }
    // Before the sandbox's policy, which would say the same of a shell's working folder.
    const problem = protectedFolderProblem(this.realRoot);
    if (problem !== undefined) throw new Error(`the root ${problem}`);
    const { denyRead, denyWrite, homes } = walkLimits(options.sandbox ?? {}, this.realRoot);
    this.denyRead = denyRead;
    this.walker = new ConfinedWalk(this.root, this.realRoot, denyRead, denyWrite, homes);
    this.#making = new FolderMaking(this.walker);
  }

  /**
   * Where `path` leads, with every symbolic link resolved: an absolute path inside the
   * real root. Throws {@link PathEscapeError} when it leads outside. Touches nothing.
   */
  async resolve(path: string): Promise<string> {
    const op = this.op(path, 'resolve', false);
    let components = this.walker.componentsOf(op);
    for (;;) {
      const { dir, rest } = await this.walker.walk(op, components, 'resolve');
      try {
        const [name, ...missing] = rest;
        const target = name === undefined ? undefined : await this.walker.linkAt(dir, name);
        if (target === undefined) return join(dir.path, ...rest);
        components = await this.walker.follow(op, dir.path, target, missing);
      } finally {
        await dir.handle.close();
      }
    }
  }

  /**
   * Reads at most `maxBytes` bytes of a file inside the root. The reads of all roots in
   * this process hold at most {@link READ_BYTES_AT_ONCE} bytes at once (one larger read
   * goes alone); a read past that waits its turn, and leaves the line when `signal`
   * aborts, throwing its reason.
   */
  read(path: string, options: ReadOptions = {}): Promise<ReadResult> {
    return this.#calls.take(this.#key(path), options.signal, () => this.#read(path, options));
  }

  async #read(path: string, options: ReadOptions): Promise<ReadResult> {
    const op = this.op(path, 'read', false);
    const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new Error(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    const { fromLine, lines } = lineRange(options);
    // Taken before the file is opened, so that reads waiting hold no descriptor; what
    // the file's size leaves unused is given back once it is known.
    const reserved = Math.min(maxBytes, READ_BYTES_AT_ONCE);
    const giveBack = await readTurn(reserved, options);
    try {
      // O_NONBLOCK: opening a named pipe must not wait for a writer (it would hang the
      // call and hold a thread of the pool); what is opened is then checked to be a file.
      return await openFinal(
        this.walker,
        this.#making,
        op,
        O_RDONLY | O_NONBLOCK,
        'open',
        async (handle) => {
          const info = await handle.stat();
          if (info.isDirectory())
            throw new Error(`cannot read ${quotePath(path)}: it is a directory`);
          if (!info.isFile()) {
            throw new Error(
              `cannot read ${quotePath(path)}: it is not a regular file (a pipe, socket or device)`,
            );
          }
          if (info.nlink > 1) await this.refuseHiddenName(op, handle, info.nlink);
          const what = `cannot read ${quotePath(path)}`;
          const marks = this.lineMarks.of(info);
          const offset = await lineStart(
            handle,
            info.size,
            fromLine,
            what,
            marks,
            options.signal,
            (at) => notTextError(path, info.size, `a NUL byte at offset ${at}`),
          );
          const want = Math.min(maxBytes, info.size - offset);
          giveBack(reserved - want);
          return readLines(handle, info.size, offset, want, { fromLine, lines }, marks);
        },
      );
    } finally {
      giveBack();
    }
  }

  /**
   * Replaces a file inside the root with `data`, atomically: the data goes to a
   * temporary file beside it, which is then renamed over it, so a reader sees the old
   * content or the new, never a part. Missing parent directories are created. A file
   * reached through a link inside the root is replaced where the link points, and the
   * link stays. Returns the number of bytes written.
   */
  write(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<number> {
    return this.#calls.take(this.#key(path), options.signal, () =>
      this.#write(path, data, options),
    );
  }

  async #write(path: string, data: string | Uint8Array, options: WriteOptions): Promise<number> {
    const op = this.op(path, 'write', true);
    const bytes = utf8Of(op, data);
    options.signal?.throwIfAborted();
    let components = this.walker.componentsOf(op);
    const made = this.#making.begin();
    try {
      for (;;) {
        const { dir, rest } = await this.walker.walk(op, components, 'create', made);
        try {
          const name = rest[0];
          if (name === undefined)
            throw new Error(`cannot write ${quotePath(path)}: it is a directory`);
          const existing = await fsPromises
            .lstat(this.walker.at(dir, name))
            .catch((error: unknown) => {
              if (isCode(error, 'ENOENT')) return undefined;
              throw describeFailure(op, error);
            });
          if (existing?.isSymbolicLink() === true) {
            components = await this.walker.follow(
              op,
              dir.path,
              await fsPromises.readlink(this.walker.at(dir, name)),
              [],
            );
            continue;
          }
          if (existing?.isDirectory() === true) {
            throw new Error(`cannot write ${quotePath(path)}: it is a directory`);
          }
          if (existing !== undefined && !existing.isFile()) {
            throw new Error(
              `cannot write ${quotePath(path)}: it is not a regular file (a pipe, socket or device)`,
            );
          }
          if (existing !== undefined) await refuseUnwritable(this.walker, op, dir, name, existing);
          // The file's permissions, but not its set-user-ID, set-group-ID or sticky bits,
          // which a copy by another user must not carry (as cp does not).
          const keep =
            existing === undefined
              ? undefined
              : { mode: existing.mode & 0o777, uid: existing.uid, gid: existing.gid };
          await replaceFile(this.walker, op, dir, name, bytes, keep, options.signal);
          return bytes.length;
        } finally {
          await dir.handle.close();
        }
      }
    } catch (error) {
      // A file not written leaves none of the folders made on its way (one filled since stays).
      await made.failed();
      throw error;
    } finally {
      await made.end();
    }
  }

  /**
   * Replaces the text of an existing file inside the root with what `change` makes of
   * it, as {@link FileRoot.write} replaces a file, and returns what `change` returned
   * besides. The file must be UTF-8 text of at most 4 MiB. Edits of one
   * file by this root take turns, so that two at once both land; an edit that finds the
   * file changed since it read it (by the shell, say) is refused rather than undo that
   * change.
   */
  update<T>(
    path: string,
    change: (text: string) => { readonly text: string; readonly result: T },
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#calls.take(this.#key(path), options.signal, () =>
      this.#edits.update(this.#inTurn, path, change, options),
    );
  }

  /**
   * Appends `data` to a file inside the root, creating it (and missing parent
   * directories) when absent. Returns the number of bytes appended.
   */
  append(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<number> {
    return this.#calls.take(this.#key(path), options.signal, () =>
      this.#append(path, data, options),
    );
  }

  async #append(path: string, data: string | Uint8Array, options: WriteOptions): Promise<number> {
    const op = this.op(path, 'append to', true);
    const bytes = utf8Of(op, data);
    options.signal?.throwIfAborted();
    const flags = O_WRONLY | O_APPEND | O_NONBLOCK;
    await openFinal(
      this.walker,
      this.#making,
      op,
      flags,
      'create',
      async (handle, removeCreated) => {
        try {
          const info = await handle.stat();
          if (!info.isFile()) {
            throw new Error(
              `cannot append to ${quotePath(path)}: it is not a regular file (a pipe, socket or device)`,
            );
          }
          refuseHardLinked(op, info.nlink);
          await refuseNotUtf8(op, handle, info.size);
          // The last moment the call can still change nothing.
          options.signal?.throwIfAborted();
          await appendAll(op, handle, bytes, info.size);
        } catch (error) {
          // A file this call made and filled with nothing (interrupted, a full disk) goes.
          await removeCreated?.();
          throw error;
        }
      },
    );
    return bytes.length;
  }

  /**
   * Refuses to read a file with more than one hard link when one of its other names
   * lies in what the workspace keeps from its tools (a credential's file linked into the
   * root), or when that cannot be told; any other (pnpm's `node_modules`, linked to its
   * store) is read, as a sandboxed command reads it. Its other names cannot be found
   * from the file: the kept folders are looked through for it, boundedly.
   */
  private async refuseHiddenName(op: Op, handle: FileHandle, links: number): Promise<void> {
    const { dev, ino } = await handle.stat({ bigint: true });
    const hidden = await hiddenName(this.denyRead, dev, ino);
    if (hidden.found === 'no') return;
    if (hidden.found === 'yes') {
      throw new Error(
        `cannot ${op.verb} ${quotePath(op.path)}: it is another name (a hard link) of ${quotePath(hidden.path)}, which the workspace keeps from its tools (credentials, and the paths the sandbox's denyRead names)`,
      );
    }
    refuseHardLinked(op, links);
  }

  /** The key a call on `path` takes its turn by: the path made absolute, links unread. */
  #key(path: string): string {
    return typeof path === 'string' ? resolve(this.root, path) : '';
  }

  private op(path: string, verb: string, writes: boolean): Op {
    return { path, verb, writes, root: this.root, links: 0 };
  }
}
