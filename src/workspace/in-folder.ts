/**
 * What the file tools do to one name in a folder the confined walk opened: open it
 * without following a link, and replace it through a temporary file beside it.
 */
import type * as Crypto from 'node:crypto';
import { constants as fsConstants, type Stats, promises as fsPromises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { removeOnHardExit } from 'agenttool/shell';
import {
  describeFailure,
  isCode,
  keepOwnerAndMode,
  type Op,
  PathEscapeError,
  utf8Prefix,
} from './file-operations';
import { type ConfinedWalk, type Dir, MAX_LINKS } from './confined-walk';
import { quotePath } from './short-path';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, W_OK } = fsConstants;

/**
 * Refuses to replace a file this process may not write (a read-only one, another
 * user's): the rename that replaces it needs only its folder's permission, so a write
 * would otherwise go where a write in place (a shell's `>`, an editor's save) is
 * refused. Root may write any file, as there.
 */
export async function refuseUnwritable(
  walker: ConfinedWalk,
  op: Op,
  dir: Dir,
  name: string,
  existing: Stats,
): Promise<void> {
  try {
    await fsPromises.access(walker.at(dir, name), W_OK);
  } catch (error) {
    if (!isCode(error, 'EACCES', 'EPERM')) return; // gone meanwhile: the write says so
    const mode = (existing.mode & 0o7777).toString(8).padStart(4, '0');
    const ours = existing.uid === process.getuid?.();
    const owner = ours ? 'yours' : `owned by user ${existing.uid}`;
    const remedy = ours
      ? 'make it writable first (for example `chmod u+w` in the shell) if it is meant to change'
      : 'ask the user to change it, or to make it writable, if it is meant to change';
    throw new Error(
      `cannot write ${quotePath(op.path)}: permission denied: the file is not writable (mode ${mode}, ${owner}), and write_file does not replace a file it may not write; ${remedy}`,
      { cause: error },
    );
  }
}

/** Opens `name` in `dir` without following it: a handle, or the link it is. */
export async function openIn(
  walker: ConfinedWalk,
  op: Op,
  dir: Dir,
  name: string,
  flags: number,
  create: boolean,
): Promise<{ handle: FileHandle; created: boolean } | { link: string }> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return {
        handle: await fsPromises.open(walker.at(dir, name), flags | O_NOFOLLOW),
        created: false,
      };
    } catch (error) {
      if (isCode(error, 'ELOOP')) {
        const link = await walker.linkAt(dir, name);
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
        handle: await fsPromises.open(walker.at(dir, name), flagsCreate, 0o666),
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
export async function replaceFile(
  walker: ConfinedWalk,
  op: Op,
  dir: Dir,
  name: string,
  bytes: Uint8Array,
  keep: { readonly mode: number; readonly uid: number; readonly gid: number } | undefined,
  signal: AbortSignal | undefined,
) {
  // node:crypto loads with the first write, not with the workspace's start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  const { randomBytes } = require('node:crypto') as typeof Crypto;
  const temporary = `.${utf8Prefix(name, 100)}.${randomBytes(6).toString('hex')}.tmp`;
  const removeTemporary = () => fsPromises.unlink(walker.at(dir, temporary)).catch(() => undefined);
  // A server killed outright while it writes (a host's SIGKILL) leaves no temporary file.
  const forget = removeOnHardExit(join(dir.path, temporary));
  try {
    let handle: FileHandle;
    try {
      handle = await fsPromises.open(
        walker.at(dir, temporary),
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
        keep?.mode ?? 0o666,
      );
    } catch (error) {
      if (isCode(error, 'EACCES', 'EPERM')) {
        throw new Error(
          `cannot write ${quotePath(op.path)}: permission denied: its folder is not writable (write_file writes the new content to a file beside it, then renames that over it)`,
          { cause: error },
        );
      }
      throw describeFailure(op, error);
    }
    try {
      try {
        if (keep !== undefined) await keepOwnerAndMode(handle, keep);
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await walker.checkInside(op, dir.handle, dir.path, removeTemporary);
      // The last moment the call can still change nothing (a large write takes a while).
      signal?.throwIfAborted();
      await fsPromises.rename(walker.at(dir, temporary), walker.at(dir, name));
    } catch (error) {
      await removeTemporary();
      if (
        error instanceof PathEscapeError ||
        (signal?.aborted === true && error === signal.reason)
      ) {
        throw error;
      }
      throw describeFailure(op, error);
    }
    // Moved out between the check and the rename: take back what landed there.
    await walker.checkInside(op, dir.handle, dir.path, () =>
      fsPromises.unlink(walker.at(dir, name)).catch(() => undefined),
    );
  } finally {
    forget();
  }
}
