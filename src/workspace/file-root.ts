import type * as Crypto from 'node:crypto';
import {
  constants as fsConstants,
  existsSync,
  realpathSync,
  statSync,
  promises as fsPromises,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { type SandboxOptions, sandboxPolicy, writeProtection } from 'agenttool/shell';
import {
  appendAll,
  describeFailure,
  inside,
  isCode,
  type Op,
  PathEscapeError,
  refuseHardLinked,
  splitPath,
  utf8Prefix,
  withRealPaths,
} from './file-operations';
import { landingOf } from './landing';
import { quotePath } from './short-path';

export { PathEscapeError } from './file-operations';

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } =
  fsConstants;

/** What {@link FileRoot.read} returns. */
export interface ReadResult {
  readonly content: Buffer;
  /** The file's size in bytes; more than `content.length` when the read was cut short. */
  readonly size: number;
  readonly truncated: boolean;
}

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

/** The longest path accepted, in characters (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** Symbolic links followed for one path before giving up, as the OS does (ELOOP). */
const MAX_LINKS = 40;
/** How often one missing directory of a path is made and opened before giving up. */
const MAX_ATTEMPTS = 3;

/**
 * Where Linux shows a process's descriptors. `<FD_DIR>/<fd>/<name>` opens `name` in the
 * directory open as `fd`, whatever path now leads there (openat, for Node), and
 * reading the link `<FD_DIR>/<fd>` tells where that file or directory is now.
 */
const FD_DIR = '/proc/self/fd';

/** A directory opened during a walk, and the path it was reached by. */
interface Dir {
  readonly handle: FileHandle;
  readonly path: string;
}

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
 */
