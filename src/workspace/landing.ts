import { promises as fsPromises } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Symbolic links followed for one path before giving up, as the OS does (ELOOP). */
const MAX_LINKS = 40;

/**
 * Where an operation on the absolute `path` would land: the real path of its deepest
 * existing ancestor, with the missing rest appended. A link among the existing
 * components is resolved by realpath; a dangling link is followed by hand, since
 * creating a file through it would create its target. Only looks; touches nothing.
 */
export async function landingOf(path: string, links = 0): Promise<string> {
  if (links > MAX_LINKS) throw new Error('too many symbolic links');
  const missing: string[] = [];
  let current = path;
  for (;;) {
    let isLink: boolean;
    try {
      isLink = (await fsPromises.lstat(current)).isSymbolicLink();
    } catch (error) {
      if (!isCode(error, 'ENOENT', 'ENOTDIR')) throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(basename(current));
      current = parent;
      continue;
    }
    try {
      return join(await fsPromises.realpath(current), ...missing);
    } catch (error) {
      if (!isLink || !isCode(error, 'ENOENT', 'ENOTDIR')) throw error;
      const target = await fsPromises.readlink(current);
      return landingOf(resolve(dirname(current), target, ...missing), links + 1);
    }
  }
}

function isCode(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}
