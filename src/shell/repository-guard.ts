/**
 * Git repositories a sandboxed command made or changed, made harmless again for git on
 * the host. The shell's read-only mounts are decided at its start; a repository made
 * after it (`git init sub`, a `.git` file pointing elsewhere, a bare repository's
 * layout) has a config and hooks the sandbox can write, and the user's git would run
 * what they name (`core.fsmonitor` at the next `git status`, a hook at the next
 * commit). After each command the guard finds the repositories git would use in the
 * writable folders and undoes what was added since the shell's first start: config
 * entries that may run something are moved to `<file>.disabled`, new hooks renamed
 * `<hook>.disabled`. Nothing is deleted; what was there at the start is left alone.
 */
import { renameSync, type Stats, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { PinnedFolder } from './pinned-folder';
import { randomBytes } from './random-bytes';
import { entries, type GitDir, gitDirectories, lstatOf, realPath } from './git-directories';
import { entryName, type GitConfigEntry, mayRunSomething, parseGitConfig } from './git-config';

/** The most directories one check reads, all roots together. */
export const GUARD_MAX_DIRECTORIES = 2000;

/** How far the record's time is set back against file times (ms). */
const RECORD_MARGIN_MS = 100;

/** The most notes one check gives, and the most characters of each. */
const MAX_NOTES = 50;
const MAX_NOTE_CHARACTERS = 500;

/** The most config entry names one note names. */
const MAX_NAMES = 20;

/**
 * `notes` as the command's result carries them: characters that would read as
 * something else (line ends, escapes, controls) shown as `\uXXXX`, each note and their
 * number bounded: names in them are a command's to choose.
 */
function bounded(notes: readonly string[]): string[] {
  const shown = notes.slice(0, MAX_NOTES).map((note) => {
    const plain = Array.from(note, (c) => {
      const code = c.charCodeAt(0);
      const control =
        code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
      return control ? `\\u${code.toString(16).padStart(4, '0')}` : c;
    }).join('');
    return plain.length > MAX_NOTE_CHARACTERS ? `${plain.slice(0, MAX_NOTE_CHARACTERS)}...` : plain;
  });
  if (notes.length > MAX_NOTES) shown.push(`and ${notes.length - MAX_NOTES} more like these`);
  return shown;
}

/** The most entries of a `hooks` folder looked at one by one. */
const MAX_HOOKS = 1000;

/** The most linked worktrees of a repository whose own config is read. */
const MAX_WORKTREES = 256;

/** A configuration file larger than this is not read: it is moved aside when new. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** What of a git directory may make git run something: one identity per item. */
type Items = Map<string, Item>;

type Item =
  | { readonly kind: 'entry'; readonly file: string }
  | { readonly kind: 'file'; readonly file: string; readonly why: string }
  | { readonly kind: 'hook'; readonly file: string };

/**
 * Finds, for the writable folders `roots`, the repositories git would use there and one
 * level below (a `.git` folder, a `.git` file's target, a bare repository's layout, and
 * a linked git directory's common one), and keeps what may make git run something
 * (config entries that are not known data, hooks, a config that is no plain file) as it
 * was at {@link RepositoryGuard.record}.
 */
export class RepositoryGuard {
  private readonly roots: readonly string[];
  /** What each git directory held at the record; `unread` when it could not be read. */
  private baseline: Map<string, ReadonlySet<string> | 'unread'> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** What the running sandbox mounts read-only, by real path: no command changed it. */
  private mounted: ReadonlySet<string> = new Set();
  /** When the record was made (ms since the epoch), to date what is first seen later. */
  private recordedAt = 0;
  /** Whether a check has said that it did not read every folder. */
  private toldIncomplete = false;

  constructor(
    roots: readonly string[],
    private readonly maxDirectories = GUARD_MAX_DIRECTORIES,
  ) {
    this.roots = [...new Set(roots.map((root) => resolve(root)))];
  }

  /**
   * The paths the sandbox now started keeps read-only (its protected `.git/config` and
   * `.git/hooks` among them): what lies there is left to the user, who may change it
   * while the shell runs (a hook manager's install, `git config` on the host).
   */
  readOnly(paths: readonly string[]): void {
    // A protection that does not exist yet is made by bubblewrap as the shell starts.
    this.mounted = new Set(
      paths.map(
        (path) => realPath(path) ?? join(realPath(dirname(path)) ?? dirname(path), basename(path)),
      ),
    );
  }

  /** Takes what is there now as what the user made; later calls do nothing. */
  record(): Promise<void> {
    return this.serial(async () => {
      if (this.baseline !== undefined) return;
      const baseline = new Map<string, ReadonlySet<string> | 'unread'>();
      // A record that cannot be made leaves none: checks then do nothing.
      const searched = await this.gitDirs().catch(() => ({ dirs: [] }));
      for (const gitDir of searched.dirs) {
        let items: Items | undefined;
        try {
          items = itemsOf(gitDir);
        } catch {
          items = undefined;
        }
        baseline.set(gitDir.path, items === undefined ? 'unread' : new Set(items.keys()));
      }
      this.baseline = baseline;
      // File times come from a coarser clock, a few ms behind: what is made just after
      // the record must not date from before it. Something of the user's changed in the
      // margin before is judged new, the safe way.
      this.recordedAt = Date.now() - RECORD_MARGIN_MS;
    });
  }

  /**
   * Undoes what was added since {@link record} and says what, one note each
   * (`sub/.git/config: core.fsmonitor, moved to sub/.git/config.disabled`). A
   * repository that cannot be read is named with why; nothing is thrown. Does nothing
   * before the record, nor to a repository that could not be read then.
   */
  check(): Promise<string[]> {
    return this.serial(async () => {
      const baseline = this.baseline;
      if (baseline === undefined) return [];
      const notes: string[] = [];
      let gitDirs: GitDir[];
      try {
        const searched = await this.gitDirs();
        gitDirs = searched.dirs;
        // Said once: it holds for every command after.
        if (!searched.followedAll) {
          notes.push(
            "the repositories' chains (common folders, submodules, remotes) were followed so far only (8 steps, 256 repositories from one folder): what git would run from beyond is not checked",
          );
        }
        if (!searched.complete && !this.toldIncomplete) {
          this.toldIncomplete = true;
          notes.push(
            `the repositories were looked for in ${this.maxDirectories} folders only: a writable folder holds more folders than that, and what git would run from the others is not checked`,
          );
        }
      } catch (error) {
        return [`the repositories were not checked (${(error as Error).message})`];
      }
      for (const gitDir of gitDirs) {
        try {
          const items = itemsOf(gitDir, this.mounted);
          let known = baseline.get(gitDir.path);
          if (known === 'unread') continue;
          // First seen now (deeper than the record looked, reached through a remote, a
          // submodule): a repository that was there before the shell's first start keeps
          // what had not changed since; one made since keeps nothing.
          if (known === undefined) {
            known = this.untouched(gitDir, items);
            baseline.set(gitDir.path, known);
          }
          const kept = known;
          const added = [...items].filter(([id]) => !kept.has(id));
          if (added.length > 0) {
            notes.push(
              ...disarm(
                gitDir,
                added.map(([, item]) => item),
                known,
              ),
            );
          }
        } catch (error) {
          notes.push(`${gitDir.shown}: not checked (${(error as Error).message})`);
        }
      }
      return bounded(notes);
    });
  }

  /**
   * The items of `gitDir`, first seen after the record, that were there before it: none
   * when the repository itself is newer (its `HEAD` made since); else its hooks and
   * other files not made or changed since, and the entries of a config not written
   * since. A config written since has its entries judged new, the user's with them.
   */
  private untouched(gitDir: GitDir, items: Items): Set<string> {
    const kept = new Set<string>();
    const before = (path: string): boolean => {
      const info = lstatOf(path);
      if (info === undefined) return false;
      const born = info.birthtimeMs > 0 ? info.birthtimeMs : info.ctimeMs;
      return (
        born < this.recordedAt && info.ctimeMs < this.recordedAt && info.mtimeMs < this.recordedAt
      );
    };
    if (!before(join(gitDir.path, 'HEAD')) && !before(gitDir.path)) return kept;
    for (const [id, item] of items) if (before(item.file)) kept.add(id);
    return kept;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The git directories of the roots and of their folders one level down. */
  private gitDirs(): Promise<{
    readonly dirs: GitDir[];
    readonly complete: boolean;
    readonly followedAll: boolean;
  }> {
    return gitDirectories(this.roots, this.maxDirectories);
  }
}

/**
 * What in git directory `gitDir` may make git run something, by identity; what is in
 * `mounted` (read-only to commands) is left out. Read through the folder held open (see
 * {@link PinnedFolder}), never through a link a command put on the way.
 */
function itemsOf(gitDir: GitDir, mounted: ReadonlySet<string> = new Set()): Items {
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
      for (const entry of parsed.entries) {
        if (mayRunSomething(entry)) items.set(entryId(file, entry, text), { kind: 'entry', file });
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
function disarm(gitDir: GitDir, items: readonly Item[], known: ReadonlySet<string>): string[] {
  const notes: string[] = [];
  const shown = (path: string) => join(gitDir.shown, relative(gitDir.path, path));
  const folder = PinnedFolder.open(gitDir.root, gitDir.path);
  const opened: PinnedFolder[] = [folder];
  /** The folder `file` is in, held open: the git directory, `hooks` or a worktree's. */
  const folderOf = (file: string): PinnedFolder => {
    let at = folder;
    for (const name of relative(gitDir.path, dirname(file))
      .split(sep)
      .filter((n) => n !== '')) {
      at = at.child(name);
      opened.push(at);
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
function freeName(folder: PinnedFolder, name: string): string {
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
