import { existsSync, constants as fsConstants, promises as fsPromises, lstatSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { foldName, writeProtection } from 'agenttool/shell';
import {
  describeFailure,
  refuseLongName,
  inside,
  isCode,
  type Op,
  PathEscapeError,
  splitPath,
} from './file-operations';
import { landingOf } from './landing';
import { quotePath } from './short-path';
import { hiddenAtHomeTop } from './walk-limits';
import { gitLayoutProtection } from './git-layout';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fsConstants;

/**
 * How a directory on a walk is opened: on Linux with O_PATH (which Node does not name;
 * 010000000 on every architecture Node runs Linux on), which needs only the right to
 * pass through the folders on the way, not to list the directory itself: a folder the
 * server's user may pass but not list (`chmod 311`) is walked through, as the shell
 * reaches it. Elsewhere, for reading (the handle only pins the directory).
 */
const DIRECTORY_FLAGS =
  (process.platform === 'linux' ? 0o10000000 : O_RDONLY) | O_DIRECTORY | O_NOFOLLOW;

/** The longest path accepted, in characters (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** Symbolic links followed for one path before giving up, as the OS does (ELOOP). */
export const MAX_LINKS = 40;
/** How often one missing directory of a path is made and opened before giving up. */
const MAX_ATTEMPTS = 3;

/**
 * Where Linux shows a process's descriptors. `<FD_DIR>/<fd>/<name>` opens `name` in the
 * directory open as `fd`, whatever path now leads there (openat, for Node), and
 * reading the link `<FD_DIR>/<fd>` tells where that file or directory is now.
 */
const FD_DIR = '/proc/self/fd';

/**
 * Where a walk notes each folder it made (in `parent`, kept open if this says true): see
 * `MadeFolders`.
 */
export interface FolderNotes {
  add(parent: Dir, name: string): boolean;
}

/** A directory opened during a walk, and the path it was reached by. */
export interface Dir {
  readonly handle: FileHandle;
  readonly path: string;
}

/**
 * The walk of a path from a root directory, one component at a time (see
 * {@link FileRoot}): the path's components checked before anything is opened (no
 * escape, the sandbox's limits), each directory opened with O_NOFOLLOW inside the one
 * before (through `/proc/self/fd` where Linux has it), links read and followed by hand,
 * and where a handle really is checked again before data goes in.
 */
export class ConfinedWalk {
  /** Whether directories are walked through their handles (Linux's /proc). */
  readonly anchored = existsSync(FD_DIR);
  /** The paths of `denyRead`, each with its form folded (see {@link foldName}). */
  readonly #denyRead: readonly (readonly [path: string, folded: string])[];
  /** The paths of `denyWrite`, each with what it is and its folded form. */
  readonly #denyWrite: readonly (readonly [path: string, what: string, folded: string])[];

  /**
   * The walk from `root` (as configured, absolute) whose real path is `realRoot`; never
   * into `denyRead` (paths a sandboxed command cannot read), nor, to write, `denyWrite`
   * (the code this server runs, a home folder's start-up files), each path with what it
   * is for the refusal.
   */
  constructor(
    readonly root: string,
    readonly realRoot: string,
    denyRead: readonly string[],
    denyWrite: readonly (readonly [path: string, what: string])[],
    /** Home folders in the root: a hidden name at their top stays read-only, there or not. */
    private readonly homes: readonly string[] = [],
  ) {
    // Compared folded: a file system that ignores case (macOS's) opens `.SSH/id_rsa` as
    // `.ssh/id_rsa`, which an exact comparison would let through.
    this.#denyRead = denyRead.map((path) => [path, foldName(path)] as const);
    this.#denyWrite = denyWrite.map(([path, what]) => [path, what, foldName(path)] as const);
  }

  /**
   * Refuses `components` (a path below the real root, where `op.path` leads once its
   * links so far are followed) when `op` may not touch it: a path a sandboxed command
   * could not read, or, for a write, one it could not write.
   */
  #guard(op: Op, components: string[]): string[] {
    const path = foldName(join(this.realRoot, ...components));
    const what = `cannot ${op.verb} ${quotePath(op.path)}`;
    const unreadable = this.#denyRead.find(([, denied]) => inside(denied, path))?.[0];
    if (unreadable !== undefined) {
      throw new Error(
        `${what}: it is in ${quotePath(unreadable)}, which the workspace keeps from its tools (credentials, and the paths the sandbox's denyRead names)`,
      );
    }
    if (!op.writes) return components;
    const denied = this.#denyWrite.find(([, , folded]) => inside(folded, path));
    if (denied !== undefined) {
      throw new Error(
        `${what}: it is in ${quotePath(denied[0])}, ${denied[1]}, which stays read-only`,
      );
    }
    const protection =
      writeProtection(components) ?? gitLayoutProtection(this.realRoot, components);
    if (protection !== undefined) throw new Error(`${what}: ${protection}`);
    // A hidden name at a home folder's top, made later: the shell cannot make one either.
    const hidden = hiddenAtHomeTop(this.homes, path);
    if (hidden !== undefined) {
      throw new Error(
        `${what}: it is in ${quotePath(hidden)}, a hidden file or folder of the home folder (settings and tools the user's programs run outside the sandbox), which stays read-only, there or not`,
      );
    }
    return components;
  }

  /** The components of `path` under the real root, once checked; no link is followed. */
  componentsOf(op: Op): string[] {
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
    if (/\p{Cs}/u.test(path)) {
      throw new Error(
        `the path ${quotePath(path)} contains a lone surrogate, half of a pair that no file name can hold`,
      );
    }
    // Resolved, "dir/" or "file/." would lose what the ending says: a directory.
    if (/\/\.{0,2}$/.test(path)) {
      throw new Error(
        `cannot ${op.verb} ${quotePath(path)}: a path that ends in "/", "/." or "/.." names a directory; give the path of a file`,
      );
    }
    for (const base of [this.root, this.realRoot]) {
      const candidate = resolve(base, path);
      if (inside(base, candidate)) {
        refuseDotDotThroughLinks(op, path, this.root, this.realRoot);
        refuseLongName(op);
        return this.#guard(op, splitPath(relative(base, candidate)));
      }
    }
    const how = isAbsolute(path) ? 'it is absolute and' : 'its ".." climbs out, and';
    throw new PathEscapeError(path, this.root, resolve(this.root, path), how);
  }

  /**
   * Opens, from the root, each directory `components` passes through but the last
   * component, each with O_NOFOLLOW and inside the one before; a link is read and
   * followed by hand from the root. A missing directory is created (`create`), or ends
   * the walk (`resolve`), or is an error (`open`). Returns the last directory opened and
   * the components left: the last name, or more when `resolve` met a missing one.
   */
  async walk(
    op: Op,
    components: readonly string[],
    mode: 'open' | 'create' | 'resolve',
    made?: FolderNotes,
  ): Promise<{ dir: Dir; rest: string[] }> {
    let dir = await this.#openRoot(op);
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
          handle = await fsPromises.open(this.at(dir, name), DIRECTORY_FLAGS);
        } catch (error) {
          if (isCode(error, 'ELOOP', 'ENOTDIR')) {
            const link = await this.linkAt(dir, name);
            if (link !== undefined) {
              const next = await this.follow(op, dir.path, link, queue.slice(1));
              await dir.handle.close();
              dir = await this.#openRoot(op);
              queue.splice(0, queue.length, ...next);
              continue;
            }
          }
          if (isCode(error, 'ENOENT', 'ENOTDIR') && mode === 'resolve') return { dir, rest: queue };
          if (!isCode(error, 'ENOENT') || mode === 'open' || attempts >= MAX_ATTEMPTS) {
            throw isCode(error, 'ENOTDIR', 'EEXIST')
              ? new Error(
                  `cannot ${op.verb} ${quotePath(op.path)}: ${quotePath(relative(this.realRoot, join(dir.path, name)))} on its way is not a directory`,
                  { cause: error },
                )
              : describeFailure(op, error);
          }
          attempts += 1;
          // Made by this call only when mkdir made it (not one another call made meanwhile).
          created = await fsPromises.mkdir(this.at(dir, name)).then(
            () => true,
            (e: unknown) => {
              if (!isCode(e, 'EEXIST')) throw describeFailure(op, e);
              return false;
            },
          );
          try {
            handle = await fsPromises.open(this.at(dir, name), DIRECTORY_FLAGS);
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
        let kept = false;
        try {
          await this.checkInside(op, handle, dir.path, async () => {
            if (created) await fsPromises.rmdir(this.at(parent, name)).catch(() => undefined);
          });
          // What removes the folder again, should the call fail, needs its parent open.
          if (created && made !== undefined) kept = made.add(parent, name);
        } finally {
          if (!kept) await parent.handle.close();
        }
      }
      return { dir, rest: queue };
    } catch (error) {
      await dir.handle.close().catch(() => undefined);
      throw error;
    }
  }

  async #openRoot(op: Op): Promise<Dir> {
    try {
      const handle = await fsPromises.open(this.realRoot, DIRECTORY_FLAGS & ~O_NOFOLLOW);
      return { handle, path: this.realRoot };
    } catch (error) {
      throw describeFailure(op, error);
    }
  }

  /** The target of `name` in `dir` when it is a symbolic link; undefined when not. */
  async linkAt(dir: Dir, name: string): Promise<string | undefined> {
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
  async follow(
    op: Op,
    dirPath: string,
    target: string,
    rest: readonly string[],
  ): Promise<string[]> {
    op.links += 1;
    if (op.links > MAX_LINKS) {
      throw new Error(`cannot ${op.verb} ${quotePath(op.path)}: too many symbolic links`);
    }
    const worded = resolve(dirPath, target, ...rest);
    let landing = worded;
    if (!inside(this.realRoot, landing)) {
      landing = await landingOf(landing).catch(() => landing);
      if (!inside(this.realRoot, landing)) {
        // Said as the link words it: where the server's own links lead (a link to
        // /proc/self/fd/3 or /proc/self/cwd, resolved here, in the server) is not the
        // model's to learn.
        throw new PathEscapeError(op.path, this.root, worded, 'through a symbolic link,');
      }
    }
    return this.#guard(op, splitPath(relative(this.realRoot, landing)));
  }

  /** The path that opens `name` in `dir`: through its handle where /proc allows. */
  at(dir: Dir, name: string): string {
    return this.anchored ? `${FD_DIR}/${dir.handle.fd}/${name}` : join(dir.path, name);
  }

  /**
   * Throws {@link PathEscapeError}, after `undo`, when what `handle` has open is no
   * longer inside the root (a directory on its way was moved out while the call ran).
   */
  async checkInside(
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

/**
 * Refuses a path whose `..` would not mean here what it means to the shell: the tools
 * take `a/b/../c` as `a/c`, while the system (and bash) goes through `a/b` first, so a
 * `..` after a link climbs from where the link leads (`l/../f`, with `l` a link to
 * `sub/deep`, is `sub/f` to the shell), and one after a file fails there.
 * Such a path is refused, naming the part, rather than reaching another file than the
 * shell's. Checked by name only (lstat); the walk that follows confines what is opened.
 */
function refuseDotDotThroughLinks(op: Op, path: string, root: string, realRoot: string): void {
  const parts = path.split('/');
  if (!parts.includes('..')) return;
  let current = isAbsolute(path) ? '/' : root;
  const named: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part !== '..') {
      current = join(current, part);
      named.push(part);
      continue;
    }
    if (named.length > 0) {
      const before = quotePath(`${isAbsolute(path) ? '/' : ''}${named.join('/')}`);
      // Nothing is said of what lies outside the workspace.
      if (!inside(root, current) && !inside(realRoot, current)) {
        throw new PathEscapeError(
          path,
          root,
          current,
          `on its way to a ".." it passes through ${before}, and there`,
        );
      }
      let info;
      try {
        info = lstatSync(current, { throwIfNoEntry: false });
      } catch {
        info = undefined;
      }
      // A missing name is taken away with its "..", as by name: nothing else is there.
      const why =
        info === undefined
          ? undefined
          : info.isSymbolicLink()
            ? `${before} is a link, which the shell goes through before the ".." (so it climbs from where the link leads)`
            : info.isDirectory()
              ? undefined
              : `${before} is not a directory`;
      if (why !== undefined) {
        throw new Error(
          `cannot ${op.verb} ${quotePath(path)}: its ".." comes after ${why}; give the path without ".." there`,
        );
      }
      named.pop();
    }
    current = dirname(current);
  }
}
