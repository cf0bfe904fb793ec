/**
 * Reads of the folders a command may change, for the repository guard: each answers
 * what is there now, or nothing where it is missing, unreadable or a loop, rather than
 * throwing.
 */
import {
  accessSync,
  constants,
  type Dirent,
  lstatSync,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { readRegular } from './regular-file';

export function entries(dir: string): Dirent[];
export function entries(dir: string, orUnlisted: true): Dirent[] | 'unlisted';
/** `dir`'s entries: none when it is missing, `unlisted` (when asked) when it cannot be read. */
export function entries(dir: string, orUnlisted = false): Dirent[] | 'unlisted' {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return orUnlisted && (code === 'EACCES' || code === 'EPERM') ? 'unlisted' : [];
  }
}

/** Whether this process may enter folder `dir` (true when it is not there at all). */
export function canEnter(dir: string): boolean {
  try {
    accessSync(dir, constants.X_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'EACCES' && code !== 'EPERM';
  }
}

export function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** What is at `path`, links followed; undefined for nothing, a loop, or no access. */
export function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What is at `path` itself; undefined for nothing or no access. */
export function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The first 8 KiB of a file that names a path (a `.git` pointer, a `commondir`), which
 * git reads whole: a path past that would be too long for git to open, and what git
 * takes off its end are line ends only, which a longer file may pad it with.
 */
export function smallText(path: string, limit = 8192, noFollow = false): string | undefined {
  return readRegular(path, limit, noFollow)?.bytes.toString('utf8');
}
