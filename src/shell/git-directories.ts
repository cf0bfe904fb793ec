/**
 * Where git would find repositories in a shell's writable folders, for the repository
 * guard: the folders themselves and those one level below, as git finds them (a `.git`
 * folder, the repository a `.git` file or link names, a bare repository's layout, and
 * the common directory a linked one reads its config from), by real path. Read with
 * synchronous calls: a fifth of the promise API's cost, for the few dozen a command
 * usually needs, the event loop given its turn every 64 folders.
 */
import { type Dirent } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { canEnter, entries, lstatOf, realPath, smallText, statOf } from './folder-reads';
import { gitlinks } from './git-index';
import { localPath, localRemotes } from './git-remotes';

/** How many folders a search reads before it lets the event loop run. */
const SLICE = 64;

/** A repository git would use, by its git directory's real path. */
export interface GitDir {
  readonly path: string;
  /** The writable folder (real path) it lies in. */
  readonly root: string;
  /** How notes name it: below the root it lies in. */
  readonly shown: string;
}

/** A path the search found, inside writable folder `root` (real paths). */
export interface FoundPath {
  readonly path: string;
  readonly root: string;
  /** How notes name it: below the root it lies in. */
  readonly shown: string;
}

/** What {@link gitDirectories} found. */
export interface GitDirSearch {
  readonly dirs: GitDir[];
  /** Whether every folder one level down was read (false past `maxDirectories`). */
  readonly complete: boolean;
  /** Whether every chain was followed to its end (false past a bound). */
  readonly followedAll: boolean;
  /**
   * Folders the search would have looked into (a folder one level down, a `.git`
   * folder, a repository's `modules`) that this process may not enter: a repository
   * there cannot be seen until they can be (their owner can give the right back).
   */
  readonly sealed: readonly FoundPath[];
  /**
   * The entries of the folders one level down named as one of the `named` asked for,
   * and of the writable folders themselves named as one of `namedAtRoot` (lower case;
   * names are matched with case ignored): what another program takes up once it is
   * there.
   */
  readonly named: readonly FoundPath[];
}

