import { promises as fsPromises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { type ConfinedWalk } from './confined-walk';
import { type Op, removeIfSameAndEmpty } from './file-operations';
import { openIn } from './in-folder';
import { type FolderMaking } from './made-folders';
import { quotePath } from './short-path';

/**
 * Opens the file `op.path` names with `flags` plus O_NOFOLLOW, following links by
 * hand, and runs `use` with it (closing it after); with `create`, a missing file (and
 * missing directories) is created, and `use` is given what removes it again while it
 * is empty. The file is checked to be inside the root before it is used; one it
 * created outside is removed.
 */
export async function openFinal<T>(
  walker: ConfinedWalk,
  making: FolderMaking,
  op: Op,
  flags: number,
  mode: 'open' | 'create',
  use: (handle: FileHandle, removeCreated: (() => Promise<void>) | undefined) => Promise<T>,
): Promise<T> {
  let components = walker.componentsOf(op);
  const made = mode === 'create' ? making.begin() : undefined;
  try {
    for (;;) {
      const { dir, rest } = await walker.walk(op, components, mode, made);
      try {
        const name = rest[0];
        if (name === undefined) {
          throw new Error(`cannot ${op.verb} ${quotePath(op.path)}: it is a directory`);
        }
        const opened = await openIn(walker, op, dir, name, flags, mode === 'create');
        if ('link' in opened) {
          components = await walker.follow(op, dir.path, opened.link, []);
          continue;
        }
        await walker.checkInside(op, opened.handle, join(dir.path, name), async () => {
          await opened.handle.close();
          if (opened.created) await fsPromises.unlink(walker.at(dir, name));
        });
        const removeCreated = opened.created
          ? () => removeIfSameAndEmpty(opened.handle, walker.at(dir, name))
          : undefined;
        try {
          return await use(opened.handle, removeCreated);
        } finally {
          await opened.handle.close();
        }
      } finally {
        await dir.handle.close();
      }
    }
  } catch (error) {
    await made?.failed();
    throw error;
  } finally {
    await made?.end();
  }
}
