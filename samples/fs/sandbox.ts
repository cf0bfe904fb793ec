import { randomBytes } from 'node:crypto';
import { constants as fsConstants, realpathSync, statSync } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * A path that would reach outside the root: through `..`, as an absolute path elsewhere,
 * or through a symbolic link. Nothing was touched when it is thrown.
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
      `the path ${JSON.stringify(path)} is outside the root directory ${JSON.stringify(root)}: ${how} it leads to ${JSON.stringify(resolved)}; give a path inside the root, relative to it or absolute under it`,
    );
    this.name = 'PathEscapeError';
  }
}

/** What {@link Sandbox.read} returns. */
export interface ReadResult {
  readonly content: Buffer;
  /** The file's size in bytes; more than `content.length` when the read was cut short. */
  readonly size: number;
  readonly truncated: boolean;
}

/** Symbolic links followed for one path before giving up, as the OS does (ELOOP). */
const MAX_LINKS = 40;

/**
 * File access confined to one root directory. Every path is resolved against the root
 * and refused, before anything is opened, created or changed, when it would land
 * outside: `..` that climbs out, an absolute path elsewhere, or a symbolic link (in any
 * component, dangling or not) that points out.
 *
 * This is a check made by this process, not an OS sandbox: a link swapped in between
 * the check and the use is not caught. Run the host in a container when that matters.
 */
export class Sandbox {
  /** The root as configured, made absolute. */
  readonly root: string;
  /** The root with its own symbolic links resolved. */
  readonly realRoot: string;

  /** A sandbox on `root`, which must be an existing directory (checked now). */
  constructor(root: string) {
    if (typeof root !== 'string' || root === '') {
      throw new Error('the root directory is empty; configure an existing directory');
    }
    this.root = resolve(root);
    try {
      this.realRoot = realpathSync(this.root);
    } catch (error) {
      throw new Error(
        `the root directory ${JSON.stringify(this.root)} does not exist; create it or configure another`,
        { cause: error },
      );
    }
    if (!statSync(this.realRoot).isDirectory()) {
      throw new Error(`the root ${JSON.stringify(this.root)} is not a directory`);
    }
  }

  /**
   * Where `path` leads, with every symbolic link resolved: an absolute path inside the
   * real root. Throws {@link PathEscapeError} when it leads outside. Touches nothing.
   */
  async resolve(path: string): Promise<string> {
    if (typeof path !== 'string' || path === '') {
      throw new Error('the path is empty; give a file path inside the root');
    }
    if (path.includes('\0')) {
      throw new Error(`the path ${JSON.stringify(path)} contains a NUL character`);
    }
    const lexical = this.lexical(path);
    if (lexical === undefined) {
      const resolved = resolve(this.root, path);
      const how = isAbsolute(path) ? 'it is absolute and' : 'its ".." climbs out, and';
      throw new PathEscapeError(path, this.root, resolved, how);
    }
    const landing = await landingOf(lexical, 0).catch((error: unknown) => {
      throw describeFailure('resolve', path, error);
    });
    if (!inside(this.realRoot, landing)) {
      throw new PathEscapeError(path, this.root, landing, 'through a symbolic link,');
    }
    return landing;
  }

  /** Reads at most `maxBytes` bytes of a file inside the root. */
  async read(path: string, options: { maxBytes?: number } = {}): Promise<ReadResult> {
    const target = await this.resolve(path);
    const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new Error(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    // O_NONBLOCK: opening a named pipe must not wait for a writer (it would hang the
    // call and hold a thread of the pool); what is opened is then checked to be a file.
    const handle = await open(target, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK).catch(
      (error: unknown) => {
        throw describeFailure('read', path, error);
      },
    );
    try {
      const info = await handle.stat();
      if (info.isDirectory())
        throw new Error(`cannot read ${JSON.stringify(path)}: it is a directory`);
      if (!info.isFile()) {
        throw new Error(
          `cannot read ${JSON.stringify(path)}: it is not a regular file (a pipe, socket or device)`,
        );
      }
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
    const target = await this.resolve(path);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const existing = await stat(target).catch(() => undefined);
    if (existing?.isDirectory() === true) {
      throw new Error(`cannot write ${JSON.stringify(path)}: it is a directory`);
    }
    await makeParents(target, 'write', path);
    const temporary = join(
      dirname(target),
      `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
    );
    try {
      const handle = await open(
        temporary,
        'wx',
        existing === undefined ? 0o666 : existing.mode & 0o7777,
      );
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw describeFailure('write', path, error);
    }
    return bytes.length;
  }

  /**
   * Appends `data` to a file inside the root, creating it (and missing parent
   * directories) when absent. Returns the number of bytes appended.
   */
  async append(path: string, data: string | Uint8Array): Promise<number> {
    const target = await this.resolve(path);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await makeParents(target, 'append to', path);
    try {
      const flags =
        fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NONBLOCK;
      const handle = await open(target, flags);
      try {
        if (!(await handle.stat()).isFile()) {
          throw new Error('it is not a regular file (a pipe, socket or device)');
        }
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw describeFailure('append to', path, error);
    }
    return bytes.length;
  }

  /** The absolute path `path` names, without following links; undefined when outside. */
  private lexical(path: string): string | undefined {
    for (const base of [this.root, this.realRoot]) {
      const candidate = resolve(base, path);
      if (inside(base, candidate)) return join(this.realRoot, relative(base, candidate));
    }
    return undefined;
  }
}

/** True when `path` is `root` or below it (both absolute and normalised). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Where an operation on `path` would land: the real path of its deepest existing
 * ancestor, with the missing rest appended. A link among the existing components is
 * resolved by realpath; a dangling link is followed by hand, since creating a file
 * through it would create its target.
 */
async function landingOf(path: string, links: number): Promise<string> {
  if (links > MAX_LINKS) throw new Error(`too many symbolic links`);
  const missing: string[] = [];
  let current = path;
  for (;;) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (!isCode(error, 'ENOENT', 'ENOTDIR')) throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(basename(current));
      current = parent;
      continue;
    }
    try {
      return join(await realpath(current), ...missing);
    } catch (error) {
      if (!isLink || !isCode(error, 'ENOENT', 'ENOTDIR')) throw error;
      const target = await readlink(current);
      return landingOf(resolve(dirname(current), target, ...missing), links + 1);
    }
  }
}

async function makeParents(target: string, verb: string, path: string): Promise<void> {
  try {
    await mkdir(dirname(target), { recursive: true });
  } catch (error) {
    const reason = isCode(error, 'EEXIST', 'ENOTDIR') ? 'a parent is not a directory' : '';
    throw reason === ''
      ? describeFailure(verb, path, error)
      : new Error(`cannot ${verb} ${JSON.stringify(path)}: ${reason}`, { cause: error });
  }
}

function isCode(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

function describeFailure(verb: string, path: string, error: unknown): Error {
  if (isCode(error, 'ENOENT')) {
    return new Error(`cannot ${verb} ${JSON.stringify(path)}: no such file`, { cause: error });
  }
  if (isCode(error, 'EISDIR')) {
    return new Error(`cannot ${verb} ${JSON.stringify(path)}: it is a directory`, { cause: error });
  }
  if (isCode(error, 'EACCES', 'EPERM')) {
    return new Error(`cannot ${verb} ${JSON.stringify(path)}: permission denied`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`cannot ${verb} ${JSON.stringify(path)}: ${message}`, { cause: error });
}
