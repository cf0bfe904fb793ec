/**
 * What the repository guard does besides repositories: agents' settings a command made
 * one level down, moved aside, and folders a command closed to their owner (a `chmod`
 * that kept the guard out), opened again.
 */
import { renameSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { lstatOf } from './folder-reads';
import { type FoundPath } from './git-directories';
import { PinnedFolder } from './pinned-folder';
import {
  AGENT_CONFIG_DIRECTORIES,
  AGENT_CONFIG_FILES,
  UNHELD_AGENT_FILES,
} from './protected-paths';
import { freeName } from './repository-items';

/**
 * What coding agents take up from a folder they are started in (lower case): their
 * folders (see {@link AGENT_CONFIG_DIRECTORIES}) and a project's MCP servers. Made by a
 * command one level down (`pkg/.claude/settings.json` with a hook), each is moved aside
 * whole. At a writable folder itself the sandbox holds them, there or not (see
 * protected-paths.ts). Editors' folders (`.vscode`, `.idea`) are left: a cloned
 * project often has them, and an editor asks before it trusts a folder's tasks.
 */
export const SETTINGS_NAMES: ReadonlySet<string> = new Set(
  [...AGENT_CONFIG_DIRECTORIES, ...AGENT_CONFIG_FILES].map((name) => name.toLowerCase()),
);

/**
 * What of {@link SETTINGS_NAMES} is looked for at a writable folder itself too (lower
 * case): the agents' files the sandbox does not hold there when missing (see
 * `UNHELD_AGENT_FILES`), moved aside when a command made them.
 */
export const ROOT_SETTINGS_NAMES: ReadonlySet<string> = new Set(
  UNHELD_AGENT_FILES.map((name) => name.toLowerCase()),
);

/** The agents' settings one level down, as found at the record, and those made since. */
export class MadeSettings {
  /** The settings at the record, by path: their identity then. */
  readonly #known = new Map<string, string>();

  /** Takes `found` as the user's. */
  record(found: readonly FoundPath[]): void {
    for (const entry of found) {
      const info = lstatOf(entry.path);
      if (info !== undefined) this.#known.set(entry.path, settingsIdentity(info));
    }
  }

  /** The settings at the record: path, identity (what {@link restore} takes). */
  entries(): [string, string][] {
    return [...this.#known];
  }

  /** Takes `entries` (of {@link entries}, another process's) as the record. */
  restore(entries: readonly (readonly [string, string])[]): void {
    for (const [path, identity] of entries) this.#known.set(path, identity);
  }

  /**
   * Moves aside the agents' settings in `found` (one level down) that a
   * command made since the record (see {@link SETTINGS_NAMES}), with a note for each;
   * what the sandbox holds read-only (the user's, there at its start, and the folders
   * standing in for missing ones) is left.
   */
  moveAside(
    found: readonly FoundPath[],
    held: (path: string) => boolean,
    before: (info: Stats) => boolean,
    notes: string[],
  ): void {
    for (const entry of found) {
      if (held(entry.path)) continue;
      const info = lstatOf(entry.path);
      if (info === undefined || this.#known.get(entry.path) === settingsIdentity(info)) continue;
      // Unchanged since before the record and not in it (a record that could not read
      // it): left. One renamed into place since (`mv docs pkg/.claude`) has a new ctime.
      if (before(info)) continue;
      const name = basename(entry.path);
      try {
        const folder = PinnedFolder.open(entry.root, dirname(entry.path));
        try {
          if (folder.giveOwnerRights()) {
            notes.push(
              `${dirname(entry.shown)}: a folder its owner could not change, given back its owner's rights`,
            );
          }
          const aside = freeName(folder, `${name}.disabled`);
          renameSync(folder.at(name), folder.at(aside));
          notes.push(
            `${entry.shown}: an agent's settings made by a command, moved to ${join(dirname(entry.shown), aside)}`,
          );
        } finally {
          folder.close();
        }
      } catch (error) {
        notes.push(`${entry.shown}: not moved aside (${(error as Error).message})`);
      }
    }
  }
}

/**
 * How an agent's settings at a path are known from the record on: the inode and when it
 * was made (an inode number is reused as soon as it is freed).
 */
function settingsIdentity(info: Stats): string {
  return `${info.ino}:${info.birthtimeMs > 0 ? info.birthtimeMs : info.ctimeMs}`;
}

/**
 * Gives back their owner's rights to the folders in `sealed` that were changed since
 * the record (a command's `chmod 000 sub/.git`; the user's own stay as they are), with
 * a note for each. True when one was opened.
 */
export function openClosed(
  sealed: readonly FoundPath[],
  recordedAt: number,
  notes: string[],
): boolean {
  let any = false;
  for (const folder of sealed) {
    const info = lstatOf(folder.path);
    if (!closedByCommand(info) || info.ctimeMs < recordedAt) continue;
    try {
      const held = PinnedFolder.open(folder.root, folder.path);
      try {
        if (!held.giveOwnerRights()) continue;
      } finally {
        held.close();
      }
      any = true;
      notes.push(
        `${folder.shown}: a folder its owner could not enter or list, given back its owner's rights`,
      );
    } catch (error) {
      notes.push(
        `${folder.shown}: a folder its owner cannot enter or list, not checked (${(error as Error).message})`,
      );
    }
  }
  return any;
}

/**
 * Notes the folders in `sealed` changed since the record that are still closed after
 * the rounds that open them: what they hide is not checked.
 */
export function noteStillClosed(
  sealed: readonly FoundPath[],
  recordedAt: number,
  notes: string[],
): void {
  for (const folder of sealed) {
    const info = lstatOf(folder.path);
    // Changed since the record, as those opened are (a chmod changes the ctime).
    if (!closedByCommand(info) || info.ctimeMs < recordedAt) continue;
    const prefix = `${folder.shown}: a folder its owner cannot enter or list`;
    if (notes.some((note) => note.startsWith(prefix))) continue;
    notes.push(`${prefix}; what it holds is not checked`);
  }
}

/**
 * Whether `info` is a folder a command could have closed: one of this process's user
 * (a command runs as that user, and cannot make another's; a folder of another user,
 * such as a container's volume, is left as it is, and unsaid).
 */
function closedByCommand(info: Stats | undefined): info is Stats {
  if (info === undefined || !info.isDirectory()) return false;
  const uid = process.getuid?.();
  return uid === undefined || info.uid === uid;
}