/** The git directories of `roots` and of their folders one level down, at most `maxDirectories` read. */
export async function gitDirectories(
  roots: readonly string[],
  maxDirectories: number,
  named: ReadonlySet<string> = new Set(),
  namedAtRoot: ReadonlySet<string> = new Set(),
): Promise<GitDirSearch> {
  const realRoots = roots.flatMap((root) => realPath(root) ?? []);
  const inside = (path: string) =>
    realRoots.find(
      (root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep),
    );
  const found = new Map<string, GitDir>();
  /** The git directories whose index was read for submodules, with a worktree known. */
  const linked = new Set<string>();
  /** Where a path that is read must lead: into a writable folder, never elsewhere. */
  const within = (path: string): boolean => {
    const real = realPath(path);
    return real !== undefined && inside(real) !== undefined;
  };
  // A queue, not recursion: chains of common directories, submodules and remotes are
  // a command's to make as long as it likes.
  const queue: {
    readonly path: string;
    readonly worktree: string | undefined;
    readonly hops: number;
  }[] = [];
  let overflowed = false;
  const sealed = new Map<string, FoundPath>();
  const namedFound: FoundPath[] = [];
  const namedSeen = new Set<string>();
  /**
   * Notes the entries of `dir` (as `list` read it) named as one of `names`: by name where
   * it could not be listed, since git and an agent open such a file by name.
   */
  const noteNamed = (
    dir: string,
    list: Dirent[] | 'unlisted',
    names: ReadonlySet<string>,
    root: string,
  ): void => {
    if (names.size === 0) return;
    const found =
      list === 'unlisted'
        ? [...names].filter((name) => lstatOf(join(dir, name)) !== undefined)
        : list.filter((entry) => names.has(entry.name.toLowerCase())).map((entry) => entry.name);
    for (const name of found) {
      const path = join(dir, name);
      if (namedSeen.has(path)) continue;
      namedSeen.add(path);
      namedFound.push({ path, root, shown: relative(root, path) });
    }
  };
  /**
   * Whether `dir` (a real path) can be entered, and was `listable` where that was
   * tried; noted as sealed where not.
   */
  const enterable = (dir: string, listable = true): boolean => {
    if (listable && canEnter(dir)) return true;
    const root = inside(dir);
    if (root !== undefined) sealed.set(dir, { path: dir, root, shown: relative(root, dir) || '.' });
    return false;
  };
  /** How far from a folder the search reads the git directory now visited was reached. */
  let hops = 0;
  /** How many git directories one folder's search has reached, to bound its chains. */
  let reached = 0;
  const add = (path: string, worktree?: string) => {
    if (hops >= MAX_HOPS || reached >= MAX_PER_FOLDER || found.size >= MAX_GIT_DIRS) {
      overflowed = true;
      return;
    }
    reached++;
    queue.push({ path, worktree, hops: hops + 1 });
  };
  const visit = (path: string, worktree: string | undefined) => {
    const real = realPath(path);
    if (real === undefined) return;
    const root = inside(real);
    if (root === undefined || statOf(real)?.isDirectory() !== true) return;
    // Only what git would take for a git directory: its config and hooks are judged as
    // git's, and a project's own `config` or `hooks` must not be.
    if (!looksLikeGitDir(real)) {
      enterable(real);
      return;
    }
    // The submodules its index names, at any depth of its worktree: `git status` there
    // looks into each. Read once a worktree is known, however the folder was reached.
    if (worktree !== undefined && !linked.has(real)) {
      linked.add(real);
      const submodules = gitlinks(real);
      if (!submodules.complete) overflowed = true;
      for (const link of submodules.links) {
        if (isAbsolute(link) || link.split('/').includes('..')) continue;
        gitDirsIn(join(worktree, link), ['.git'], add, within);
      }
    }
    if (found.has(real)) return;
    found.set(real, { path: real, root, shown: relative(root, real) || '.' });
    // A linked worktree's or a submodule's git directory reads its common one's config.
    const commonText = smallText(join(real, 'commondir'), 8192, true);
    const common = commonText === undefined ? '' : withoutLineEnds(commonText);
    if (common !== '') add(resolve(real, common));
    // Its submodules' git directories, wherever their worktrees are (`git status` in the
    // repository runs in each).
    if (within(join(real, 'modules'))) {
      for (const module of submoduleDirs(join(real, 'modules'), enterable)) add(module);
    }
    // Its linked worktrees' folders, whose configs are read by name (repository-items).
    const worktrees = join(real, 'worktrees');
    if (lstatOf(worktrees)?.isDirectory() === true && entries(worktrees, true) === 'unlisted') {
      enterable(worktrees, false);
    }
    // The repositories on this machine its remotes name: a push to one runs its hooks.
    const remotes = localRemotes(real, within, () => (overflowed = true));
    for (const url of remotes) {
      const target = localPath(url, worktree ?? real);
      if (target === undefined) continue;
      // Where git looks for it (enter_repo): the path, and the path with `.git` after.
      for (const path of [target, `${target}.git`]) {
        add(path);
        gitDirsIn(path, ['.git'], add, within);
      }
    }
  };
  /** Visits what one folder's search reached, and what that leads to, within bounds. */
  const drain = () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      hops = next.hops;
      visit(next.path, next.worktree);
    }
    hops = 0;
    reached = 0;
  };
  let budget = maxDirectories;
  let complete = true;
  for (const root of realRoots) {
    const top = entries(root, true);
    // Its folders are found by listing it: one it cannot list hides them all.
    enterable(root, top !== 'unlisted');
    const listed = top === 'unlisted' ? [] : top;
    // The agents' files the sandbox does not hold at a writable folder when missing.
    noteNamed(root, top, namedAtRoot, root);
    budget--;
    gitDirsIn(root, top, add, within);
    drain();
    for (const entry of listed) {
      const name = entry.name.toLowerCase();
      if (name === 'node_modules' || name === '.git') continue;
      const dir = join(root, entry.name);
      // A link to a folder is a folder to git, which a user may run in.
      if (!entry.isDirectory() && !(entry.isSymbolicLink() && statOf(dir)?.isDirectory())) {
        continue;
      }
      if (budget-- <= 0) {
        complete = false;
        break;
      }
      // A link is looked into where it leads, when that lies in a writable folder.
      const real = entry.isDirectory() ? dir : realPath(dir);
      const realRoot = real === undefined ? undefined : inside(real);
      if (real !== undefined && realRoot !== undefined && !enterable(real)) continue;
      const list = entries(dir, true);
      // Entered but not listed (`chmod 111`): git and an agent open what is in it by name.
      if (list === 'unlisted' && real !== undefined) enterable(real, false);
      if (real !== undefined && realRoot !== undefined) noteNamed(real, list, named, realRoot);
      gitDirsIn(dir, list, add, within);
      drain();
      if (budget % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return {
    dirs: [...found.values()],
    complete,
    followedAll: !overflowed,
    sealed: [...sealed.values()],
    named: namedFound,
  };
}

/**
 * Whether git would take folder `dir` for a git directory, or a common one: it has a
 * `HEAD`, or `objects` and `refs`.
 */
function looksLikeGitDir(dir: string): boolean {
  return (
    lstatOf(join(dir, 'HEAD')) !== undefined ||
    (lstatOf(join(dir, 'objects')) !== undefined && lstatOf(join(dir, 'refs')) !== undefined)
  );
}

/**
 * Bounds on what one search follows (chains of common directories, submodules and
 * remotes are a command's to make): the most git directories in all, the most reached
 * from one folder of a writable folder, and how many steps from that folder.
 */
const MAX_GIT_DIRS = 4096;
const MAX_PER_FOLDER = 256;
const MAX_HOPS = 8;

/** How deep below a `modules` folder a submodule's git directory is looked for. */
const MODULES_DEPTH = 4;

/** The most folders of one `modules` folder read. */
const MODULES_FOLDERS = 256;

/**
 * The git directories in a repository's `modules` folder: each folder with a `HEAD`,
 * down to {@link MODULES_DEPTH} levels (a submodule's name may hold slashes), at most
 * {@link MODULES_FOLDERS} folders read. Its own `modules` are the caller's to follow.
 */
function submoduleDirs(
  modules: string,
  enterable: (dir: string, listable?: boolean) => boolean,
): string[] {
  const found: string[] = [];
  let level = [modules];
  let read = 0;
  for (let depth = 0; depth < MODULES_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (read++ >= MODULES_FOLDERS) return found;
      if (!enterable(dir)) continue;
      const list = entries(dir, true);
      if (list === 'unlisted') {
        enterable(dir, false);
        continue;
      }
      for (const entry of list) {
        if (!entry.isDirectory()) continue;
        const path = join(dir, entry.name);
        if (lstatOf(join(path, 'HEAD')) !== undefined) found.push(path);
        else next.push(path);
      }
    }
    level = next;
  }
  return found;
}

/**
 * The git directories `dir` (whose entries are `list`) is, or names, given to `add`.
 * A folder that cannot be listed may still be entered (git needs only that): what
 * would make it a repository's is then looked up by name.
 */
function gitDirsIn(
  dir: string,
  list: readonly Dirent[] | 'unlisted' | readonly string[],
  add: (path: string, worktree?: string) => void,
  within: (path: string) => boolean,
): void {
  const names =
    list === 'unlisted'
      ? ['.git', 'HEAD', 'objects', 'refs', 'commondir'].filter(
          (name) => lstatOf(join(dir, name)) !== undefined,
        )
      : list.map((entry) => (typeof entry === 'string' ? entry : entry.name));
  const has = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    has.add(lower);
    if (lower !== '.git') continue;
    // Followed as git follows it: a folder, or a file that names one.
    const path = join(dir, name);
    const info = statOf(path);
    if (info?.isDirectory() === true) add(path, dir);
    // A link is followed as git follows it, only where it leads inside.
    else if (info?.isFile() === true && within(path)) {
      const pointer = gitFileTarget(path);
      if (pointer !== undefined) add(resolve(dir, pointer), dir);
    }
  }
  // A git directory's layout, which git takes as a repository wherever it finds one: a
  // HEAD, and objects and refs (of any kind: git asks only that it may enter them) or a
  // common directory that has them.
  if (has.has('head') && ((has.has('objects') && has.has('refs')) || has.has('commondir'))) {
    add(dir);
  }
}

/**
 * The folder a `.git` file names, read as git reads it: the file whole (at most 1 MiB),
 * `gitdir: ` and what follows, up to a NUL, with line ends taken off its end only.
 */
function gitFileTarget(path: string): string | undefined {
  const text = smallText(path);
  if (text === undefined || !text.startsWith('gitdir: ')) return undefined;
  const target = withoutLineEnds(text.slice('gitdir: '.length));
  return target === '' ? undefined : target;
}

/** `text` up to its first NUL (as C reads it), without the line ends at its end. */
function withoutLineEnds(text: string): string {
  const nul = text.indexOf('\0');
  return (nul < 0 ? text : text.slice(0, nul)).replace(/[\r\n]+$/, '');
}