export class FileRoot {
  /** The root as configured, made absolute. */
  readonly root: string;
  /** The root with its own symbolic links resolved. */
  readonly realRoot: string;
  /** Whether directories are walked through their handles (Linux's /proc). */
  private readonly anchored: boolean;
  /** Paths neither read nor written (a sandboxed command cannot read them). */
  private readonly denyRead: readonly string[];
  /** Paths not written (the code this server runs). */
  private readonly denyWrite: readonly string[];

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
    this.anchored = existsSync(FD_DIR);
    const policy = sandboxPolicy(options.sandbox ?? {}, process.env['HOME'], this.realRoot);
    this.denyRead = withRealPaths(policy.denyRead);
    this.denyWrite = withRealPaths(policy.denyWrite);
  }

  /**
   * Where `path` leads, with every symbolic link resolved: an absolute path inside the
   * real root. Throws {@link PathEscapeError} when it leads outside. Touches nothing.
   */
  async resolve(path: string): Promise<string> {
    const op = this.op(path, 'resolve', false);
    let components = this.componentsOf(op);
    for (;;) {
      const { dir, rest } = await this.walk(op, components, 'resolve');
      try {
        const [name, ...missing] = rest;
        const target = name === undefined ? undefined : await this.linkAt(dir, name);
        if (target === undefined) return join(dir.path, ...rest);
        components = await this.follow(op, dir.path, target, missing);
      } finally {
        await dir.handle.close();
      }
    }
  }

  /** Reads at most `maxBytes` bytes of a file inside the root. */
  async read(path: string, options: { maxBytes?: number } = {}): Promise<ReadResult> {
    const op = this.op(path, 'read', false);
    const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new Error(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    // O_NONBLOCK: opening a named pipe must not wait for a writer (it would hang the
    // call and hold a thread of the pool); what is opened is then checked to be a file.
    const handle = await this.openFinal(op, O_RDONLY | O_NONBLOCK, 'open');
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new Error(`cannot read ${quotePath(path)}: it is a directory`);
      if (!info.isFile()) {
        throw new Error(
          `cannot read ${quotePath(path)}: it is not a regular file (a pipe, socket or device)`,
        );
      }
      refuseHardLinked(op, info.nlink);
      const want = Math.min(maxBytes, info.size);
      const content = Buffer.alloc(want);
      let filled = 0;
      while (filled < want) {
        const { bytesRead } = await handle.read(content, filled, want - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return {
        content: content.subarray(0, filled),
        size: info.size,
        truncated: filled < info.size,
      };
    } finally {
      await handle.close();
    }
  }

  /**
   * Replaces a file inside the root with `data`, atomically: the data goes to a
   * temporary file beside it, which is then renamed over it, so a reader sees the old
   * content or the new, never a part. Missing parent directories are created. A file
   * reached through a link inside the root is replaced where the link points, and the
   * link stays. Returns the number of bytes written.
   */
  async write(path: string, data: string | Uint8Array): Promise<number> {
    const op = this.op(path, 'write', true);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let components = this.componentsOf(op);
    for (;;) {
      const { dir, rest } = await this.walk(op, components, 'create');
      try {
        const name = rest[0];
        if (name === undefined)
          throw new Error(`cannot write ${quotePath(path)}: it is a directory`);
        const existing = await fsPromises.lstat(this.at(dir, name)).catch((error: unknown) => {
          if (isCode(error, 'ENOENT')) return undefined;
          throw describeFailure(op, error);
        });
        if (existing?.isSymbolicLink() === true) {
          components = await this.follow(
            op,
            dir.path,
            await fsPromises.readlink(this.at(dir, name)),
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
        // The file's permissions, but not its set-user-ID, set-group-ID or sticky bits,
        // which a copy by another user must not carry (as cp does not).
        const mode = existing === undefined ? 0o666 : existing.mode & 0o777;
        await this.replace(op, dir, name, bytes, mode);
        return bytes.length;
      } finally {
        await dir.handle.close();
      }
    }
  }

  /**
   * Appends `data` to a file inside the root, creating it (and missing parent
   * directories) when absent. Returns the number of bytes appended.
   */
  async append(path: string, data: string | Uint8Array): Promise<number> {
    const op = this.op(path, 'append to', true);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const handle = await this.openFinal(op, O_WRONLY | O_APPEND | O_NONBLOCK, 'create');
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        throw new Error(
          `cannot append to ${quotePath(path)}: it is not a regular file (a pipe, socket or device)`,
        );
      }
      refuseHardLinked(op, info.nlink);
      await appendAll(op, handle, bytes, info.size);
    } finally {
      await handle.close();
    }
    return bytes.length;
  }

  private op(path: string, verb: string, writes: boolean): Op {
    return { path, verb, writes, root: this.root, links: 0 };
  }

  /**
   * Refuses `components` (a path below the real root, where `op.path` leads once its
   * links so far are followed) when `op` may not touch it: a path a sandboxed command
   * could not read, or, for a write, one it could not write.
   */
  private guard(op: Op, components: string[]): string[] {
    const path = join(this.realRoot, ...components);
    const what = `cannot ${op.verb} ${quotePath(op.path)}`;
    const unreadable = this.denyRead.find((denied) => inside(denied, path));
    if (unreadable !== undefined) {
      throw new Error(
        `${what}: it is in ${quotePath(unreadable)}, which the workspace keeps from its tools (credentials, and the paths the sandbox's denyRead names)`,
      );
    }
    if (!op.writes) return components;
    const code = this.denyWrite.find((denied) => inside(denied, path));
    if (code !== undefined) {
      throw new Error(
        `${what}: it is in ${quotePath(code)}, the code this server runs, which stays read-only`,
      );
    }
    const protection = writeProtection(components);
    if (protection !== undefined) throw new Error(`${what}: ${protection}`);
    return components;
  }

  /** The components of `path` under the real root, once checked; no link is followed. */
  private componentsOf(op: Op): string[] {
    const { path } = op;
    if (typeof path !== 'string' || path === '') {
      throw new Error('the path is empty; give a file path inside the root');
    }
    if (path.length > MAX_PATH_LENGTH) {
      throw new Error(
        `the path ${quotePath(path)} is ${path.length} characters long; the limit is ${MAX_PATH_LENGTH}`,
      );
    }
    if (path.includes('\0')) {
      throw new Error(`the path ${quotePath(path)} contains a NUL character`);
    }
    // Resolved, "dir/" or "file/." would lose what the ending says: a directory.
    if (/\/\.{0,2}$/.test(path)) {
      throw new Error(
        `cannot ${op.verb} ${quotePath(path)}: a path that ends in "/", "/." or "/.." names a directory; give the path of a file`,
      );
    }
    for (const base of [this.root, this.realRoot]) {
      const candidate = resolve(base, path);
      if (inside(base, candidate)) return this.guard(op, splitPath(relative(base, candidate)));
    }
    const how = isAbsolute(path) ? 'it is absolute and' : 'its ".." climbs out, and';
    throw new PathEscapeError(path, this.root, resolve(this.root, path), how);
  }

  /**
   * Opens the file `op.path` names with `flags` plus O_NOFOLLOW, following links by
   * hand; with `create`, a missing file (and missing directories) is created. The file
   * is checked to be inside the root before it is returned; one it created outside is
   * removed.
   */
  private async openFinal(op: Op, flags: number, mode: 'open' | 'create'): Promise<FileHandle> {
    let components = this.componentsOf(op);
    for (;;) {
      const { dir, rest } = await this.walk(op, components, mode);
      try {
        const name = rest[0];
        if (name === undefined) {
          throw new Error(`cannot ${op.verb} ${quotePath(op.path)}: it is a directory`);
        }
        const opened = await this.openIn(op, dir, name, flags, mode === 'create');
        if ('link' in opened) {
          components = await this.follow(op, dir.path, opened.link, []);
          continue;
        }
        await this.checkInside(op, opened.handle, join(dir.path, name), async () => {
          await opened.handle.close();
          if (opened.created) await fsPromises.unlink(this.at(dir, name));
        });
        return opened.handle;
      } finally {
        await dir.handle.close();
      }
    }
  }

  /** Opens `name` in `dir` without following it: a handle, or the link it is. */
  private async openIn(
    op: Op,
    dir: Dir,
    name: string,
    flags: number,
    create: boolean,
  ): Promise<{ handle: FileHandle; created: boolean } | { link: string }> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return {
          handle: await fsPromises.open(this.at(dir, name), flags | O_NOFOLLOW),
          created: false,
        };
      } catch (error) {
        if (isCode(error, 'ELOOP')) {
          const link = await this.linkAt(dir, name);
          if (link !== undefined) return { link };
        }
        if (!create || !isCode(error, 'ENOENT') || attempt >= MAX_LINKS) {
          throw describeFailure(op, error);
        }
      }
      // Missing: create it, exclusively, so that we know it is ours to remove.
      try {
        const flagsCreate = flags | O_NOFOLLOW | O_CREAT | O_EXCL;
        return {
          handle: await fsPromises.open(this.at(dir, name), flagsCreate, 0o666),
          created: true,
        };
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw describeFailure(op, error);
      }
    }
  }

  /**
   * Writes `bytes` to a temporary file in `dir` and renames it over `name`. The
   * temporary file is made, and removed on failure, through the directory's handle.
   */
  private async replace(op: Op, dir: Dir, name: string, bytes: Uint8Array, mode: number) {
    // node:crypto loads with the first write, not with the workspace's start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
    const { randomBytes } = require('node:crypto') as typeof Crypto;
    const temporary = `.${utf8Prefix(name, 100)}.${randomBytes(6).toString('hex')}.tmp`;
    const removeTemporary = () => fsPromises.unlink(this.at(dir, temporary)).catch(() => undefined);
    let handle: FileHandle;
    try {
      handle = await fsPromises.open(
        this.at(dir, temporary),
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
        mode,
      );
    } catch (error) {
      throw describeFailure(op, error);
    }
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.checkInside(op, dir.handle, dir.path, removeTemporary);
      await fsPromises.rename(this.at(dir, temporary), this.at(dir, name));
    } catch (error) {
      await removeTemporary();
      throw error instanceof PathEscapeError ? error : describeFailure(op, error);
    }
    // Moved out between the check and the rename: take back what landed there.
    await this.checkInside(op, dir.handle, dir.path, () =>
      fsPromises.unlink(this.at(dir, name)).catch(() => undefined),
    );
  }

  /**
   * Opens, from the root, each directory `components` passes through but the last
   * component, each with O_NOFOLLOW and inside the one before; a link is read and
   * followed by hand from the root. A missing directory is created (`create`), or ends
   * the walk (`resolve`), or is an error (`open`). Returns the last directory opened and
   * the components left: the last name, or more when `resolve` met a missing one.
   */
  private async walk(
    op: Op,
    components: readonly string[],
    mode: 'open' | 'create' | 'resolve',
  ): Promise<{ dir: Dir; rest: string[] }> {
    let dir = await this.openRoot(op);
    const queue = [...components];
    // Attempts at the current component (a directory made by someone else meanwhile
    // is tried again); reset once a step succeeds, so a deep new path is no limit.
    let attempts = 0;
    try {
      while (queue.length > 1) {
        const name = queue[0]!;
        let handle: FileHandle;
        let created = false;
        try {
          handle = await fsPromises.open(this.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch (error) {
          if (isCode(error, 'ELOOP', 'ENOTDIR')) {
            const link = await this.linkAt(dir, name);
            if (link !== undefined) {
              const next = await this.follow(op, dir.path, link, queue.slice(1));
              await dir.handle.close();
              dir = await this.openRoot(op);
              queue.splice(0, queue.length, ...next);
              continue;
            }
          }
          if (isCode(error, 'ENOENT', 'ENOTDIR') && mode === 'resolve') return { dir, rest: queue };
          if (!isCode(error, 'ENOENT') || mode === 'open' || attempts >= MAX_ATTEMPTS) {
            throw isCode(error, 'ENOTDIR', 'EEXIST')
              ? new Error(`cannot ${op.verb} ${quotePath(op.path)}: a parent is not a directory`, {
                  cause: error,
                })
              : describeFailure(op, error);
          }
          attempts += 1;
          await fsPromises.mkdir(this.at(dir, name)).catch((e: unknown) => {
            if (!isCode(e, 'EEXIST')) throw describeFailure(op, e);
          });
          created = true;
          try {
            handle = await fsPromises.open(this.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
          } catch (e) {
            // Removed (or replaced by a link) between making and opening it: try again.
            if (isCode(e, 'ENOENT', 'ELOOP') && attempts < MAX_ATTEMPTS) continue;
            throw describeFailure(op, e);
          }
        }
        const parent = dir;
        dir = { handle, path: join(parent.path, name) };
        queue.shift();
        attempts = 0;
        try {
          await this.checkInside(op, handle, dir.path, async () => {
            if (created) await fsPromises.rmdir(this.at(parent, name)).catch(() => undefined);
          });
        } finally {
          await parent.handle.close();
        }
      }
      return { dir, rest: queue };
    } catch (error) {
      await dir.handle.close().catch(() => undefined);
      throw error;
    }
  }

  private async openRoot(op: Op): Promise<Dir> {
    try {
      const handle = await fsPromises.open(this.realRoot, O_RDONLY | O_DIRECTORY);
      return { handle, path: this.realRoot };
    } catch (error) {
      throw describeFailure(op, error);
    }
  }

  /** The target of `name` in `dir` when it is a symbolic link; undefined when not. */
  private async linkAt(dir: Dir, name: string): Promise<string | undefined> {
    const info = await fsPromises.lstat(this.at(dir, name)).catch(() => undefined);
    if (info?.isSymbolicLink() !== true) return undefined;
    return fsPromises.readlink(this.at(dir, name)).catch(() => undefined);
  }

  /**
   * The components, under the real root, of where the link `target` (found in the
   * directory `dirPath`) leads with `rest` after it. A target outside the root by its
   * words is looked at once more with its links resolved (a link to the root under
   * another name); one that still lands outside is refused.
   */
  private async follow(
    op: Op,
    dirPath: string,
    target: string,
    rest: readonly string[],
  ): Promise<string[]> {
    op.links += 1;
    if (op.links > MAX_LINKS) {
      throw new Error(`cannot ${op.verb} ${quotePath(op.path)}: too many symbolic links`);
    }
    let landing = resolve(dirPath, target, ...rest);
    if (!inside(this.realRoot, landing)) {
      landing = await landingOf(landing).catch(() => landing);
      if (!inside(this.realRoot, landing)) {
        throw new PathEscapeError(op.path, this.root, landing, 'through a symbolic link,');
      }
    }
    return this.guard(op, splitPath(relative(this.realRoot, landing)));
  }

  /** The path that opens `name` in `dir`: through its handle where /proc allows. */
  private at(dir: Dir, name: string): string {
    return this.anchored ? `${FD_DIR}/${dir.handle.fd}/${name}` : join(dir.path, name);
  }

  /**
   * Throws {@link PathEscapeError}, after `undo`, when what `handle` has open is no
   * longer inside the root (a directory on its way was moved out while the call ran).
   */
  private async checkInside(
    op: Op,
    handle: FileHandle,
    path: string,
    undo: () => Promise<unknown>,
  ): Promise<void> {
    if (!this.anchored) return;
    const where = await fsPromises.readlink(`${FD_DIR}/${handle.fd}`).catch(() => path);
    if (inside(this.realRoot, where)) return;
    await undo();
    throw new PathEscapeError(
      op.path,
      this.root,
      where,
      'a directory on its way was moved or removed while the call ran, and',
    );
  }
}
