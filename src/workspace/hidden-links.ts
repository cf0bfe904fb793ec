import { promises as fsPromises } from 'node:fs';
import { join } from 'node:path';

/** The most entries one look through the folders kept from the tools reads. */
const MAX_ENTRIES = 10_000;
/** How deep below each such folder it looks. */
const MAX_DEPTH = 8;

/**
 * Whether the file `dev`:`ino` is also a file under one of `paths` (the folders and
 * files the workspace keeps from its tools: credentials, `denyRead`): `'no'` when none
 * of them holds it, `'yes'` with the path that does, `'unknown'` when one could not be
 * read whole (a folder that cannot be listed, or more than {@link MAX_ENTRIES} entries
 * or {@link MAX_DEPTH} levels in all). Links are not followed: a hard link is another
 * name of the same file, found where the file is.
 */
export async function hiddenName(
  paths: readonly string[],
  dev: bigint,
  ino: bigint,
): Promise<
  { readonly found: 'no' | 'unknown' } | { readonly found: 'yes'; readonly path: string }
> {
  let seen = 0;
  let whole = true;
  const look = async (path: string, depth: number): Promise<string | undefined> => {
    if (++seen > MAX_ENTRIES) {
      whole = false;
      return undefined;
    }
    let info;
    try {
      info = await fsPromises.lstat(path, { bigint: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') whole = false;
      return undefined;
    }
    if (info.isFile()) return info.dev === dev && info.ino === ino ? path : undefined;
    if (!info.isDirectory()) return undefined;
    if (depth >= MAX_DEPTH) {
      whole = false;
      return undefined;
    }
    let names: string[];
    try {
      names = await fsPromises.readdir(path);
    } catch {
      whole = false;
      return undefined;
    }
    for (const name of names) {
      const found = await look(join(path, name), depth + 1);
      if (found !== undefined || seen > MAX_ENTRIES) return found;
    }
    return undefined;
  };
  for (const path of paths) {
    const found = await look(path, 0);
    if (found !== undefined) return { found: 'yes', path: found };
    if (seen > MAX_ENTRIES) break;
  }
  return { found: whole ? 'no' : 'unknown' };
}
