/**
 * What in a repository may make git on the host run something (config entries that are
 * not known data, hooks, a config or hooks folder that is no plain one), each known by
 * an identity from one check to the next, and how what was added is moved aside: the
 * repository guard's reading and writing, done through folders held open (see
 * {@link PinnedFolder}).
 */
import { renameSync, type Stats, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { entryName, type GitConfigEntry, mayRunSomething, parseGitConfig } from './git-config';
import { entries, lstatOf } from './folder-reads';
import { type GitDir } from './git-directories';
import { PinnedFolder } from './pinned-folder';
import { randomBytes } from './random-bytes';

/** The most config entry names one note names. */
const MAX_NAMES = 20;

/** The most entries of a `hooks` folder looked at one by one. */
const MAX_HOOKS = 1000;

/** The most linked worktrees of a repository whose own config is read. */
const MAX_WORKTREES = 256;

/** A configuration file larger than this is not read: it is moved aside when new. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** What of a git directory may make git run something: one identity per item. */
export type Items = Map<string, Item>;

type Item =
  | { readonly kind: 'entry'; readonly file: string }
  | { readonly kind: 'file'; readonly file: string; readonly why: string }
  | { readonly kind: 'hook'; readonly file: string };

/**
 * What in git directory `gitDir` may make git run something, by identity; what is in
 * `mounted` (read-only to commands) is left out. Read through the folder held open (see
 * {@link PinnedFolder}), never through a link a command put on the way.
 */
export function itemsOf(gitDir: GitDir, mounted: ReadonlySet<string> = new Set()): Items {
  const items: Items = new Map();
  const folder = PinnedFolder.open(gitDir.root, gitDir.path);
  const opened: PinnedFolder[] = [folder];
  try {
    const configs: [PinnedFolder, string][] = [
      [folder, 'config'],
      [folder, 'config.worktree'],
    ];
    const worktrees = childIfFolder(folder, 'worktrees', opened);
    const linked = worktrees === undefined ? [] : entries(worktrees.at('.'));
    for (const worktree of linked.slice(0, MAX_WORKTREES)) {
      if (!worktree.isDirectory()) continue;
      const each = childIfFolder(worktrees!, worktree.name, opened);
      if (each !== undefined) configs.push([each, 'config.worktree']);
    }
    for (const [where, name] of configs) {
      const file = join(where.path, name);
      if (mounted.has(file)) continue;
      const info = lstatOf(where.at(name));
      if (info === undefined) continue;
      if (!info.isFile() || info.size > MAX_CONFIG_BYTES) {
        const why = info.isFile() ? 'larger than git configuration is' : 'not a plain file';
        items.set(`file\0${file}\0${identity(info)}`, { kind: 'file', file, why });
        continue;
      }
      let text: string;
      try {
        text = where.readText(name, MAX_CONFIG_BYTES);
      } catch {
        items.set(`file\0${file}\0${identity(info)}`, { kind: 'file', file, why: 'unreadable' });
        continue;
      }
      const parsed = parseGitConfig(text);
      if (!parsed.ok) {
        items.set(`file\0${file}\0${text}`, {
          kind: 'file',
          file,
          why: `unreadable at line ${parsed.line}`,
        });
        continue;
      }
      try {
        const judged = new Map<string, Item>();
        for (const entry of parsed.entries) {
          if (mayRunSomething(entry))
            judged.set(entryId(file, entry, text), { kind: 'entry', file });
        }
        for (const [id, item] of judged) items.set(id, item);
      } catch (error) {
        // A config whose entries could not be judged is judged whole, as one git cannot
        // read is: moved aside once it changes, rather than left for git to run.
        items.set(`file\0${file}\0${text}`, {
          kind: 'file',
          file,
          why: `not checked (${(error as Error).message})`,
        });
      }
    }
    const hooks = join(gitDir.path, 'hooks');
    const info = mounted.has(hooks) ? undefined : lstatOf(folder.at('hooks'));
    const hookFolder =
      info?.isDirectory() === true ? childIfFolder(folder, 'hooks', opened) : undefined;
    // A hooks folder that cannot be listed can still have its hooks run, by name.
    const listed = hookFolder === undefined ? [] : entries(hookFolder.at('.'), true);
    // Past a bound the folder goes aside whole: a check is not made to take long.
    const tooMany = listed !== 'unlisted' && listed.length > MAX_HOOKS;
    if (info !== undefined && (!info.isDirectory() || listed === 'unlisted' || tooMany)) {
      const why = !info.isDirectory()
        ? 'not a folder'
        : tooMany
          ? `a folder of more than ${MAX_HOOKS} entries`
          : 'a folder that cannot be listed';
      items.set(`file\0${hooks}\0${identity(info)}`, { kind: 'file', file: hooks, why });
    } else if (hookFolder !== undefined && listed !== 'unlisted') {
      for (const hook of listed) {
        // Git runs a hook by its exact name: these never are one.
        if (/\.(sample|disabled)(-\d+)?$/.test(hook.name)) continue;
        const file = join(hooks, hook.name);
        const stats = lstatOf(hookFolder.at(hook.name));
        if (stats !== undefined) {
          items.set(`hook\0${file}\0${identity(stats)}`, { kind: 'hook', file });
        }
      }
    }
    return items;
  } finally {
    for (const each of opened) each.close();
  }
}

/** The folder `name` of `folder`, held open (and kept in `opened`), or undefined. */
function childIfFolder(
  folder: PinnedFolder,
  name: string,
  opened: PinnedFolder[],
): PinnedFolder | undefined {
  if (lstatOf(folder.at(name))?.isDirectory() !== true) return undefined;
  try {
    const child = folder.child(name);
    opened.push(child);
    return child;
  } catch {
    return undefined;
  }
}

/**
 * Moves what was added aside, and says what moved where. A command may still be running
 * in the background, and may swap a folder on the way for a link meanwhile: every file
 * is reached through its folder held open from the writable root (see
 * {@link PinnedFolder}), files are made afresh and never opened through a link, and a
 * configuration is read again and only the entries found added then are taken out.
 */
export function disarm(
  gitDir: GitDir,
  items: readonly Item[],
  known: ReadonlySet<string>,
): string[] {
  const notes: string[] = [];
  const shown = (path: string) => join(gitDir.shown, relative(gitDir.path, path));
  const folder = PinnedFolder.open(gitDir.root, gitDir.path);
  const opened: PinnedFolder[] = [folder];
  // A command may have taken its own rights away from a folder (`chmod a-w .git`) so
  // that nothing can be moved there, while git still reads and runs what it holds.
  const writable = (at: PinnedFolder): PinnedFolder => {
    if (at.giveOwnerRights()) {
      notes.push(
        `${shown(at.path)}: a folder its owner could not change, given back its owner's rights`,
      );
    }
    return at;
  };
  /** The folder `file` is in, held open: the git directory, `hooks` or a worktree's. */
  const folderOf = (file: string): PinnedFolder => {
    let at = writable(folder);
    for (const name of relative(gitDir.path, dirname(file))
      .split(sep)
      .filter((n) => n !== '')) {
      at = at.child(name);
      opened.push(at);
      writable(at);
    }
    return at;
  };
  try {
    const configs = new Set<string>();
    for (const item of items) {
      if (item.kind === 'entry') {
        configs.add(item.file);
        continue;
      }
      const where = folderOf(item.file);
      const name = basename(item.file);
      const aside = freeName(where, `${name}.disabled`);
      renameSync(where.at(name), where.at(aside));
      const moved = join(dirname(item.file), aside);
      notes.push(
        item.kind === 'hook'
          ? `${shown(item.file)}: a hook, renamed ${shown(moved)}`
          : `${shown(item.file)}: ${item.why}, moved to ${shown(moved)}`,
      );
    }
    for (const file of configs) {
      const where = folderOf(file);
      const name = basename(file);
      const info = lstatOf(where.at(name));
      if (info === undefined || !info.isFile() || info.size > MAX_CONFIG_BYTES) continue; // the next check moves it
      const text = where.readText(name, MAX_CONFIG_BYTES);
      const parsed = parseGitConfig(text);
      if (!parsed.ok) continue;
      const removed = parsed.entries.filter(
        (entry) => mayRunSomething(entry) && !known.has(entryId(file, entry, text)),
      );
      if (removed.length === 0) continue;
      let kept = '';
      let from = 0;
      let moved = `# Moved here by agenttool on ${new Date().toISOString()} from ${file}: a sandboxed command wrote them, and git would run what they name outside the sandbox.\n`;
      for (const entry of removed) {
        const { start, end } = wholeLine(text, entry);
        kept += text.slice(from, start);
        from = end;
        const header =
          entry.subsection === undefined
            ? `[${entry.section}]`
            : `[${entry.section} "${entry.subsection.replace(/["\\]/g, (c) => `\\${c}`)}"]`;
        moved += `${header}\n\t${text.slice(entry.start, entry.end)}\n`;
      }
      kept += text.slice(from);
      const aside = createFresh(where, `${name}.disabled`, moved);
      const temporary = createFresh(
        where,
        `.agenttool-${randomBytes(6).toString('hex')}`,
        kept,
        info.mode & 0o777,
      );
      renameSync(where.at(temporary), where.at(name));
      const unique = [...new Set(removed.map(entryName))];
      const names =
        unique.length > MAX_NAMES
          ? `${unique.slice(0, MAX_NAMES).join(', ')} and ${unique.length - MAX_NAMES} more`
          : unique.join(', ');
      notes.push(`${shown(file)}: ${names}, moved to ${shown(join(dirname(file), aside))}`);
    }
    return notes;
  } catch (error) {
    // What was moved before the failure is said too; the next check tries again.
    notes.push(`${gitDir.shown}: not all moved aside (${(error as Error).message})`);
    return notes;
  } finally {
    for (const each of opened) each.close();
  }
}

/**
 * Where to cut `entry` out of `text`: its line with it when nothing else is on it, so
 * that no blank line is left; else the entry alone.
 */
function wholeLine(text: string, entry: GitConfigEntry): { start: number; end: number } {
  let start = entry.start;
  while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
  if (start > 0 && text[start - 1] !== '\n') return entry;
  const end = text.startsWith('\r\n', entry.end) ? entry.end + 2 : entry.end + 1;
  return { start, end: Math.min(end, text.length) };
}

/** Writes `text` to a new file `name` (or `name-2`...) in `folder`, never through a link. */
function createFresh(folder: PinnedFolder, name: string, text: string, mode = 0o644): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    try {
      writeFileSync(folder.at(candidate), text, { flag: 'wx', mode });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** `name`, or `name-2`, `name-3`... whichever is free in `folder`. */
export function freeName(folder: PinnedFolder, name: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    if (lstatOf(folder.at(candidate)) === undefined) return candidate;
  }
}

/** How a config entry that may run something is known from one check to the next. */
function entryId(file: string, entry: GitConfigEntry, text: string): string {
  return `entry\0${file}\0${entry.section}\0${entry.subsection ?? ''}\0${text.slice(entry.start, entry.end)}`;
}

/** What changes when a file is replaced or written: its inode, size and change time. */
function identity(info: Stats): string {
  return `${info.ino}:${info.size}:${info.ctimeMs}`;
}
