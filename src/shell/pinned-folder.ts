/**
 * A folder inside a writable root, held open so that what is done by name in it stays
 * in it: a sandboxed command may swap a folder on the way for a link to anywhere while
 * the server works there (the server runs outside the sandbox, with every right of its
 * user). On Linux the folder is reached from the root one component at a time, never
 * through a link, and held by its descriptor; a name in it is opened through
 * `/proc/self/fd/<fd>/<name>`, which the kernel resolves from the folder itself.
 * Elsewhere the folder's real path is checked before each use (a narrower window).
 */
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readRegular } from './regular-file';

const FD_DIR = '/proc/self/fd';
const anchored = existsSync(FD_DIR);
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
/**
 * How a folder is held: as a place only (Linux's O_PATH, which Node does not name; its
 * value on x64 and arm64), so that a folder a command left enterable but not readable
 * can be held too, as git can enter it; elsewhere, opened for reading.
 */
const HOLD =
  process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64')
    ? 0o10000000
    : O_RDONLY;

/** Thrown when a folder on the way is no longer the one that was found there. */
export class FolderReplacedError extends Error {
  constructor(path: string) {
    super(`${path} was replaced while it was worked on`);
    this.name = 'FolderReplacedError';
  }
}

export class PinnedFolder {
  private constructor(
    /** The folder's path, as found (for messages, and where descriptors are not used). */
    readonly path: string,
    private readonly fd: number | undefined,
  ) {}

  /**
   * The folder `path` (a real path) inside `root` (a real path), reached from `root`
   * without following a link. Throws {@link FolderReplacedError} when a component is
   * a link or no folder now.
   */
  static open(root: string, path: string): PinnedFolder {
    const rest = relative(root, path);
    if (rest.startsWith('..') || rest.startsWith(sep)) throw new FolderReplacedError(path);
    if (!anchored) return new PinnedFolder(path, undefined).checked();
    let fd = openSync(root, HOLD | O_DIRECTORY);
    let at = root;
    try {
      for (const name of rest === '' ? [] : rest.split(sep)) {
        at = join(at, name);
        const next = openFolder(`${FD_DIR}/${fd}/${name}`, at);
        closeSync(fd);
        fd = next;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new PinnedFolder(path, fd);
  }

  /** The folder `name` in this one, reached without following a link. */
  child(name: string): PinnedFolder {
    const path = join(this.path, name);
    if (this.fd === undefined) return new PinnedFolder(path, undefined).checked();
    return new PinnedFolder(path, openFolder(this.at(name), path));
  }

  /** The path that names `name` in this folder, whatever happened to the way here. */
  at(name: string): string {
    if (this.fd !== undefined) return `${FD_DIR}/${this.fd}/${name}`;
    this.checked();
    return join(this.path, name);
  }

  /**
   * The text of the plain file `name` in this folder (its first `limit` bytes), not
   * read through a link; throws when it is no plain file now.
   */
  readText(name: string, limit: number): string {
    const read = readRegular(this.at(name), limit, true);
    if (read === undefined) throw new Error(`${join(this.path, name)} is no plain file now`);
    return read.bytes.toString('utf8');
  }

  /**
   * Gives the folder's owner back the right to read, write and enter it, where a
   * command took it away (`chmod a-w .git`) to keep the guard from moving what it
   * planted there. True when the folder's mode was changed.
   */
  giveOwnerRights(): boolean {
    // `/proc/self/fd/<fd>` leads chmod to the folder held, never through a link.
    const path = this.fd === undefined ? this.checked().path : `${FD_DIR}/${this.fd}`;
    const mode = statSync(path).mode & 0o7777;
    if ((mode & 0o700) === 0o700) return false;
    chmodSync(path, mode | 0o700);
    return true;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }

  /** This folder, once its real path is checked to be the one found. */
  private checked(): this {
    let real: string;
    try {
      real = realpathSync(this.path);
    } catch {
      throw new FolderReplacedError(this.path);
    }
    if (real !== this.path) throw new FolderReplacedError(this.path);
    return this;
  }
}

/** Opens the folder at `path` (shown as `shown`) without following a link. */
function openFolder(path: string, shown: string): number {
  try {
    return openSync(path, HOLD | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    throw new FolderReplacedError(shown);
  }
}
