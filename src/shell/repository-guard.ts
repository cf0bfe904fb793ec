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
import { type Stats } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { lstatOf, realPath } from './folder-reads';
import { type GitDir, gitDirectories, type GitDirSearch } from './git-directories';
import {
  MadeSettings,
  noteStillClosed,
  openClosed,
  ROOT_SETTINGS_NAMES,
  SETTINGS_NAMES,
} from './guard-folders';
import { disarm, type Items, itemsOf } from './repository-items';
import { type GuardState } from './guard-state';

/** The most directories one check reads, all roots together. */
export const GUARD_MAX_DIRECTORIES = 2000;

/** How many times one check opens closed folders and looks again, at most. */
const MAX_OPENING_ROUNDS = 8;

/** How far the record's time is set back against file times (ms). */
const RECORD_MARGIN_MS = 100;

/**
 * How often the guard checks while no command runs (ms), for what a command left
 * running in the background adds between commands; at least fifty times as long as the
 * last check took, so that a large workspace costs at most a fiftieth of a core.
 */
const IDLE_CHECK_MS = 2000;

/** The most notes kept between two results. */
const MAX_UNTOLD = 100;

/** The most notes one check gives, and the most characters of each. */
const MAX_NOTES = 50;
const MAX_NOTE_CHARACTERS = 500;

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
  /** The timer of the checks {@link watch} makes, while it is on. */
  private watching: ReturnType<typeof setTimeout> | undefined;
  /** How many times {@link watch} began: a check tells only the watch it began under. */
  private watches = 0;
  /** What was undone and not yet said (see {@link takeNotes}). */
  private untold: string[] = [];
  /** The agents' settings one level down: the user's, and moving aside those made since. */
  private readonly settings = new MadeSettings();

  /**
   * @param kept - given what the guard knows each time that changes (the record, the
   *   sandbox's read-only paths, a repository first seen), to keep it where a check can
   *   be made from it after this process is killed outright (see guard-record.ts).
   */
  constructor(
    roots: readonly string[],
    private readonly maxDirectories = GUARD_MAX_DIRECTORIES,
    private readonly kept?: (state: GuardState) => void,
  ) {
    this.roots = [...new Set(roots.map((root) => resolve(root)))];
  }

  /** A guard that goes on from `state` (what another process's guard knew). */
  static restored(state: GuardState): RepositoryGuard {
    const guard = new RepositoryGuard(state.roots, state.maxDirectories);
    guard.baseline = new Map(
      state.baseline.map(([path, items]) => [path, items === 'unread' ? items : new Set(items)]),
    );
    guard.recordedAt = state.recordedAt;
    guard.mounted = new Set(state.mounted);
    guard.settings.restore(state.settings);
    return guard;
  }

  /** What the guard knows, once it has its record: what {@link restored} goes on from. */
  state(): GuardState | undefined {
    if (this.baseline === undefined) return undefined;
    return {
      version: 1,
      roots: this.roots,
      maxDirectories: this.maxDirectories,
      recordedAt: this.recordedAt,
      baseline: [...this.baseline].map(([path, items]) => [
        path,
        items === 'unread' ? items : [...items],
      ]),
      mounted: [...this.mounted],
      settings: this.settings.entries(),
    };
  }

  /** Gives what the guard knows now to `kept`, if it has its record. */
  private keepState(): void {
    if (this.kept === undefined) return;
    const state = this.state();
    if (state !== undefined) this.kept(state);
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
    this.keepState();
  }

  /** Takes what is there now as what the user made; later calls do nothing. */
  record(): Promise<void> {
    return this.serial(async () => {
      if (this.baseline !== undefined) return;
      const baseline = new Map<string, ReadonlySet<string> | 'unread'>();
      // A record that cannot be made leaves none: checks then do nothing.
      const searched = await this.gitDirs().catch(() => ({ dirs: [], named: [] }));
      this.settings.record(searched.named);
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
      this.keepState();
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
      let firstSeen = false;
      let gitDirs: GitDir[];
      try {
        let searched = await this.gitDirs();
        // What a command closed to its owner is opened again and looked into: git on
        // the host would use it once the user opens it, and a command can reopen it.
        // A closed folder may hide another: each round opens what the last one found.
        for (let round = 0; round < MAX_OPENING_ROUNDS; round++) {
          if (!openClosed(searched.sealed, this.recordedAt, notes)) break;
          searched = await this.gitDirs();
        }
        noteStillClosed(searched.sealed, this.recordedAt, notes);
        gitDirs = searched.dirs;
        this.settings.moveAside(
          searched.named,
          (path) => this.held(path),
          (info) => this.before(info),
          notes,
        );
        // Said once: it holds for every command after.
        if (!searched.followedAll) {
          notes.push(
            "the repositories' chains (common folders, submodules, remotes) were followed so far only (8 steps, 256 repositories from one folder; an index of 64 MiB, 4 shared indexes and 1024 submodules, not one that is a link; 64 files of remotes of 8 KiB each): what git would run from beyond is not checked",
          );
        }
        if (!searched.complete && !this.toldIncomplete) {
          this.toldIncomplete = true;
          notes.push(
            `the repositories were looked for in ${this.maxDirectories} folders only: a writable folder holds more folders than that, and what git would run from the others is not checked`,
          );
        }
      } catch (error) {
        notes.push(`the repositories were not checked (${(error as Error).message})`);
        return bounded(notes);
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
            firstSeen = true;
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
      if (firstSeen) this.keepState();
      return bounded(notes);
    });
  }

  /** Whether what `info` describes was made, and last changed, before the record. */
  private before(info: Stats): boolean {
    const born = info.birthtimeMs > 0 ? info.birthtimeMs : info.ctimeMs;
    return (
      born < this.recordedAt && info.ctimeMs < this.recordedAt && info.mtimeMs < this.recordedAt
    );
  }

  /** Whether the running sandbox keeps `path`, or a path below it, read-only. */
  private held(path: string): boolean {
    if (this.mounted.has(path)) return true;
    const below = path + sep;
    for (const mounted of this.mounted) if (mounted.startsWith(below)) return true;
    return false;
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
      return info !== undefined && this.before(info);
    };
    if (!before(join(gitDir.path, 'HEAD')) && !before(gitDir.path)) return kept;
    for (const [id, item] of items) if (before(item.file)) kept.add(id);
    return kept;
  }

  /**
   * Checks now, and says what was undone since the last call: what the checks between
   * commands and at a stop kept ({@link watch}, {@link checkForLater}), then this one's,
   * once each. A check that fails is a note.
   */
  async takeNotes(): Promise<string[]> {
    const now = await this.checkOrSay();
    const notes = [...new Set([...this.untold, ...now])];
    this.untold = [];
    return notes;
  }

  /** Checks now (the shell stopped), keeping what it undid for {@link takeNotes}. */
  async checkForLater(): Promise<void> {
    this.keep(await this.checkOrSay());
  }

  /**
   * Checks every {@link IDLE_CHECK_MS} or so while `idle()` holds (no command runs), and
   * gives what each undid to `told` (by default, kept for {@link takeNotes}): what a
   * command left running in the background adds is undone within seconds, not at the
   * next command. Until {@link unwatch}; the timer never keeps the process alive.
   */
  watch(idle: () => boolean, told: (notes: string[]) => void = (notes) => this.keep(notes)): void {
    if (this.watching !== undefined) return;
    // A check under way when unwatch (and a new watch) came must not go on with the new.
    const generation = ++this.watches;
    const next = (delayMs: number): void => {
      this.watching = setTimeout(() => void tick(), delayMs).unref();
    };
    const tick = async (): Promise<void> => {
      if (!idle()) return next(IDLE_CHECK_MS);
      const started = performance.now();
      const notes = await this.checkOrSay();
      if (this.watching === undefined || generation !== this.watches) return;
      if (notes.length > 0) told(notes);
      next(Math.max(IDLE_CHECK_MS, 50 * (performance.now() - started)));
    };
    next(IDLE_CHECK_MS);
  }

  /** Stops the checks {@link watch} makes (one under way finishes, and tells nothing). */
  unwatch(): void {
    clearTimeout(this.watching);
    this.watching = undefined;
  }

  private checkOrSay(): Promise<string[]> {
    return this.check().catch((error: unknown) => [
      `the repositories were not checked (${String(error)})`,
    ]);
  }

  /** Keeps `notes` for {@link takeNotes}: once each, and at most {@link MAX_UNTOLD}. */
  private keep(notes: readonly string[]): void {
    this.untold = [...new Set([...this.untold, ...notes])].slice(0, MAX_UNTOLD);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The git directories of the roots and of their folders one level down. */
  private gitDirs(): Promise<GitDirSearch> {
    return gitDirectories(this.roots, this.maxDirectories, SETTINGS_NAMES, ROOT_SETTINGS_NAMES);
  }
}
